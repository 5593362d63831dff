# Guest-side helpers for the rxe interop scenarios (sourced by each scenario's guest.sh, bash).
# Output lines starting with "RXE-" are read by the host (run-scenario.sh); everything else is log.

RXE_DEV=rxe0
RXE_NETDEV=eth0
RXE_FAILED=0

say() { echo "RXE-LOG $*"; }

# Records a failed check; the scenario exits non-zero at the end.
fail() {
    echo "RXE-FAIL $*"
    RXE_FAILED=1
}

# Brings up loopback and the virtio NIC with the given MTU and IPv4 addresses (CIDR), loads rxe on
# it and waits until one RoCEv2 GID per address is there (index 1, 2, ...: ::ffff:<IPv4>).
# Bookworm's 6.1 kernel: crc32_generic must be loaded by hand and rxe lives in the initial netns.
rxe_setup() {
    local mtu="$1"; shift
    ip link set lo up
    modprobe virtio_net
    local i=0
    while [ ! -e "/sys/class/net/$RXE_NETDEV" ]; do
        i=$((i + 1)); [ "$i" -gt 50 ] && { fail "no $RXE_NETDEV"; return 1; }
        sleep 0.1
    done
    ip link set "$RXE_NETDEV" mtu "$mtu" txqueuelen 10000 up
    # Debian's default qdisc is fq_codel: under emulation the virtio queue drains slowly, CoDel's
    # 5 ms target is exceeded in bursts and it drops rxe's packets (rxe counts them as sent; the
    # peers then see gaps and retransmit). A plain FIFO keeps the link lossless.
    tc qdisc replace dev "$RXE_NETDEV" root pfifo limit 10000
    local addr
    for addr in "$@"; do ip addr add "$addr" dev "$RXE_NETDEV"; done
    modprobe crc32_generic
    modprobe rdma_rxe
    modprobe rdma_ucm
    modprobe ib_uverbs
    rdma link add "$RXE_DEV" type rxe netdev "$RXE_NETDEV" || { fail "rdma link add"; return 1; }
    local want=$(( $# + 1 )) n
    i=0
    while :; do
        n=$(grep -c '^0000:0000:0000:0000:0000:ffff:' "/sys/class/infiniband/$RXE_DEV/ports/1/gids/"* 2>/dev/null | awk -F: '$2 > 0' | wc -l)
        [ $((n + 1)) -ge "$want" ] && break
        i=$((i + 1)); [ "$i" -gt 100 ] && { fail "GIDs did not appear"; return 1; }
        sleep 0.1
    done
    say "rxe up: $(ibv_devinfo -d "$RXE_DEV" | grep -E 'state|active_mtu' | tr -s ' \t' ' ' | tr '\n' ';')"
    local g
    for g in 0 1 2 3; do
        [ -r "/sys/class/infiniband/$RXE_DEV/ports/1/gids/$g" ] || continue
        say "gid[$g] $(cat "/sys/class/infiniband/$RXE_DEV/ports/1/gids/$g")"
    done
}

# rxe's counters as "name value" lines ("rdma statistic" prints "link rxe0/1 sent_pkts 12 ...").
rxe_counter_pairs() {
    set -- $(rdma statistic show link "$RXE_DEV/1")
    shift 2
    while [ $# -ge 2 ]; do
        echo "$1 $2"
        shift 2
    done
}

# The counters rxe raises on retransmission, sequence errors, RNR and send failures: a clean
# interop run leaves them all at 0.
RXE_ERROR_COUNTERS="duplicate_request out_of_seq_request rcvd_seq_err retry_exceeded_err retry_rnr_exceeded_err completer_retry_err send_err link_downed rcvd_rnr_err send_rnr_err"
is_error_counter() { case " $RXE_ERROR_COUNTERS " in *" $1 "*) return 0;; esac; return 1; }

# Prints rxe's counters as "RXE-COUNTER tag name value" lines and checks the error ones.
rxe_counters() {
    local tag="$1" name value
    rxe_counter_pairs >/tmp/counters.txt || { fail "rdma statistic"; return 1; }
    while read -r name value; do
        echo "RXE-COUNTER $tag $name $value"
        if is_error_counter "$name" && [ "$value" != 0 ]; then
            fail "rxe counter $name = $value (want 0)"
        fi
    done </tmp/counters.txt
}

# Value of one rxe counter.
rxe_counter() {
    rxe_counter_pairs | awk -v n="$1" '$1 == n { print $2 }'
}

# Kernel messages rxe logs when it drops a packet (bad ICRC and friends) fail the scenario.
check_kernel_log() {
    if dmesg | grep -iE 'rxe|rdma|icrc' | grep -viE 'loaded|added|registered|set active' >/tmp/klog.txt; then
        sed 's/^/RXE-LOG kernel: /' /tmp/klog.txt
    fi
    if grep -qiE 'icrc|bad|drop|warn|error' /tmp/klog.txt 2>/dev/null; then
        fail "rxe logged problems (see kernel lines above)"
    fi
}

# SHA-256 of bytes [offset, offset+length) of a file.
sha_of() {
    local file="$1" offset="$2" length="$3"
    tail -c +"$((offset + 1))" "$file" | head -c "$length" | sha256sum | cut -d' ' -f1
}

finish() {
    check_kernel_log
    # Where packets can get lost in the guest: the NIC's queues and the UDP/IP stack.
    { ip -s link show "$RXE_NETDEV"; tc -s qdisc show dev "$RXE_NETDEV"; nstat -asz 2>/dev/null | grep -E '^Udp|^Ip(InDiscards|OutDiscards|ExtInNoRoutes)'; } \
        2>&1 | sed 's/^/RXE-NET /'
    if [ "$RXE_FAILED" = 0 ]; then
        echo "RXE-RESULT pass"
        exit 0
    fi
    echo "RXE-RESULT fail"
    exit 1
}

# Mounts the Java disk (third virtio disk, made by guest/java-disk.sh) at /opt/virtuoso and sets
# GUEST_JAVA (its JDK 22+ runtime with the options every run here needs) and GUEST_CP. Under TCG
# emulation C1 alone warms up fastest, and one GC thread is enough.
java_setup() {
    mkdir -p /opt/virtuoso
    mount -o ro -t ext4 /dev/vdc /opt/virtuoso || { fail "cannot mount the Java disk /dev/vdc"; return 1; }
    # memory registration pins pages: no RLIMIT_MEMLOCK cap (root has CAP_IPC_LOCK anyway)
    ulimit -l unlimited
    GUEST_JAVA=(/opt/virtuoso/jre/bin/java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx320m
        --enable-native-access=ALL-UNNAMED)
    GUEST_CP="/opt/virtuoso/classes:/opt/virtuoso/ibv-test-classes:/opt/virtuoso/lib/*"
    say "java: $("${GUEST_JAVA[0]}" -version 2>&1 | head -1)"
}
