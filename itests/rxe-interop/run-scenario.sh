#!/bin/bash
# Runs rxe interop scenarios: boots a Debian guest (kernel Soft-RoCE, rdma_rxe) under qemu TCG with a
# virtio NIC on a tap device inside a private host network namespace, runs the scenario's guest part
# (and its host part, e.g. the soft-RNIC perftest peer, inside that namespace) and checks both.
#
#   run-scenario.sh [--cache DIR] [--out DIR] SCENARIO...      (as root; SCENARIO = folder in scenarios/)
#
# Exit status: 0 all passed, 1 a scenario or the set-up failed (including a failed package install,
# guest build, or no Java 19+ for the interop peer), 2 cannot run here (no root, no /dev/net/tun,
# or qemu missing and no root to install it), 64 usage error. Only 2 may be reported as a skip.
# Environment: RXE_QEMU_TIMEOUT (s, default 300) per boot; RXE_GUEST_CACHE overrides the cache dir;
# RXE_SIZE / RXE_ITERS message size and count (65536 / 100); RXE_PLAN replaces the scenario's plan.
set -euo pipefail

# Status 2 means "cannot run here" and only skip() gives it: any other step that fails with 2 under
# set -e (ip, grep, a helper script) is reported as a failure.
skipping=0
skip() { echo "SKIP rxe-interop: $*" >&2; skipping=1; exit 2; }
no_false_skip() { if [ "$1" = 2 ] && [ "$skipping" = 0 ]; then echo "rxe-interop: a step failed with status 2" >&2; exit 1; fi; }
trap 'no_false_skip $?' EXIT

itest="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$itest/../.." && pwd)"
cache="${RXE_GUEST_CACHE:-$repo/.cache/rxe-guest}"
out="$itest/target/rxe-interop"
while [ $# -gt 0 ]; do
    case "$1" in
        --cache) cache="$2"; shift 2;;
        --out) out="$2"; shift 2;;
        -h|--help) sed -n '2,10p' "$0"; exit 0;;
        --) shift; break;;
        -*) echo "unknown option $1" >&2; exit 64;;
        *) break;;
    esac
