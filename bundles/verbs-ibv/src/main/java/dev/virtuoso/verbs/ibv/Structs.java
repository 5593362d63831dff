package dev.virtuoso.verbs.ibv;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;

/**
 * The libibverbs structures this binding reads or writes, as declared in rdma-core's
 * {@code infiniband/verbs.h} for LP64 Linux (x86-64, aarch64). Only the leading members that are
 * used are named; the rest is padding up to the C size. StructsTest checks sizes and offsets
 * against numbers derived from verbs.h and, when the headers are installed, against gcc.
 */
final class Structs {
    private Structs() {
    }

    /** union ibv_gid: 16 bytes, 8-aligned (its {@code global} member holds two __be64). */
    static final MemoryLayout GID = unionLayout(sequenceLayout(16, JAVA_BYTE).withName("raw"),
            structLayout(JAVA_LONG.withName("subnet_prefix"), JAVA_LONG.withName("interface_id")).withName("global"))
            .withName("ibv_gid");

    static final StructLayout DEVICE_ATTR = structLayout(
            sequenceLayout(64, JAVA_BYTE).withName("fw_ver"),
            JAVA_LONG.withName("node_guid"), JAVA_LONG.withName("sys_image_guid"),
            JAVA_LONG.withName("max_mr_size"), JAVA_LONG.withName("page_size_cap"),
            JAVA_INT.withName("vendor_id"), JAVA_INT.withName("vendor_part_id"), JAVA_INT.withName("hw_ver"),
            JAVA_INT.withName("max_qp"), JAVA_INT.withName("max_qp_wr"), JAVA_INT.withName("device_cap_flags"),
            JAVA_INT.withName("max_sge"), JAVA_INT.withName("max_sge_rd"), JAVA_INT.withName("max_cq"),
            JAVA_INT.withName("max_cqe"), JAVA_INT.withName("max_mr"), JAVA_INT.withName("max_pd"),
            JAVA_INT.withName("max_qp_rd_atom"), JAVA_INT.withName("max_ee_rd_atom"),
            JAVA_INT.withName("max_res_rd_atom"), JAVA_INT.withName("max_qp_init_rd_atom"),
            JAVA_INT.withName("max_ee_init_rd_atom"), JAVA_INT.withName("atomic_cap"), JAVA_INT.withName("max_ee"),
            JAVA_INT.withName("max_rdd"), JAVA_INT.withName("max_mw"), JAVA_INT.withName("max_raw_ipv6_qp"),
            JAVA_INT.withName("max_raw_ethy_qp"), JAVA_INT.withName("max_mcast_grp"),
            JAVA_INT.withName("max_mcast_qp_attach"), JAVA_INT.withName("max_total_mcast_qp_attach"),
            JAVA_INT.withName("max_ah"), JAVA_INT.withName("max_fmr"), JAVA_INT.withName("max_map_per_fmr"),
            JAVA_INT.withName("max_srq"), JAVA_INT.withName("max_srq_wr"), JAVA_INT.withName("max_srq_sge"),
            JAVA_SHORT.withName("max_pkeys"), JAVA_BYTE.withName("local_ca_ack_delay"),
            JAVA_BYTE.withName("phys_port_cnt"), paddingLayout(4)).withName("ibv_device_attr");

    /** struct ibv_gid_entry (IBVERBS_1.11, _ibv_query_gid_table). */
    static final StructLayout GID_ENTRY = structLayout(GID.withName("gid"), JAVA_INT.withName("gid_index"),
            JAVA_INT.withName("port_num"), JAVA_INT.withName("gid_type"), JAVA_INT.withName("ndev_ifindex"))
            .withName("ibv_gid_entry");

