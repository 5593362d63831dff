# Negative control for the ICRC proof: the peer runs on Java 17, which cannot set IP_DONTFRAGMENT,
# so the kernel gives its datagrams varying IPv4 IDs while the soft RNIC computes the ICRC for ID 0.
# rxe must drop every one of them silently: rcvd_pkts stays at 0 and the case fails. This shows that
# "rxe accepted n of n" in the interop scenario is a real check of the ICRC.
source ./perftest-cases.sh
rxe_setup "$RXE_LINK_MTU" "$RXE_GUEST_IP/24" "$RXE_GUEST_IP2/24" || finish
run_perftest_case write guest-server 1 >/tmp/negative.out
sed 's/^RXE-FAIL /RXE-LOG expected: /' /tmp/negative.out
RXE_FAILED=0 # the failures above are the expected outcome; only the checks below count
rcvd=$(awk '$1 == "RXE-PKTS" { print $4 }' /tmp/negative.out)
say "rxe accepted $rcvd packets from the peer with wrong ICRCs"
[ "$rcvd" = 0 ] || fail "rxe accepted $rcvd packets whose ICRC should be wrong"
grep -q '^RXE-FAIL .*ib_write_bw on path 0 failed' /tmp/negative.out || fail "perftest did not fail"
