#!/usr/bin/env bash
# The paper's testbed (Fig. 4) from network namespaces, for the UDP wire and MPTCP (needs root):
#
#   host A (vt-a) == access == ToR1 (vt-tor1) == N core links, tc tbf RATE == ToR2 (vt-tor2) == access == host B (vt-b)
#
# Host A has vNICs 10.71.0.1..N, host B 10.72.0.1..N (IP aliases on one interface each). The access
# links are unshaped veths (far faster than the core). Each ToR routes by source address (policy
# routing, the paper's SDN switches): traffic from vNIC i of either host takes core link i, both
# ways. Every link has MTU 9000 so 4 KiB RoCE frames cross unfragmented.
#
# usage: testbed.sh up N [RATE] [--queue BYTES] [--burst BYTES]
#                                    build it (N 1..16 core links, RATE e.g. 100mbit, default 100mbit;
#                                    --queue: tbf queue limit of every core link, e.g. 64kb, default a
#                                    100 ms queue; --burst: tbf bucket, default 256kb)
#        testbed.sh down             remove every namespace it made
#        testbed.sh cut I            take core link I (0-based) down
#        testbed.sh restore I        bring core link I up again
#        testbed.sh rate I RATE      change core link I's rate
#        testbed.sh status           links, rates, states and byte counters
#        testbed.sh vnics a|b        host A's or B's vNICs, comma-separated (for bench --vnics)
#        testbed.sh exec a|b CMD...  run CMD in host A or B
set -euo pipefail

# VT_PREFIX renames the namespaces (tests use their own, so a running testbed is not touched)
PREFIX=${VT_PREFIX:-vt}
[[ "$PREFIX" =~ ^[a-z][a-z0-9]{0,7}$ ]] || { echo "testbed: VT_PREFIX must be 1-8 lower-case letters/digits" >&2; exit 2; }
NS_A=$PREFIX-a; NS_T1=$PREFIX-tor1; NS_T2=$PREFIX-tor2; NS_B=$PREFIX-b
MTU=9000
MAX_LINKS=16
TABLE_BASE=100

die() { echo "testbed: $*" >&2; exit 1; }
usage() {
  cat >&2 <<'EOF'
usage: testbed.sh up N [RATE] [--queue BYTES] [--burst BYTES]
                                   build it (N 1..16 core links, RATE e.g. 100mbit, default 100mbit;
                                   --queue: tbf queue limit per core link, e.g. 64kb (a shallow
                                   buffer: WR bursts beyond bucket + queue are dropped), default
                                   100 ms of the rate; --burst: tbf bucket, default 256kb)
       testbed.sh down             remove every namespace it made
       testbed.sh cut I            take core link I (0-based) down
       testbed.sh restore I        bring core link I up again
       testbed.sh rate I RATE      change core link I's rate
       testbed.sh status           links, rates, states and byte counters
       testbed.sh vnics a|b        host A's or B's vNICs, comma-separated (for bench --vnics)
       testbed.sh exec a|b CMD...  run CMD in host A or B
EOF
  exit 2
}

need_root() {
  [[ $(id -u) -eq 0 ]] || die "needs root (network namespaces, tc): run it with sudo"
  command -v ip >/dev/null || die "'ip' (iproute2) is not installed"
  command -v tc >/dev/null || die "'tc' (iproute2) is not installed"
}

in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
exists() { ip netns list | awk '{print $1}' | grep -qx "$1"; }
links() { in_ns "$NS_T1" ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -c '^c[0-9]*a$' || true; }

check_index() {
  local n; n=$(links)
  [[ "$1" =~ ^[0-9]+$ ]] && (( $1 < n )) || die "core link index must be 0..$((n - 1)): $1"
}

check_rate() {
  [[ "$1" =~ ^[0-9]+(\.[0-9]+)?([kmg]bit|[kmg]?bps|bit)$ ]] || die "rate must look like 100mbit, 1gbit, 500kbit: $1"
}

