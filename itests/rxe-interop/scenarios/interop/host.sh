# Host part of the interop scenario: the soft-RNIC perftest peer (Java, UDP wire on the
# tap's addresses) runs the same plan as the guest; afterwards both sides' reports are compared:
#   - every RXE-DATA <label> sha (guest) equals PEER-DATA <label> sha (peer): the data arrived intact;
#   - per case, rxe's rcvd_pkts delta equals the packets the peer sent, and rxe's sent_pkts delta the
#     packets the peer received: rxe accepted every packet we sent (ICRC included) and we saw all of
#     rxe's;
#   - the peer reports no error completion and no NAK/retry/drop counter.
peer_pid=""

# The peer needs Java 19+ (peer-java.sh): RXE_PEER_JAVA, else the newest JDK found; never a silent
# fallback to an older `java`.
# shellcheck source=../../peer-java.sh
source "$RXE_ITEST_DIR/peer-java.sh"
# RXE_NEGATIVE_CONTROL_JAVA: scenarios/icrc-negative's deliberate Java 17 peer.
peer_java() {
    if [ -n "${RXE_NEGATIVE_CONTROL_JAVA:-}" ]; then echo "$RXE_NEGATIVE_CONTROL_JAVA"; return 0; fi
    peer_java_find
}

host_start() {
    local target="$RXE_ITEST_DIR/target"
    if [ ! -f "$target/peer.classpath" ] || [ ! -d "$target/classes/dev" ]; then
        echo "   the peer is not built: mvn -pl itests/rxe-interop install"
        return 1
    fi
    local java; java="$(peer_java)" || return 1
    echo "   peer: $java ($("$java" -version 2>&1 | head -1))"
    # RXE_PEER_CLASSPATH_PREFIX: classes to put first (e.g. a soft RNIC being worked on).
    host_spawn "$1.peer.log" "$java" -cp "${RXE_PEER_CLASSPATH_PREFIX:+$RXE_PEER_CLASSPATH_PREFIX:}$target/classes:$(cat "$target/peer.classpath")" \
        dev.virtuoso.itests.rxe.PerftestPeer --plan "$plan" \
        --host-ips "$RXE_HOST_IP,$RXE_HOST_IP2,$RXE_HOST_IP3" --guest-ips "$RXE_GUEST_IP,$RXE_GUEST_IP2" \
        --size "$RXE_SIZE" --iters "$RXE_ITERS" --ack-timeout "${RXE_PEER_ACK_TIMEOUT:-23}"
    peer_pid="${host_pids[${#host_pids[@]}-1]}"
}

host_check() { # host_check PREFIX CONSOLE_LOG
    local peerlog="$1.peer.log" console="$2" i rc=0 ok=0
    for i in $(seq 1 120); do kill -0 "$peer_pid" 2>/dev/null || break; sleep 0.5; done
    kill "$peer_pid" 2>/dev/null && echo "   peer still running after the guest finished: stopped"
    wait "$peer_pid" || rc=$?
    grep -E '^PEER-(FAIL|CASE)' "$peerlog" | sed 's/^/   /'
    [ "$rc" = 0 ] || { echo "   peer exited $rc"; ok=1; }
    tr -d '\r' <"$console" >"$1.console.txt"
    awk '
        FNR == NR && $1 == "RXE-DATA" { guest[$2] = $3; next }
        FNR == NR && $1 == "RXE-PKTS" { rcvd[$2] = $4; sent[$2] = $6; next }
        FNR == NR { next }
        $1 == "PEER-DATA" { peer[$2] = $3; order[++n] = $2 }
        $1 == "PEER-PKTS" { tx[$2] = $4; rx[$2] = $6; porder[++m] = $2 }
        END {
            bad = 0
            for (i = 1; i <= n; i++) {
                l = order[i]
                if (!(l in guest)) { printf "   %-34s data: guest printed no digest\n", l; bad = 1 }
                else if (guest[l] != peer[l]) { printf "   %-34s data DIFFERS: guest %s peer %s\n", l, guest[l], peer[l]; bad = 1 }
                else printf "   %-34s data equal (sha256 %s)\n", l, substr(peer[l], 1, 16)
            }
            for (l in guest) if (!(l in peer)) { printf "   %-34s data: peer printed no digest\n", l; bad = 1 }
            for (i = 1; i <= m; i++) {
                l = porder[i]
                if (!(l in rcvd)) { printf "   %-34s packets: guest printed no counters\n", l; bad = 1; continue }
                v = (rcvd[l] == tx[l] && sent[l] == rx[l]) ? "match" : "MISMATCH"
                if (v != "match") bad = 1
                printf "   %-34s packets %s: peer sent %d, rxe accepted %d; rxe sent %d, peer received %d\n", l, v, tx[l], rcvd[l], sent[l], rx[l]
            }
            exit bad
        }' "$1.console.txt" "$peerlog" || ok=1
    return $ok
}