    /**
     * struct ibv_context: device pointer, then struct ibv_context_ops (27 function pointers up to
     * post_recv, then more we do not use), then cmd_fd etc.
     */
    static final StructLayout CONTEXT = structLayout(ADDRESS.withName("device"),
            sequenceLayout(11, ADDRESS).withName("ops_before_poll_cq"), ADDRESS.withName("poll_cq"),
            ADDRESS.withName("req_notify_cq"), sequenceLayout(7, ADDRESS).withName("ops_before_post_srq_recv"),
            ADDRESS.withName("post_srq_recv"), sequenceLayout(4, ADDRESS).withName("ops_before_post_send"),
            ADDRESS.withName("post_send"), ADDRESS.withName("post_recv")).withName("ibv_context_head");

    /** struct ibv_comp_channel. */
    static final StructLayout COMP_CHANNEL = structLayout(ADDRESS.withName("context"), JAVA_INT.withName("fd"),
            JAVA_INT.withName("refcnt")).withName("ibv_comp_channel");

    /** Leading members of struct ibv_cq. */
    static final StructLayout CQ_HEAD = structLayout(ADDRESS.withName("context"), ADDRESS.withName("channel"),
            ADDRESS.withName("cq_context"), JAVA_INT.withName("handle"), JAVA_INT.withName("cqe"))
            .withName("ibv_cq_head");

    /** Leading members of struct ibv_mr. */
    static final StructLayout MR = structLayout(ADDRESS.withName("context"), ADDRESS.withName("pd"),
            ADDRESS.withName("addr"), JAVA_LONG.withName("length"), JAVA_INT.withName("handle"),
            JAVA_INT.withName("lkey"), JAVA_INT.withName("rkey"), paddingLayout(4)).withName("ibv_mr");

