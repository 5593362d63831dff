# Host part of ibv-multipath: MpPeer on the soft RNIC (UDP wire on the tap's four addresses, port
# 4791) runs the whole plan against the guest's MpPeer on verbs-ibv; afterwards its own checks (the
# data it received, the completions it saw) must all have passed.
# shellcheck source=../../peer-java.sh
source "$RXE_ITEST_DIR/peer-java.sh"
mp_pid="" cap_pid=""

host_start() {
    local target="$RXE_ITEST_DIR/target" java
    java="$(peer_java_find)" || return 1
    echo "   host MpPeer: $java ($("$java" -version 2>&1 | head -1))"
    host_spawn "$1.host.log" "$java" -cp "$target/classes:$(cat "$target/peer.classpath")" \
        dev.virtuoso.itests.rxe.MpPeer --side host --provider soft --device soft0 --plan "$plan" \
        --size "$RXE_MP_SIZE" --wait-seconds "$(( $(cat "$RXE_ITEST_DIR/scenarios/ibv-multipath/qemu-timeout") - 60 ))" --local-ips "$RXE_HOST_IP,$RXE_HOST_IP2,$RXE_HOST_IP3,$RXE_HOST_IP4" \
        --remote-ips "$RXE_GUEST_IP,$RXE_GUEST_IP2,$RXE_GUEST_IP3,$RXE_GUEST_IP4"
    mp_pid="${host_pids[${#host_pids[@]}-1]}"
    # Headers only (BTH, AETH): when a check fails, the NAKs say which QP and request caused them.
    if command -v tshark >/dev/null; then
        host_spawn "$1.tshark.log" tshark -i tap0 -s 96 -f 'udp port 4791' -w "$1.pcap"
        cap_pid="${host_pids[${#host_pids[@]}-1]}"
    else
        echo "   (no tshark: no RoCEv2 header capture, NAK summary skipped)"
    fi
}

# nak_summary PCAP: every NAK and RNR NAK on the link with the request it answers (same QP pair, PSN)
nak_summary() {
    [ -f "$1" ] || return 0
    local f=infiniband.aeth.syndrome.opcode kind
    for kind in 1 3; do # RNR NAKs first, then the others (PSN sequence error, invalid request, ...)
        tshark -r "$1" -Y "$f == $kind" -T fields -e frame.time_relative -e ip.src -e ip.dst \
            -e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.aeth.syndrome.error_code 2>/dev/null |
        head -20 | while read -r t src dst qp psn code; do
            req=$(tshark -r "$1" -Y "ip.src == $dst && ip.dst == $src && infiniband.bth.psn == $psn" -T fields \
                -e frame.time_relative -e infiniband.bth.opcode -e infiniband.bth.destqp 2>/dev/null | head -3 | tr '\n' ' ')
            echo "   NAK-SEEN t=$t $src->$dst to-qp $qp psn $psn $([ "$kind" = 1 ] && echo RNR-NAK || echo "NAK code $code") answers: $req"
        done
    done
}

host_check() { # host_check PREFIX CONSOLE_LOG
    local log="$1.host.log" i rc=0 ok=0
    for i in $(seq 1 60); do kill -0 "$mp_pid" 2>/dev/null || break; sleep 0.5; done
    kill "$mp_pid" 2>/dev/null && echo "   host MpPeer still running after the guest finished: stopped"
    wait "$mp_pid" || rc=$?
    if [ -n "$cap_pid" ]; then sleep 1; kill -INT "$cap_pid" 2>/dev/null; sleep 2; nak_summary "$1.pcap"; fi
    grep -aE '^MP-(CASE|RATE|RESULT|FAIL)|^MP-CHECK .* FAIL$' "$log" | sed 's/^/   host: /'
    grep -aE '^MP-(CASE|RATE|RESULT|FAIL)|^MP-CHECK .* FAIL$' "$2" | tr -d '\r' | sed 's/^/   guest: /'
    [ "$rc" = 0 ] || { echo "   host MpPeer exited $rc"; ok=1; }
    grep -aq '^MP-RESULT pass' "$log" || ok=1
    return $ok
}
