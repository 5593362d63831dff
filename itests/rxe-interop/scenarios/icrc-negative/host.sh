# Host part of the negative control: the interop peer on Java 17 (no IP_DONTFRAGMENT), one WRITE
# case with few messages; it must end with RETRY_EXC_ERR having sent packets rxe never accepted.
source "$RXE_ITEST_DIR/scenarios/interop/host.sh"
eval "$(declare -f host_start | sed '1s/^host_start/interop_host_start/')"
host_start() {
    local j17=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
    [ -x "$j17" ] || j17=java
    if "$j17" -version 2>&1 | grep -q 'version "17'; then :; else
        echo "   no Java 17 for the negative control"; return 1
    fi
    # 4 messages; ACK timeout 2^14 x 4 us = 67 ms, so the 7 retries are over in about half a second.
    RXE_NEGATIVE_CONTROL_JAVA="$j17" RXE_ITERS=4 RXE_PEER_ACK_TIMEOUT=14 interop_host_start "$@"
}
host_check() { # host_check PREFIX CONSOLE_LOG
    local peerlog="$1.peer.log" i
    for i in $(seq 1 120); do kill -0 "$peer_pid" 2>/dev/null || break; sleep 0.5; done
    kill "$peer_pid" 2>/dev/null || true
    wait "$peer_pid" || true
    grep -E '^PEER-(LOG java|FAIL|PKTS)' "$peerlog" | sed 's/^PEER-FAIL /PEER-FAIL (expected) /; s/^/   /'
    local tx; tx=$(awk '$1 == "PEER-PKTS" { print $4 }' "$peerlog")
    if grep -q 'RETRY_EXC_ERR' "$peerlog" && [ "${tx:-0}" -gt 0 ]; then
        echo "   as expected: the peer sent $tx packets, rxe accepted none, the WRITE ended in RETRY_EXC_ERR"
        return 0
    fi
    echo "   UNEXPECTED: the peer did not end in RETRY_EXC_ERR after sending packets"
    return 1
}
