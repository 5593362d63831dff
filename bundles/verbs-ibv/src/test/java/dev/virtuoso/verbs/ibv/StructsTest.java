package dev.virtuoso.verbs.ibv;

import static dev.virtuoso.verbs.ibv.Structs.offset;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.MemoryLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java layouts against verbs.h for LP64: first against numbers worked out by hand from the
 * header, then (when gcc and the libibverbs-dev headers are installed) against what gcc computes.
 */
class StructsTest {
    private record Check(String cExpression, long javaValue, long fromHeader) {
    }

    private static List<Check> checks() {
        List<Check> c = new ArrayList<>();
        size(c, "struct ibv_device_attr", Structs.DEVICE_ATTR, 232);
        off(c, "struct ibv_device_attr", "max_qp_wr", Structs.DEVICE_ATTR, 112);
        off(c, "struct ibv_device_attr", "max_sge", Structs.DEVICE_ATTR, 120);
        off(c, "struct ibv_device_attr", "max_cqe", Structs.DEVICE_ATTR, 132);
        off(c, "struct ibv_device_attr", "max_qp_rd_atom", Structs.DEVICE_ATTR, 144);
        off(c, "struct ibv_device_attr", "max_srq", Structs.DEVICE_ATTR, 212);
        off(c, "struct ibv_device_attr", "max_srq_wr", Structs.DEVICE_ATTR, 216);
        off(c, "struct ibv_device_attr", "max_srq_sge", Structs.DEVICE_ATTR, 220);
        off(c, "struct ibv_device_attr", "phys_port_cnt", Structs.DEVICE_ATTR, 227);
        size(c, "struct ibv_gid_entry", Structs.GID_ENTRY, 32);
        off(c, "struct ibv_gid_entry", "gid_index", Structs.GID_ENTRY, 16);
        off(c, "struct ibv_gid_entry", "gid_type", Structs.GID_ENTRY, 24);
        off(c, "struct ibv_gid_entry", "ndev_ifindex", Structs.GID_ENTRY, 28);
        c.add(new Check("offsetof(struct ibv_context, ops.poll_cq)", offset(Structs.CONTEXT, "poll_cq"), 96));
        c.add(new Check("offsetof(struct ibv_context, ops.req_notify_cq)",
                offset(Structs.CONTEXT, "req_notify_cq"), 104));
        c.add(new Check("offsetof(struct ibv_context, ops.post_srq_recv)",
                offset(Structs.CONTEXT, "post_srq_recv"), 168));
        c.add(new Check("offsetof(struct ibv_context, ops.post_send)", offset(Structs.CONTEXT, "post_send"), 208));
        c.add(new Check("offsetof(struct ibv_context, ops.post_recv)", offset(Structs.CONTEXT, "post_recv"), 216));
        off(c, "struct ibv_comp_channel", "fd", Structs.COMP_CHANNEL, 8);
        off(c, "struct ibv_cq", "cqe", Structs.CQ_HEAD, 28);
        off(c, "struct ibv_mr", "addr", Structs.MR, 16);
        off(c, "struct ibv_mr", "length", Structs.MR, 24);
        off(c, "struct ibv_mr", "lkey", Structs.MR, 36);
        off(c, "struct ibv_mr", "rkey", Structs.MR, 40);
        off(c, "struct ibv_qp", "qp_num", Structs.QP_HEAD, 52);
        off(c, "struct ibv_qp", "state", Structs.QP_HEAD, 56);
        size(c, "struct ibv_qp_init_attr", Structs.QP_INIT_ATTR, 64);
        off(c, "struct ibv_qp_init_attr", "srq", Structs.QP_INIT_ATTR, 24);
        off(c, "struct ibv_qp_init_attr", "cap", Structs.QP_INIT_ATTR, 32);
        off(c, "struct ibv_qp_init_attr", "qp_type", Structs.QP_INIT_ATTR, 52);
        off(c, "struct ibv_qp_init_attr", "sq_sig_all", Structs.QP_INIT_ATTR, 56);
        size(c, "struct ibv_srq_init_attr", Structs.SRQ_INIT_ATTR, 24);
        size(c, "struct ibv_qp_attr", Structs.QP_ATTR, 144);
        off(c, "struct ibv_qp_attr", "dest_qp_num", Structs.QP_ATTR, 28);
        off(c, "struct ibv_qp_attr", "qp_access_flags", Structs.QP_ATTR, 32);
        off(c, "struct ibv_qp_attr", "ah_attr", Structs.QP_ATTR, 56);
        c.add(new Check("offsetof(struct ibv_qp_attr, ah_attr.grh.flow_label)",
                offset(Structs.QP_ATTR, "ah_attr", "grh", "flow_label"), 72));
        c.add(new Check("offsetof(struct ibv_qp_attr, ah_attr.grh.sgid_index)",
                offset(Structs.QP_ATTR, "ah_attr", "grh", "sgid_index"), 76));
        c.add(new Check("offsetof(struct ibv_qp_attr, ah_attr.grh.traffic_class)",
                offset(Structs.QP_ATTR, "ah_attr", "grh", "traffic_class"), 78));
        c.add(new Check("offsetof(struct ibv_qp_attr, ah_attr.is_global)",
                offset(Structs.QP_ATTR, "ah_attr", "is_global"), 85));
        c.add(new Check("offsetof(struct ibv_qp_attr, ah_attr.port_num)",
                offset(Structs.QP_ATTR, "ah_attr", "port_num"), 86));
        off(c, "struct ibv_qp_attr", "pkey_index", Structs.QP_ATTR, 120);
        off(c, "struct ibv_qp_attr", "max_rd_atomic", Structs.QP_ATTR, 126);
        off(c, "struct ibv_qp_attr", "max_dest_rd_atomic", Structs.QP_ATTR, 127);
        off(c, "struct ibv_qp_attr", "min_rnr_timer", Structs.QP_ATTR, 128);
        off(c, "struct ibv_qp_attr", "port_num", Structs.QP_ATTR, 129);
        off(c, "struct ibv_qp_attr", "timeout", Structs.QP_ATTR, 130);
        off(c, "struct ibv_qp_attr", "retry_cnt", Structs.QP_ATTR, 131);
        off(c, "struct ibv_qp_attr", "rnr_retry", Structs.QP_ATTR, 132);
        off(c, "struct ibv_qp_attr", "rate_limit", Structs.QP_ATTR, 136);
        size(c, "struct ibv_sge", Structs.SGE, 16);
        size(c, "struct ibv_recv_wr", Structs.RECV_WR, 32);
        off(c, "struct ibv_recv_wr", "num_sge", Structs.RECV_WR, 24);
        size(c, "struct ibv_send_wr", Structs.SEND_WR, 128);
        off(c, "struct ibv_send_wr", "opcode", Structs.SEND_WR, 28);
        off(c, "struct ibv_send_wr", "send_flags", Structs.SEND_WR, 32);
        off(c, "struct ibv_send_wr", "imm_data", Structs.SEND_WR, 36);
        c.add(new Check("offsetof(struct ibv_send_wr, wr.rdma.remote_addr)",
                offset(Structs.SEND_WR, "wr", "rdma", "remote_addr"), 40));
        c.add(new Check("offsetof(struct ibv_send_wr, wr.rdma.rkey)", offset(Structs.SEND_WR, "wr", "rdma", "rkey"),
                48));
        c.add(new Check("offsetof(struct ibv_send_wr, qp_type.xrc.remote_srqn)",
                offset(Structs.SEND_WR, "remote_srqn"), 72));
        size(c, "struct ibv_wc", Structs.WC, 48);
        off(c, "struct ibv_wc", "status", Structs.WC, 8);
        off(c, "struct ibv_wc", "opcode", Structs.WC, 12);
        off(c, "struct ibv_wc", "byte_len", Structs.WC, 20);
        off(c, "struct ibv_wc", "imm_data", Structs.WC, 24);
        off(c, "struct ibv_wc", "qp_num", Structs.WC, 28);
        off(c, "struct ibv_wc", "src_qp", Structs.WC, 32);
        off(c, "struct ibv_wc", "wc_flags", Structs.WC, 36);
        return c;
    }