# tbf wants a bucket of at least one MTU and at least rate/HZ; by default a 100 ms queue keeps the
# core lossless for the RDMA traffic the paper assumes; --queue makes it shallow (the paper's lossy
# setup: a WR's burst overflows the bottleneck buffer). The link's alias keeps the queue settings so
# a rate change keeps them.
DEFAULT_QUEUE="burst=256kb queue=100ms"
shape() {
  local ns=$1 dev=$2 rate=$3 verb=${4:-add} q burst queue
  q=$(in_ns "$ns" cat "/sys/class/net/$dev/ifalias" 2>/dev/null || true)
  [[ "$q" == burst=* ]] || q=$DEFAULT_QUEUE
  burst=${q#burst=}; burst=${burst%% *}
  queue=${q##*queue=}
  if [[ "$queue" == *ms ]]; then
    in_ns "$ns" tc qdisc "$verb" dev "$dev" root tbf rate "$rate" burst "$burst" latency "$queue"
  else
    in_ns "$ns" tc qdisc "$verb" dev "$dev" root tbf rate "$rate" burst "$burst" limit "$queue"
  fi
}

check_bytes() {
  [[ "$2" =~ ^[1-9][0-9]*(b|kb|mb)?$ ]] || die "$1 must be a byte count like 65536, 64kb, 1mb: $2"
}

veth() {
  local ns1=$1 if1=$2 ns2=$3 if2=$4
  ip link add "$if1" netns "$ns1" type veth peer name "$if2" netns "$ns2"
  in_ns "$ns1" ip link set "$if1" mtu $MTU up
  in_ns "$ns2" ip link set "$if2" mtu $MTU up
}

# the routes of core link i in both ToRs; re-added after a link comes back up (the kernel deletes
# routes through a device that goes down)
core_routes() {
  local i=$1
  in_ns "$NS_T1" ip route replace 10.72.0.0/24 via "10.73.$i.2" dev "c${i}a" table $((TABLE_BASE + i))
  in_ns "$NS_T2" ip route replace 10.71.0.0/24 via "10.73.$i.1" dev "c${i}b" table $((TABLE_BASE + i))
}

up() {
  local n=$1 rate=100mbit burst=256kb queue=100ms
  shift
  if (($#)) && [[ "$1" != --* ]]; then rate=$1; shift; fi
  while (($#)); do
    case "$1" in
      --queue) [[ $# -ge 2 ]] || usage; check_bytes --queue "$2"; queue=$2; shift 2 ;;
      --burst) [[ $# -ge 2 ]] || usage; check_bytes --burst "$2"; burst=$2; shift 2 ;;
      *) usage ;;
    esac
  done
  [[ "$n" =~ ^[0-9]+$ ]] && (( n >= 1 && n <= MAX_LINKS )) || die "N must be 1..$MAX_LINKS: $n"
  check_rate "$rate"
  for ns in $NS_A $NS_T1 $NS_T2 $NS_B; do
    exists "$ns" && die "namespace $ns exists: run 'testbed.sh down' first"
  done
  trap 'echo "testbed: setup failed, removing it" >&2; down >/dev/null 2>&1 || true' ERR
  for ns in $NS_A $NS_T1 $NS_T2 $NS_B; do
    ip netns add "$ns"
    in_ns "$ns" ip link set lo up
  done
  for ns in $NS_T1 $NS_T2; do
    in_ns "$ns" sysctl -q -w net.ipv4.ip_forward=1
    in_ns "$ns" sysctl -q -w net.ipv4.conf.all.rp_filter=0
    in_ns "$ns" sysctl -q -w net.ipv4.conf.default.rp_filter=0
  done
  # access links: A <-> ToR1 (10.70.1.0/30), ToR2 <-> B (10.70.2.0/30)
  veth $NS_A a0 $NS_T1 t1a
  veth $NS_T2 t2b $NS_B b0
  in_ns $NS_A ip addr add 10.70.1.1/30 dev a0
  in_ns $NS_T1 ip addr add 10.70.1.2/30 dev t1a
  in_ns $NS_T2 ip addr add 10.70.2.1/30 dev t2b
  in_ns $NS_B ip addr add 10.70.2.2/30 dev b0
  for ((i = 0; i < n; i++)); do
    in_ns $NS_A ip addr add "10.71.0.$((i + 1))/32" dev a0
    in_ns $NS_B ip addr add "10.72.0.$((i + 1))/32" dev b0
  done
  in_ns $NS_A ip route add 10.72.0.0/24 via 10.70.1.2 dev a0
  in_ns $NS_B ip route add 10.71.0.0/24 via 10.70.2.1 dev b0
  in_ns $NS_T1 ip route add 10.71.0.0/24 via 10.70.1.1 dev t1a
  in_ns $NS_T2 ip route add 10.72.0.0/24 via 10.70.2.2 dev t2b
  # core links, each with its own routing table chosen by source address
  for ((i = 0; i < n; i++)); do
    veth $NS_T1 "c${i}a" $NS_T2 "c${i}b"
    in_ns $NS_T1 ip addr add "10.73.$i.1/30" dev "c${i}a"
    in_ns $NS_T2 ip addr add "10.73.$i.2/30" dev "c${i}b"
    in_ns $NS_T1 ip link set "c${i}a" alias "burst=$burst queue=$queue"
    in_ns $NS_T2 ip link set "c${i}b" alias "burst=$burst queue=$queue"
    shape $NS_T1 "c${i}a" "$rate"
    shape $NS_T2 "c${i}b" "$rate"
    core_routes "$i"
    # a vNIC's traffic uses its link's table only: if the link is cut, it is unreachable rather
    # than silently taking another path (the main tables of the ToRs have no route to the far host)
    in_ns $NS_T1 ip rule add from "10.71.0.$((i + 1))" lookup $((TABLE_BASE + i)) priority $((1000 + i))
    in_ns $NS_T2 ip rule add from "10.72.0.$((i + 1))" lookup $((TABLE_BASE + i)) priority $((1000 + i))
  done
  trap - ERR
  echo "testbed up: $n core links at $rate (tbf burst $burst, queue $queue); host A vNICs $(vnics a), host B vNICs $(vnics b)"
}

down() {
  local removed=0
  for ns in $NS_A $NS_T1 $NS_T2 $NS_B; do
    if exists "$ns"; then
      # processes still running in our namespaces (servers of an experiment) go with them
      for pid in $(ip netns pids "$ns"); do kill "$pid" 2>/dev/null || true; done
      ip netns del "$ns"
      removed=1
    fi
  done
  (( removed )) && echo "testbed down" || echo "testbed: nothing to remove"
}

set_link() {
  local i=$1 state=$2
  check_index "$i"
  in_ns $NS_T1 ip link set "c${i}a" "$state"
  in_ns $NS_T2 ip link set "c${i}b" "$state"
  [[ "$state" == up ]] && core_routes "$i"
  echo "core link $i $state"
}

rate() {
  local i=$1 r=$2
  check_index "$i"
  check_rate "$r"
  shape $NS_T1 "c${i}a" "$r" change
  shape $NS_T2 "c${i}b" "$r" change
  echo "core link $i rate $r"
}

vnics() {
  local host=$1 ns prefix
  case "$host" in
    a) ns=$NS_A; prefix=10.71.0. ;;
    b) ns=$NS_B; prefix=10.72.0. ;;
    *) die "host must be a or b: $host" ;;
  esac
  exists "$ns" || die "the testbed is not up"
  in_ns "$ns" ip -o -4 addr show | awk '{print $4}' | sed 's,/.*,,' | grep -F "$prefix" | sort -t. -k4 -n | paste -sd, -
}

status() {
  exists $NS_T1 || { echo "testbed is down"; return 0; }
  local n; n=$(links)
  echo "testbed: $n core links; host A vNICs $(vnics a); host B vNICs $(vnics b)"
  for ((i = 0; i < n; i++)); do
    local state qd sent dropped
    state=$(in_ns $NS_T1 cat "/sys/class/net/c${i}a/operstate")
    qd=$(in_ns $NS_T1 tc qdisc show dev "c${i}a" | grep -o 'rate [^ ]*' | head -1)
    sent=$(in_ns $NS_T1 tc -s qdisc show dev "c${i}a" | grep -o 'Sent [0-9]* bytes' | head -1)
    dropped=$(in_ns $NS_T1 tc -s qdisc show dev "c${i}a" | grep -o 'dropped [0-9]*' | head -1)
    printf '  link %-2d %-5s %-14s %-32s A->B %s, %s\n' "$i" "$state" "$qd" \
      "$(in_ns $NS_T1 cat "/sys/class/net/c${i}a/ifalias")" "$sent" "$dropped"
  done
}

cmd=${1:-}
[[ -n "$cmd" ]] || usage
shift
case "$cmd" in
  up) need_root; [[ $# -ge 1 && $# -le 6 ]] || usage; up "$@" ;;
  down) need_root; [[ $# -eq 0 ]] || usage; down ;;
  cut) need_root; [[ $# -eq 1 ]] || usage; set_link "$1" down ;;
  restore) need_root; [[ $# -eq 1 ]] || usage; set_link "$1" up ;;
  rate) need_root; [[ $# -eq 2 ]] || usage; rate "$1" "$2" ;;
  status) need_root; [[ $# -eq 0 ]] || usage; status ;;
  vnics) need_root; [[ $# -eq 1 ]] || usage; vnics "$1" ;;
  exec)
    need_root
    [[ $# -ge 2 ]] || usage
    host=$1; shift
    case "$host" in a) exec ip netns exec $NS_A "$@" ;; b) exec ip netns exec $NS_B "$@" ;; *) die "host must be a or b" ;; esac ;;
  -h|--help|help) usage ;;
  *) echo "testbed: unknown subcommand '$cmd'" >&2; usage ;;
esac
