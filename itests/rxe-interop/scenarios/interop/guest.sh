# perftest (ib_write_bw, ib_read_bw, ib_send_bw; no -R) in the guest against the soft-RNIC peer
# running in the host namespace (host.sh), following the plan file; see perftest-cases.sh.
source ./perftest-cases.sh
rxe_setup "$RXE_LINK_MTU" "$RXE_GUEST_IP/24" "$RXE_GUEST_IP2/24" || finish
run_plan ./plan
rxe_counters total
