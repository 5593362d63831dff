# Guest side of the perftest interop cases (sourced by scenario guest.sh files, after lib.sh).
# Each plan line "<verb> <guest-server|guest-client> <paths>" runs one ib_<verb>_bw per path, with
# its buffer an mmap'd tmpfs file (--mmap) so the data can be hashed afterwards, and prints:
#   RXE-DATA <label>-p<i> <sha256>   the bytes that moved on path i, as this side sees them
#   RXE-PKTS <label> rcvd <n> sent <n>   RoCEv2 packets rxe accepted / sent during the case
# The host compares both with the soft-RNIC peer's PEER-DATA / PEER-PKTS lines.

# perftest buffer layout for one QP and a message of at least a page (perftest_resources.c
# create_single_mr / perftest_communication.c set_up_connection): the local send/READ-target half
# is [0, size), the region offered to the peer (WRITE target, READ source, receive buffer) starts
# at size.
perftest_region() { # perftest_region guest-server|guest-client -> offset of the bytes that moved
    if [ "$1" = guest-server ]; then echo "$RXE_SIZE"; else echo 0; fi
}

# Address of our (host) vNIC for a path.
host_ip_of_path() { # host_ip_of_path PATHS PATH
    if [ "$1" = 1 ]; then echo "$RXE_HOST_IP"; elif [ "$2" = 0 ]; then echo "$RXE_HOST_IP2"; else echo "$RXE_HOST_IP3"; fi
}

# perftest's client gives up at once when nobody listens yet: retry only that case.
perftest_client() { # perftest_client OUTFILE CMD...
    local out="$1" i; shift
    for i in $(seq 1 90); do
        "$@" >"$out" 2>&1 && return 0
        grep -q "Couldn't connect" "$out" || return 1
        sleep 1
    done
    return 1
}


run_perftest_case() { # run_perftest_case VERB ROLE PATHS [mtu=BYTES]
    local verb="$1" role="$2" paths="$3" label="$1-$2-$3path" p pids=() rc=0 mtu_opt=""
    case "${4:-}" in mtu=*) mtu_opt="-m ${4#mtu=}";; esac
    rxe_counter_pairs >/tmp/c.before
    say "case $label"
    for p in $(seq 0 $((paths - 1))); do
        local f="/tmp/buf-$p" args
        rm -f "$f"
        truncate -s $((4 * RXE_SIZE)) "$f"
        # -x: GID index 1.. = the guest's addresses; -u 23: 34 s ACK timeout, so emulation stalls do
        # not cause retransmissions; -F: no CPU frequency check (emulated).
        args="-d $RXE_DEV -x $((p + 1)) -p $((18515 + p)) -F -u 23 -s $RXE_SIZE -n $RXE_ITERS --mmap=$f $mtu_opt"
        if [ "$role" = guest-server ]; then
            timeout 150 ib_${verb}_bw $args >"/tmp/out-$p" 2>&1 &
        else
            perftest_client "/tmp/out-$p" timeout 150 ib_${verb}_bw $args "$(host_ip_of_path "$paths" "$p")" &
        fi
        pids+=("$!")
    done
    for p in $(seq 0 $((paths - 1))); do
        if ! wait "${pids[$p]}"; then
            fail "$label: ib_${verb}_bw on path $p failed"
            sed "s/^/RXE-LOG $label-p$p: /" "/tmp/out-$p"
            rc=1
        else
            grep -E '^ *[0-9]+ +[0-9]+ ' "/tmp/out-$p" | sed "s/^/RXE-LOG $label-p$p result: /"
        fi
    done
    rxe_counter_pairs >/tmp/c.after
    local off; off=$(perftest_region "$role")
    for p in $(seq 0 $((paths - 1))); do
        echo "RXE-DATA $label-p$p $(sha_of "/tmp/buf-$p" "$off" "$RXE_SIZE")"
    done
    awk 'NR == FNR { a[$1] = $2; next } { print $1, $2 - a[$1] }' /tmp/c.before /tmp/c.after >/tmp/c.delta
    local name d rcvd=0 sent=0
    while read -r name d; do
        case "$name" in
            rcvd_pkts) rcvd=$d;;
            sent_pkts) sent=$d;;
            *) if is_error_counter "$name" && [ "$d" != 0 ]; then
                   fail "$label: rxe counter $name rose by $d (want 0)"
               fi;;
        esac
    done </tmp/c.delta
    echo "RXE-PKTS $label rcvd $rcvd sent $sent"
    return $rc
}

# Runs every line of a plan file.
run_plan() { # run_plan FILE
    local verb role paths opt
    while read -r verb role paths opt; do
        case "$verb" in ''|'#'*) continue;; esac
        run_perftest_case "$verb" "$role" "$paths" "${opt%%#*}" </dev/null
    done <"$1"
}
