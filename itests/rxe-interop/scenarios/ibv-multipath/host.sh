# Host part of ibv-multipath: MpPeer on the soft RNIC (UDP wire on the tap's four addresses, port
# 4791) runs the whole plan against the guest's MpPeer on verbs-ibv; afterwards its own checks (the
# data it received, the completions it saw) must all have passed.
# shellcheck source=../../peer-java.sh
source "$RXE_ITEST_DIR/peer-java.sh"
mp_pid=""

host_start() {
    local target="$RXE_ITEST_DIR/target" java
    java="$(peer_java_find)" || return 1
    echo "   host MpPeer: $java ($("$java" -version 2>&1 | head -1))"
    host_spawn "$1.host.log" "$java" -cp "$target/classes:$(cat "$target/peer.classpath")" \
        dev.virtuoso.itests.rxe.MpPeer --side host --provider soft --device soft0 --plan "$plan" \
        --size "$RXE_MP_SIZE" --wait-seconds "$(( $(cat "$RXE_ITEST_DIR/scenarios/ibv-multipath/qemu-timeout") - 60 ))" --local-ips "$RXE_HOST_IP,$RXE_HOST_IP2,$RXE_HOST_IP3,$RXE_HOST_IP4" \
        --remote-ips "$RXE_GUEST_IP,$RXE_GUEST_IP2,$RXE_GUEST_IP3,$RXE_GUEST_IP4"
    mp_pid="${host_pids[${#host_pids[@]}-1]}"
}

host_check() { # host_check PREFIX CONSOLE_LOG
    local log="$1.host.log" i rc=0 ok=0
    for i in $(seq 1 60); do kill -0 "$mp_pid" 2>/dev/null || break; sleep 0.5; done
    kill "$mp_pid" 2>/dev/null && echo "   host MpPeer still running after the guest finished: stopped"
    wait "$mp_pid" || rc=$?
    grep -aE '^MP-(CASE|RATE|RESULT|FAIL)|^MP-CHECK .* FAIL$' "$log" | sed 's/^/   host: /'
    grep -aE '^MP-(CASE|RATE|RESULT|FAIL)|^MP-CHECK .* FAIL$' "$2" | tr -d '\r' | sed 's/^/   guest: /'
    [ "$rc" = 0 ] || { echo "   host MpPeer exited $rc"; ok=1; }
    grep -aq '^MP-RESULT pass' "$log" || ok=1
    return $ok
}