    /** Leading members of struct ibv_qp. */
    static final StructLayout QP_HEAD = structLayout(ADDRESS.withName("context"), ADDRESS.withName("qp_context"),
            ADDRESS.withName("pd"), ADDRESS.withName("send_cq"), ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"), JAVA_INT.withName("handle"), JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("state"), JAVA_INT.withName("qp_type")).withName("ibv_qp_head");

    static final StructLayout QP_CAP = structLayout(JAVA_INT.withName("max_send_wr"),
            JAVA_INT.withName("max_recv_wr"), JAVA_INT.withName("max_send_sge"), JAVA_INT.withName("max_recv_sge"),
            JAVA_INT.withName("max_inline_data")).withName("ibv_qp_cap");

    static final StructLayout QP_INIT_ATTR = structLayout(ADDRESS.withName("qp_context"),
            ADDRESS.withName("send_cq"), ADDRESS.withName("recv_cq"), ADDRESS.withName("srq"),
            QP_CAP.withName("cap"), JAVA_INT.withName("qp_type"), JAVA_INT.withName("sq_sig_all"),
            paddingLayout(4)).withName("ibv_qp_init_attr");

    static final StructLayout SRQ_INIT_ATTR = structLayout(ADDRESS.withName("srq_context"),
            structLayout(JAVA_INT.withName("max_wr"), JAVA_INT.withName("max_sge"), JAVA_INT.withName("srq_limit"))
                    .withName("attr"), paddingLayout(4)).withName("ibv_srq_init_attr");

    static final StructLayout GLOBAL_ROUTE = structLayout(GID.withName("dgid"), JAVA_INT.withName("flow_label"),
            JAVA_BYTE.withName("sgid_index"), JAVA_BYTE.withName("hop_limit"), JAVA_BYTE.withName("traffic_class"),
            paddingLayout(1)).withName("ibv_global_route");

    static final StructLayout AH_ATTR = structLayout(GLOBAL_ROUTE.withName("grh"), JAVA_SHORT.withName("dlid"),
            JAVA_BYTE.withName("sl"), JAVA_BYTE.withName("src_path_bits"), JAVA_BYTE.withName("static_rate"),
            JAVA_BYTE.withName("is_global"), JAVA_BYTE.withName("port_num"), paddingLayout(1))
            .withName("ibv_ah_attr");

    static final StructLayout QP_ATTR = structLayout(JAVA_INT.withName("qp_state"),
            JAVA_INT.withName("cur_qp_state"), JAVA_INT.withName("path_mtu"), JAVA_INT.withName("path_mig_state"),
            JAVA_INT.withName("qkey"), JAVA_INT.withName("rq_psn"), JAVA_INT.withName("sq_psn"),
            JAVA_INT.withName("dest_qp_num"), JAVA_INT.withName("qp_access_flags"), QP_CAP.withName("cap"),
            AH_ATTR.withName("ah_attr"), AH_ATTR.withName("alt_ah_attr"), JAVA_SHORT.withName("pkey_index"),
            JAVA_SHORT.withName("alt_pkey_index"), JAVA_BYTE.withName("en_sqd_async_notify"),
            JAVA_BYTE.withName("sq_draining"), JAVA_BYTE.withName("max_rd_atomic"),
            JAVA_BYTE.withName("max_dest_rd_atomic"), JAVA_BYTE.withName("min_rnr_timer"),
            JAVA_BYTE.withName("port_num"), JAVA_BYTE.withName("timeout"), JAVA_BYTE.withName("retry_cnt"),
            JAVA_BYTE.withName("rnr_retry"), JAVA_BYTE.withName("alt_port_num"), JAVA_BYTE.withName("alt_timeout"),
            paddingLayout(1), JAVA_INT.withName("rate_limit"), paddingLayout(4)).withName("ibv_qp_attr");

    static final StructLayout SGE = structLayout(JAVA_LONG.withName("addr"), JAVA_INT.withName("length"),
            JAVA_INT.withName("lkey")).withName("ibv_sge");

    static final StructLayout RECV_WR = structLayout(JAVA_LONG.withName("wr_id"), ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"), JAVA_INT.withName("num_sge"), paddingLayout(4)).withName("ibv_recv_wr");

    /**
     * struct ibv_send_wr: the {@code wr} union is 32 bytes (its largest member is {@code atomic}),
     * {@code qp_type} 4 (+4 padding), the last union 48 ({@code bind_mw}).
     */
    static final StructLayout SEND_WR = structLayout(JAVA_LONG.withName("wr_id"), ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"), JAVA_INT.withName("num_sge"), JAVA_INT.withName("opcode"),
            JAVA_INT.withName("send_flags"), JAVA_INT.withName("imm_data"),
            unionLayout(structLayout(JAVA_LONG.withName("remote_addr"), JAVA_INT.withName("rkey"),
                    paddingLayout(4)).withName("rdma"), sequenceLayout(4, JAVA_LONG).withName("atomic"))
                    .withName("wr"),
            JAVA_INT.withName("remote_srqn"), paddingLayout(4), sequenceLayout(6, JAVA_LONG).withName("bind_mw_or_tso"))
            .withName("ibv_send_wr");

    static final StructLayout WC = structLayout(JAVA_LONG.withName("wr_id"), JAVA_INT.withName("status"),
            JAVA_INT.withName("opcode"), JAVA_INT.withName("vendor_err"), JAVA_INT.withName("byte_len"),
            JAVA_INT.withName("imm_data"), JAVA_INT.withName("qp_num"), JAVA_INT.withName("src_qp"),
            JAVA_INT.withName("wc_flags"), JAVA_SHORT.withName("pkey_index"), JAVA_SHORT.withName("slid"),
            JAVA_BYTE.withName("sl"), JAVA_BYTE.withName("dlid_path_bits"), paddingLayout(2))
            .withName("ibv_wc");

    /** struct pollfd of poll(2). */
    static final StructLayout POLLFD = structLayout(JAVA_INT.withName("fd"), JAVA_SHORT.withName("events"),
            JAVA_SHORT.withName("revents")).withName("pollfd");

    static long offset(MemoryLayout layout, String... path) {
        PathElement[] elements = new PathElement[path.length];
        for (int i = 0; i < path.length; i++) {
            elements[i] = PathElement.groupElement(path[i]);
        }
        return layout.byteOffset(elements);
    }
}
