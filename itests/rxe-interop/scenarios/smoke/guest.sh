# Guest only: rxe talks to itself (perftest server and client on rxe0, TCP exchange over lo) for
# WRITE, READ and SEND; the data that arrived is compared with what was sent (perftest's buffers are
# mmap'd tmpfs files, so the guest can read them after the run). Proves the guest and rxe work.
rxe_setup "$RXE_LINK_MTU" "$RXE_GUEST_IP/24" || finish

size=65536
iters=200
# One QP, size >= page: perftest's send buffer is [0, size) and the remote/receive region starts at
# offset size (perftest_communication.c: vaddr = buf + (num_qps + i) * BUFF_SIZE(size, cycle_buffer)).
for test in write read send; do
    rm -f /tmp/srv.buf /tmp/cli.buf
    truncate -s 1M /tmp/srv.buf /tmp/cli.buf
    # -u 23: 34 s ACK timeout, so emulation stalls cause no retransmissions (a lost packet still would).
    common="-d $RXE_DEV -x 1 -F -u 23 -s $size -n $iters --mmap"
    ib_${test}_bw $common=/tmp/srv.buf >/tmp/srv.out 2>&1 &
    srv=$!
    sleep 1
    ok=1
    timeout 60 ib_${test}_bw $common=/tmp/cli.buf 127.0.0.1 >/tmp/cli.out 2>&1 || ok=0
    wait "$srv" || ok=0
    sed "s/^/RXE-LOG $test client: /" /tmp/cli.out | grep -E 'BW|bytes|65536|MTU|Link|error|fail|Couldn' || true
    if [ "$ok" = 0 ]; then
        fail "ib_${test}_bw loopback failed"
        sed "s/^/RXE-LOG $test server: /" /tmp/srv.out
        continue
    fi
    case "$test" in
        write|send) sent=$(sha_of /tmp/cli.buf 0 $size); got=$(sha_of /tmp/srv.buf $size $size);;
        read) sent=$(sha_of /tmp/srv.buf $size $size); got=$(sha_of /tmp/cli.buf 0 $size);;
    esac
    if [ "$sent" = "$got" ]; then
        say "$test: data verified ($size bytes, sha256 $got)"
    else
        fail "$test: data differs: source $sent, destination $got"
    fi
done
rxe_counters smoke