    private static void size(List<Check> c, String type, MemoryLayout l, long fromHeader) {
        c.add(new Check("sizeof(" + type + ")", l.byteSize(), fromHeader));
    }

    private static void off(List<Check> c, String type, String member, MemoryLayout l, long fromHeader) {
        c.add(new Check("offsetof(" + type + ", " + member + ")", offset(l, member), fromHeader));
    }

    @Test
    void layoutsMatchOffsetsWorkedOutFromVerbsH() {
        for (Check k : checks()) {
            assertEquals(k.fromHeader(), k.javaValue(), k.cExpression());
        }
    }

    @Test
    void layoutsMatchWhatGccComputesFromTheInstalledHeaders(@TempDir Path dir) throws Exception {
        Path header = Path.of("/usr/include/infiniband/verbs.h");
        assumeTrue(Files.isRegularFile(header), "skipped: libibverbs-dev headers not installed (" + header + ")");
        assumeTrue(onPath("gcc"), "skipped: gcc not on PATH");
        List<Check> checks = checks();
        StringBuilder src = new StringBuilder(
                "#include <stdio.h>\n#include <stddef.h>\n#include <infiniband/verbs.h>\nint main(void) {\n");
        for (Check k : checks) {
            src.append("  printf(\"%zu\\n\", (size_t) ").append(k.cExpression()).append(");\n");
        }
        src.append("  return 0;\n}\n");
        Path c = dir.resolve("layouts.c");
        Files.writeString(c, src);
        Path exe = dir.resolve("layouts");
        assertEquals(0, run(List.of("gcc", "-o", exe.toString(), c.toString())), "gcc failed");
        Process p = new ProcessBuilder(exe.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertEquals(0, p.waitFor());
        String[] lines = out.strip().split("\n");
        assertEquals(checks.size(), lines.length, out);
        Map<String, String> mismatches = new LinkedHashMap<>();
        for (int i = 0; i < lines.length; i++) {
            Check k = checks.get(i);
            if (Long.parseLong(lines[i].strip()) != k.javaValue()) {
                mismatches.put(k.cExpression(), "gcc " + lines[i] + ", Java " + k.javaValue());
            }
        }
        assertEquals(Map.of(), mismatches);
    }

    private static boolean onPath(String tool) {
        try {
            return run(List.of(tool, "--version")) == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private static int run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().transferTo(System.out);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }
}
