# The operator's tool on a real verbs stack: `virtuoso bench -P ibv` (the launcher, its OSGi
# framework and bundles, verbs-ibv on rxe0) in the guest as the client, against `virtuoso bench` on
# the soft RNIC in the host (host.sh), over two paths: MP_WRITE and MP_SEND bandwidth, then the
# MP_SEND latency test. Each run must end with status 0 and print its result row; rxe's error
# counters must not move.
rxe_setup "$RXE_LINK_MTU" "$RXE_GUEST_IP/24" "$RXE_GUEST_IP2/24" || finish
java_setup || finish
launcher=/opt/virtuoso/launcher/virtuoso-launcher.jar
[ -f "$launcher" ] || { fail "no launcher on the Java disk: build it first (mvn -B verify)"; finish; }

# bench_run TAG ROW-REGEX ARGS...: one client run; the host starts its next server once the last
# one ended, so a refused connection is tried again (up to 10 times, 3 s apart)
bench_run() {
    local tag="$1" row="$2" rc=0 try t0
    shift 2
    t0=$(date +%s)
    for try in 1 2 3 4 5 6 7 8 9 10; do
        rc=0
        # as MpPeer: under emulation a stall must not look like loss (--ack-timeout 23: 34 s) or like
        # a peer gone (30 s of control-channel silence instead of 10)
        timeout 300 "${GUEST_JAVA[@]}" -Djava.awt.headless=true -jar "$launcher" -v \
            --config dev.virtuoso.qpmanager:livenessMillis=30000 bench -P ibv -d "$RXE_DEV" \
            --vnics "$RXE_GUEST_IP,$RXE_GUEST_IP2" -q 2 --ack-timeout 23 --failover-timeout 60 --json-file "/tmp/$tag.json" "$@" "$RXE_HOST_IP" \
            >"/tmp/bench-$tag.out" 2>&1 || rc=$?
        grep -q 'Connection refused' "/tmp/bench-$tag.out" || break
        sleep 3
    done
    sed "s/^/BENCH $tag: /" "/tmp/bench-$tag.out"
    say "bench $tag: exit $rc after $(( $(date +%s) - t0 )) s (tries: $try)"
    [ "$rc" = 0 ] || { fail "bench $tag (guest, provider ibv) exited $rc"; return; }
    grep -Eq "$row" "/tmp/bench-$tag.out" || fail "bench $tag: no result row matching '$row'"
    grep -q '"provider": "ibv"' "/tmp/$tag.json" || fail "bench $tag: the JSON does not name provider ibv"
}

rxe_counter_pairs >/tmp/c.before
# after a failed run the host's server for it has ended too: the next runs are not tried
bench_run write '^ 65536 +200 +[0-9.]+ +[0-9.]+ ' --op write -s 65536 -n 200
[ "$RXE_FAILED" = 0 ] && bench_run send '^ 65536 +200 +[0-9.]+ +[0-9.]+ ' --op send -s 65536 -n 200
[ "$RXE_FAILED" = 0 ] && bench_run lat '^ 8 +200 +[0-9.]+ +[0-9.]+ +[0-9.]+ ' --lat -s 8 -n 200
rxe_counter_pairs >/tmp/c.after
awk 'NR == FNR { a[$1] = $2; next } { print $1, $2 - a[$1] }' /tmp/c.before /tmp/c.after >/tmp/c.delta
sed 's/^/RXE-COUNTER bench /' /tmp/c.delta
while read -r name d; do
    if is_error_counter "$name" && [ "$d" != 0 ]; then fail "rxe counter $name rose by $d during the bench runs (want 0)"; fi
done </tmp/c.delta
