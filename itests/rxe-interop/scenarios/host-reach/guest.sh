# The guest's rxe is reachable from the host namespace: ICMP both ways, then RoCEv2 on UDP 4791 from
# rxe itself (rping's rdma_cm sends CM REQ MADs over QP1 to the host; nobody answers them, so rping
# gives up). The host side captures the frames (host.sh) and checks their framing.
rxe_setup "$RXE_LINK_MTU" "$RXE_GUEST_IP/24" || finish
ping -c 3 -W 2 "$RXE_HOST_IP" | sed 's/^/RXE-LOG /' || fail "ping $RXE_HOST_IP"
timeout 20 rping -c -a "$RXE_HOST_IP" -C 1 -v 2>&1 | sed 's/^/RXE-LOG rping: /'
sent=$(rxe_counter sent_pkts)
say "rxe sent_pkts $sent"
[ "${sent:-0}" -gt 0 ] || fail "rxe sent no packet towards the host"
