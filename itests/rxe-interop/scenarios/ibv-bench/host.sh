# Host part of ibv-bench: `virtuoso bench` servers on the soft RNIC (UDP wire on the tap's first two
# addresses, port 4791), one after the other for the guest's three client runs (write, send,
# latency), each following the client's HELLO. Run on Java 19+ (peer-java.sh: IPv4 DF and ID 0,
# which rxe's ICRC check needs), with checkSourcePort off (rxe picks UDP source ports per flow:
# otherwise DROP_BAD_SOURCE) and the guest's stall allowances (guest.sh). Each server must end
# with status 0.
# shellcheck source=../../peer-java.sh
source "$RXE_ITEST_DIR/peer-java.sh"
bench_pid="" cap_pid=""

host_start() {
    local java repo
    java="$(peer_java_find)" || return 1
    repo="$(cd "$RXE_ITEST_DIR/../.." && pwd)"
    [ -f "$repo/launcher/target/virtuoso-launcher.jar" ] || { echo "   no launcher: build it (mvn -B verify)"; return 1; }
    echo "   host bench servers: $java ($("$java" -version 2>&1 | head -1))"
    host_spawn "$1.host.log" env VIRTUOSO_NO_BUILD=1 VIRTUOSO_JAVA="$java" bash -c '
        for run in write send lat; do
            echo "== server for $run"
            "$0/virtuoso" -v --config dev.virtuoso.qpmanager:livenessMillis=30000 \
                --config dev.virtuoso.verbs.soft:checkSourcePort=false bench -P soft --vnics "$RXE_HOST_IP,$RXE_HOST_IP2" -q 2 --udp-port 4791 --ack-timeout 23 --failover-timeout 60 \
                --bind "$RXE_HOST_IP" --wait '"$(( $(cat "$RXE_ITEST_DIR/scenarios/ibv-bench/qemu-timeout") - 30 ))"' \
                || { echo "SERVER-EXIT $run $?"; exit 1; }
            echo "SERVER-DONE $run"
        done' "$repo"
    bench_pid="${host_pids[${#host_pids[@]}-1]}"
    # RoCEv2 headers only: when a run fails, the capture shows which side stopped answering
    if command -v tshark >/dev/null; then
        host_spawn "$1.tshark.log" tshark -i tap0 -s 96 -f 'udp port 4791' -w "$1.pcap"
        cap_pid="${host_pids[${#host_pids[@]}-1]}"
    fi
}

host_check() { # host_check PREFIX CONSOLE_LOG
    local log="$1.host.log" i rc=0
    for i in $(seq 1 30); do kill -0 "$bench_pid" 2>/dev/null || break; sleep 0.5; done
    kill "$bench_pid" 2>/dev/null && echo "   host bench servers still running after the guest finished: stopped"
    wait "$bench_pid" || rc=$?
    if [ -n "$cap_pid" ]; then sleep 1; kill -INT "$cap_pid" 2>/dev/null; sleep 2; fi
    grep -aE '^SERVER-|^ served ' "$log" | sed 's/^/   host: /'
    grep -aE '^BENCH [a-z]+: +(65536|8) +200 |^RXE-LOG bench' "$2" | tr -d '\r' | sed 's/^/   guest: /'
    [ "$rc" = 0 ] || { echo "   host bench servers exited $rc"; return 1; }
    [ "$(grep -ac '^SERVER-DONE' "$log")" = 3 ] || { echo "   not all three servers ended with status 0"; return 1; }
}