done
[ $# -gt 0 ] || { echo "usage: run-scenario.sh [--cache DIR] [--out DIR] SCENARIO..." >&2; exit 64; }
for s in "$@"; do
    [ -f "$itest/scenarios/$s/guest.sh" ] || { echo "no scenario '$s' (scenarios/$s/guest.sh)" >&2; exit 64; }
done

if [ "$(id -u)" != 0 ]; then
    skip "needs root (network namespace, tap device, debootstrap)"
fi
if [ ! -c /dev/net/tun ]; then
    skip "no /dev/net/tun (tap devices unavailable)"
fi
# as root, a missing tool is installed: an install that fails is a failure, not a skip
pkg_rc=0
"$itest/guest/host-packages.sh" || pkg_rc=$?
if [ "$pkg_rc" = 2 ]; then
    skip "qemu and the other host tools are missing and cannot be installed here"
elif [ "$pkg_rc" != 0 ]; then
    echo "FAIL rxe-interop: installing the host packages (qemu, debootstrap, ...) failed (exit $pkg_rc, see above)" >&2
    exit 1
fi

# The soft-RNIC peer of the interop scenario needs Java 19+: find it before the long guest build.
# shellcheck source=peer-java.sh
source "$itest/peer-java.sh"
if [[ " $* " == *" interop "* ]]; then
    RXE_PEER_JAVA="$(peer_java_find)" || exit 1
    export RXE_PEER_JAVA
fi

if ! guest="$("$itest/guest/build-guest.sh" "$cache")"; then
    echo "FAIL rxe-interop: building the guest failed (see above)" >&2
    exit 1
fi
mkdir -p "$out"

# Addresses of the private link (TEST-NET-1, inside our own namespace only).
export RXE_HOST_IP=192.0.2.1 RXE_HOST_IP2=192.0.2.11 RXE_HOST_IP3=192.0.2.12 RXE_HOST_IP4=192.0.2.13
export RXE_GUEST_IP=192.0.2.2 RXE_GUEST_IP2=192.0.2.3 RXE_GUEST_IP3=192.0.2.4 RXE_GUEST_IP4=192.0.2.5
export RXE_LINK_MTU="${RXE_LINK_MTU:-9000}"
export RXE_SIZE="${RXE_SIZE:-65536}" RXE_ITERS="${RXE_ITERS:-100}"
export RXE_ITEST_DIR="$itest"
export RXE_MP_SIZE="${RXE_MP_SIZE:-4194304}"
guest_vars=(RXE_HOST_IP RXE_HOST_IP2 RXE_HOST_IP3 RXE_HOST_IP4 RXE_GUEST_IP RXE_GUEST_IP2 RXE_GUEST_IP3 RXE_GUEST_IP4
    RXE_LINK_MTU RXE_SIZE RXE_ITERS RXE_MP_SIZE)

ns=""
qemu_pid=""
host_pids=()
work=""
cleanup() {
    local rc=$?
    [ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null || true
    local p
    for p in "${host_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    [ -n "$qemu_pid" ] && wait "$qemu_pid" 2>/dev/null || true
    for p in "${host_pids[@]}"; do wait "$p" 2>/dev/null || true; done
    qemu_pid=""; host_pids=()
    if [ -n "$ns" ]; then ip netns delete "$ns" 2>/dev/null || true; ns=""; fi
    if [ -n "$work" ]; then rm -rf "$work"; work=""; fi
    no_false_skip "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts a host-side program in the scenario's namespace, in the background (killed by cleanup).
host_spawn() { # host_spawn LOGFILE CMD...
    local logfile="$1"; shift
    ip netns exec "$ns" "$@" >"$logfile" 2>&1 &
    host_pids+=("$!")
}

run_one() {
    local name="$1" sdir="$itest/scenarios/$1" log="$out/$1.console.log" t0=$SECONDS
    work="$(mktemp -d)"
    rm -f "$out/$name".*.log "$log"

    # Scenario disk: a plain tar on the second virtio disk (the guest unpacks /dev/vdb).
    mkdir -p "$work/s"
    cp "$itest/guest/lib.sh" "$itest/guest/perftest-cases.sh" "$work/s/"
    cp "$sdir"/* "$work/s/"
    # RXE_PLAN replaces a scenario's plan (e.g. one case while debugging); host.sh reads $plan.
    plan="$sdir/plan"
    if [ -n "${RXE_PLAN:-}" ]; then cp "$RXE_PLAN" "$work/s/plan"; plan="$RXE_PLAN"; fi
    {
        echo '#!/bin/bash'
        local v
        for v in "${guest_vars[@]}"; do echo "export $v=${!v}"; done
        echo 'source ./lib.sh'
        echo 'source ./guest.sh'
        echo 'finish'
    } >"$work/s/main.sh"

    tar -cf "$work/scenario.tar" -C "$work/s" .
    # Scenarios running Java in the guest get a third disk: a JDK 22+ runtime and the jars.
    local java_drive=()
    if [ -f "$sdir/needs-java" ]; then
        if ! "$itest/guest/java-disk.sh" "$cache" "$work/java.img"; then
            rm -rf "$work"; work=""
            echo "== $name: fail (the guest's Java disk could not be made, see above)"
            return 1
        fi
        java_drive=(-drive "file=$work/java.img,if=virtio,format=raw,readonly=on")
    fi

    ns="rxe-itest-$$"
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip -n "$ns" tuntap add dev tap0 mode tap
    ip -n "$ns" link set tap0 mtu "$RXE_LINK_MTU" txqueuelen 10000 up
    ip -n "$ns" addr add "$RXE_HOST_IP/24" dev tap0
    ip -n "$ns" addr add "$RXE_HOST_IP2/24" dev tap0
    ip -n "$ns" addr add "$RXE_HOST_IP3/24" dev tap0
    ip -n "$ns" addr add "$RXE_HOST_IP4/24" dev tap0

    # Host part (optional): host_start runs before the boot, host_check after the guest is done.
    host_start() { :; }
    host_check() { :; }
    if [ -f "$sdir/host.sh" ]; then source "$sdir/host.sh"; fi
    if ! host_start "$out/$name"; then
        ip netns delete "$ns"; ns=""
        rm -rf "$work"; work=""
        echo "== $name: fail (host part could not start)"
        return 1
    fi

    # the boot's limit: RXE_QEMU_TIMEOUT, else the scenario's own (file qemu-timeout), else 300 s
    local qtimeout="${RXE_QEMU_TIMEOUT:-$(cat "$sdir/qemu-timeout" 2>/dev/null || echo 300)}"
    echo "== $name: booting guest (kernel $(cat "$guest/kernel.version"), limit $qtimeout s)"
    ip netns exec "$ns" timeout --kill-after=5 "$qtimeout" \
        qemu-system-x86_64 -nodefaults -accel tcg,thread=single -m 1G -smp 2 \
        -display none -monitor none -serial "file:$log" -no-reboot \
        -kernel "$guest/vmlinuz" -initrd "$guest/initrd.cpio" \
        -append "console=ttyS0 panic=-1 quiet loglevel=4 mitigations=off" \
        -drive "file=$guest/rootfs.img,if=virtio,format=raw,snapshot=on,cache=unsafe" \
        -drive "file=$work/scenario.tar,if=virtio,format=raw,readonly=on" "${java_drive[@]}" \
        -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
        -netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
        -device "virtio-net-pci,netdev=n0,mac=52:54:00:00:02:02,host_mtu=$RXE_LINK_MTU" &
    qemu_pid=$!
    local qrc=0
    wait "$qemu_pid" || qrc=$?
    qemu_pid=""

    local verdict=pass
    # isa-debug-exit (guest/rootfs-init): 65 = pass, 67 = fail; 124/137 = timeout; 1 = qemu error.
    if [ "$qrc" != 65 ] || ! grep -aq '^RXE-RESULT pass' "$log"; then
        verdict=fail
        case "$qrc" in
            65) echo "   guest exit code says pass but no RXE-RESULT pass line";;
            67) echo "   guest reported failure";;
            124|137) echo "   guest timed out after ${qtimeout}s";;
            *) echo "   qemu exited $qrc (guest crashed or powered off)";;
        esac
    fi
    grep -a '^RXE-FAIL' "$log" | sed 's/^/   /' || true
    # Where packets can get lost on the host side: the tap's queue and the UDP sockets' buffers.
    { ip -n "$ns" -s link show tap0; ip netns exec "$ns" nstat -asz 2>/dev/null | grep -E '^Udp|^IpExt'; } \
        >"$out/$name.hostnet.log" 2>&1 || true
    if ! host_check "$out/$name" "$log"; then verdict=fail; fi
    local p
    for p in "${host_pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    host_pids=()
    ip netns delete "$ns"; ns=""
    rm -rf "$work"; work=""
    echo "== $name: $verdict ($((SECONDS - t0)) s; console log $log)"
    [ "$verdict" = pass ]
}

failed=0
passed=0
for s in "$@"; do
    if run_one "$s"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "rxe-interop: $passed passed, $failed failed"
[ "$failed" = 0 ]
