# The multipath core on verbs-ibv over rxe (guest) against the core on the soft RNIC (host, UDP
# wire, host.sh), both MpPeer, the plan in ./plan: 1, 2 and 4 paths, the guest as client and as
# server, MP_WRITE/MP_READ/MP_SEND byte-verified by the side that receives, then two failover cases
# (the guest removes one path's address mid-transfer). rxe's error counters must not move during
# the first six cases; during the failover cases only those a vanished path explains may.
rxe_setup "$RXE_LINK_MTU" "$RXE_GUEST_IP/24" "$RXE_GUEST_IP2/24" "$RXE_GUEST_IP3/24" "$RXE_GUEST_IP4/24" || finish
java_setup || finish
ncases=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' ./plan | wc -l)

# mp_run FIRST-LAST TAG: runs those plan lines; prints rxe's counter changes as RXE-COUNTER TAG name delta
mp_run() {
    local rc=0 t0
    rxe_counter_pairs >/tmp/c.before
    t0=$(date +%s)
    timeout 420 "${GUEST_JAVA[@]}" -cp "$GUEST_CP" dev.virtuoso.itests.rxe.MpPeer --side guest --provider ibv \
        --device "$RXE_DEV" --netdev "$RXE_NETDEV" --plan ./plan --cases "$1" --size "$RXE_MP_SIZE" \
        --local-ips "$RXE_GUEST_IP,$RXE_GUEST_IP2,$RXE_GUEST_IP3,$RXE_GUEST_IP4" \
        --remote-ips "$RXE_HOST_IP,$RXE_HOST_IP2,$RXE_HOST_IP3,$RXE_HOST_IP4" 2>&1 | tee "/tmp/mp-$2.out"
    # live on the console, so a run stopped from outside still shows how far it got (MP-STALL dumps)
    rc=${PIPESTATUS[0]}
    say "MpPeer cases $1: exit $rc after $(( $(date +%s) - t0 )) s"
    [ "$rc" = 0 ] || fail "MpPeer (guest, cases $1) failed: exit $rc"
    rxe_counter_pairs >/tmp/c.after
    awk 'NR == FNR { a[$1] = $2; next } { print $1, $2 - a[$1] }' /tmp/c.before /tmp/c.after >"/tmp/c.$2"
    sed "s/^/RXE-COUNTER $2 /" "/tmp/c.$2"
}

mp_run "1-6" paths
while read -r name d; do
    if is_error_counter "$name" && [ "$d" != 0 ]; then fail "rxe counter $name rose by $d during cases 1-6 (want 0)"; fi
done </tmp/c.paths
mp_run "7-$ncases" failover
# A vanished path: its QPs' retries run out (retry_exceeded_err, completer_retry_err) and, once the
# address is back, late packets of the old QPs may be seen as duplicates or out of sequence. Nothing
# else may move.
while read -r name d; do
    case "$name" in retry_exceeded_err|completer_retry_err|duplicate_request|out_of_seq_request|rcvd_seq_err) continue;; esac
    if is_error_counter "$name" && [ "$d" != 0 ]; then fail "rxe counter $name rose by $d during the failover cases (want 0)"; fi
done </tmp/c.failover
