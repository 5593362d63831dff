# Host part of host-reach: capture the link while the guest runs, then check that RoCEv2 frames from
# the guest's rxe arrived on UDP 4791 and print one decoded (the IPv4 ID/flags rxe uses matter for
# the ICRC). Needs tshark; without it only the guest's own checks count.
host_start() {
    if ! command -v tshark >/dev/null; then echo "   (no tshark: host capture skipped)"; return; fi
    host_spawn "$1.tshark.log" tshark -i tap0 -f 'udp port 4791 or icmp' -w "$1.pcap"
    sleep 3
}
host_check() {
    command -v tshark >/dev/null || return 0
    local pcap="$1.pcap" n
    sleep 1
    n=$(tshark -r "$pcap" -Y 'udp.dstport == 4791 && ip.src == '"$RXE_GUEST_IP" 2>/dev/null | wc -l)
    echo "   host captured $n RoCEv2 frames from the guest"
    tshark -r "$pcap" -Y 'udp.dstport == 4791' -T fields -e ip.id -e ip.flags.df -e ip.ttl -e udp.srcport \
        -e udp.checksum -e infiniband.bth.opcode -e infiniband.bth.destqp 2>/dev/null | head -5 | sed 's/^/   frame: /'
    tshark -r "$pcap" -Y 'udp.dstport == 4791' -c 1 -x 2>/dev/null | sed 's/^/   /' >"$1.frame.txt"
    [ "$n" -gt 0 ]
}
