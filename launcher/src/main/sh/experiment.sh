#!/usr/bin/env bash
# The paper's evaluation on the namespace testbed (testbed.sh), over the soft RNIC's UDP wire, against
# Linux MPTCP (mptcpize + iperf3) and single-path TCP (iperf3). Needs root. Writes CSV and PNG into
# results/<experiment>/ at the repository root.
#
# usage: experiment.sh fig5 [--size BYTES] [--rate RATE] [--paths "1 2 4 6 8 10"]
#        experiment.sh fig6 [--sizes "16M 64M 256M 1G"] [--rate RATE] [--paths N]
#        experiment.sh fig7 [--count K] [--rate RATE] [--paths N]
#        experiment.sh table2 [SECONDS]   (in-process fabric: the only place with loss)
#   Fig. 5: FCT of one flow of --size bytes (default 64M) against the number of paths, each path a
#   core link of --rate (default 100mbit); Virtuoso (bench client in host A, server in host B, one
#   vNIC per path), MPTCP over the same paths (one subflow endpoint per vNIC; the kernel caps a
#   connection at 8 extra subflows) and single-path TCP. Also the client's CPU time per transfer
#   (Fig. 8), measured as user+system time of the whole client process.
#   Fig. 6: FCT against flow size (--sizes) over --paths N core links, the same three systems.
#   Fig. 7: CDF of 256 KiB mice FCT (path 0) with a Virtuoso elephant on path 0 alone or split over N.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)"
TESTBED="$ROOT/launcher/src/main/sh/testbed.sh"
PLOT="$ROOT/launcher/src/main/sh/experiment_plot.py"
JAR="$ROOT/launcher/target/virtuoso-launcher.jar"
SERVER=10.72.0.1
BENCH_PORT=18515
# Debian's python3-matplotlib lives in the system interpreter, not in a pyenv or venv python3
PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3
IPERF_PORT=5201

die() { echo "experiment: $*" >&2; exit 1; }
usage() {
  cat >&2 <<'EOF'
usage: experiment.sh fig5 [--size BYTES] [--rate RATE] [--paths "1 2 4 6 8 10"]
       experiment.sh fig6 [--sizes "16M 64M 256M 1G"] [--rate RATE] [--paths N]
       experiment.sh fig7 [--count K] [--rate RATE] [--paths N]
       experiment.sh table2 [SECONDS]
  fig5: FCT against number of paths (Fig. 5) and client CPU time per transfer (Fig. 8):
  Virtuoso (soft RNIC, UDP wire) vs Linux MPTCP vs single-path TCP on the namespace testbed.
  --size   flow size in bytes, K/M/G suffixes, a multiple of 4M (default 64M)
  --rate   rate of every core link (default 100mbit)
  --paths  the path counts to measure (default "1 2 4 6 8 10", each 1..16)
  fig6: FCT against flow size over N paths (default 4): the same three systems.
  fig7: K (default 10) 256 KiB mice over path 0, one after another, under a Virtuoso elephant on
        path 0 only (single) and split over N paths (split, default 4): CDF of the mice FCT.
  table2: chunk sizes on lossy paths: the in-process fabric (the testbed has no loss), via the
        policies bench (mvn ... exec:java -Dexec.args="table2 SECONDS"; default 5 s per run)
Results: results/figN/figN.csv and PNGs (fig5 also fig8.png), results/table2/table2.csv
EOF
  exit 2
}

bytes_of() {
  local s=$1
  [[ "$s" =~ ^([0-9]+)([KMG]?)$ ]] || die "size must look like 64M: $s"
  local n=${BASH_REMATCH[1]}
  case "${BASH_REMATCH[2]}" in K) n=$((n << 10)) ;; M) n=$((n << 20)) ;; G) n=$((n << 30)) ;; esac
  echo "$n"
}

bits_of_rate() {
  [[ "$1" =~ ^([0-9]+)(kbit|mbit|gbit)$ ]] || die "rate must look like 100mbit: $1"
  local n=${BASH_REMATCH[1]}
  case "${BASH_REMATCH[2]}" in kbit) echo $((n * 1000)) ;; mbit) echo $((n * 1000000)) ;; gbit) echo $((n * 1000000000)) ;; esac
}

tb() { bash "$TESTBED" "$@"; }
in_a() { ip netns exec vt-a "$@"; }
in_b() { ip netns exec vt-b "$@"; }

# first N of a comma-separated list
first() { echo "$1" | cut -d, -f"1-$2"; }

wait_listen() {
  local port=$1 i
  for ((i = 0; i < 600; i++)); do
    in_b ss -Hltn "sport = :$port" | grep -q . && return 0
    sleep 0.1
  done
  die "nothing listens on port $port in host B after 60 s"
}

SERVER_PID=
stop_server() {
  if [[ -n "$SERVER_PID" ]]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
  fi
}

cleanup() {
  stop_server
  stop_elephant
  tb down >/dev/null 2>&1 || true
}

# one Virtuoso transfer over the first n vNICs; prints "fct_seconds cpu_seconds"
run_virtuoso() {
  local n=$1 size=$2 iters=$(( $2 / (4 << 20) )) va vb out
  va=$(first "$VNICS_A" "$n"); vb=$(first "$VNICS_B" "$n")
  ip netns exec vt-b java -Djava.awt.headless=true -jar "$JAR" bench -q "$n" --vnics "$vb" --wait 120 \
      >"$LOG_DIR/virtuoso-server-$n.log" 2>&1 &
  SERVER_PID=$!
  wait_listen $BENCH_PORT
  local t=$LOG_DIR/virtuoso-client-$n.json
  # bash's `time` gives the child's user and system CPU
  local TIMEFORMAT='%U %S'
  local cpu
  cpu=$( { time in_a java -Djava.awt.headless=true -jar "$JAR" bench -q "$n" -s 4M -n "$iters" \
      --vnics "$va" --report_gbits --json --json-file "$t" "$SERVER" >"$LOG_DIR/virtuoso-client-$n.log" 2>&1; } 2>&1 )
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
  local gbps
  gbps=$(grep -o '"bw_average": [0-9.]*' "$t" | awk '{print $2}')
  [[ -n "$gbps" ]] || die "no Virtuoso result for $n paths (see $LOG_DIR/virtuoso-client-$n.log)"
  awk -v b="$size" -v g="$gbps" -v c="$cpu" 'BEGIN { split(c, u, " "); printf "%.4f %.3f\n", b * 8 / (g * 1e9), u[1] + u[2] }'
}

# one iperf3 transfer (MPTCP when $1 is mptcp); prints "fct_seconds cpu_seconds"
run_iperf() {
  local kind=$1 n=$2 size=$3 wrap=() i
  in_a ip mptcp endpoint flush
  if [[ $kind == mptcp ]]; then
    wrap=(mptcpize run)
    # the first vNIC carries the initial subflow (the default source address); one subflow per other
    # vNIC, at most 8 (the kernel's limit on endpoints and on extra subflows): MPTCP gets 9 paths at most
    for ((i = 2; i <= n && i <= 9; i++)); do in_a ip mptcp endpoint add "10.71.0.$i" dev a0 subflow; done
  fi
  ip netns exec vt-b "${wrap[@]}" iperf3 -s -1 -p $IPERF_PORT >"$LOG_DIR/$kind-server-$n.log" 2>&1 &
  SERVER_PID=$!
  wait_listen $IPERF_PORT
  local t=$LOG_DIR/$kind-client-$n.json
  local TIMEFORMAT='%U %S'
  local cpu
  cpu=$( { time in_a "${wrap[@]}" iperf3 -c "$SERVER" -p $IPERF_PORT -n "$size" -J >"$t" 2>"$LOG_DIR/$kind-client-$n.err"; } 2>&1 )
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
  python3 - "$t" "$size" "$cpu" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
if "error" in r:
    sys.exit("iperf3: " + r["error"])
bps = r["end"]["sum_received"]["bits_per_second"]
u, s = sys.argv[3].split()
print("%.4f %.3f" % (int(sys.argv[2]) * 8 / bps, float(u) + float(s)))
EOF
}

ensure_tools() {
  [[ $(id -u) -eq 0 ]] || die "needs root (network namespaces, tc, MPTCP endpoints)"
  command -v java >/dev/null || die "java is not installed"
  [[ -f "$JAR" ]] || die "the launcher is not built: run ./virtuoso help first"
  local missing=()
  command -v iperf3 >/dev/null || missing+=(iperf3)
  command -v mptcpize >/dev/null || missing+=(mptcpd)
  $PY -c 'import matplotlib' 2>/dev/null || missing+=(python3-matplotlib)
  if ((${#missing[@]})); then
    echo "experiment: installing ${missing[*]} (apt-get)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2 || die "could not install ${missing[*]}"
  fi
}

# parses --size/--sizes/--rate/--paths into SIZE SIZES RATE PATHS (defaults set by the caller)
parse_opts() {
  while (($#)); do
    case "$1" in
      --size) SIZE=${2:?}; shift 2 ;;
      --sizes) SIZES=${2:?}; shift 2 ;;
      --rate) RATE=${2:?}; shift 2 ;;
      --paths) PATHS=${2:?}; shift 2 ;;
      *) usage ;;
    esac
  done
  local n s
  RBITS=$(bits_of_rate "$RATE")
  MAXN=0
  for n in $PATHS; do
    [[ "$n" =~ ^[0-9]+$ ]] && ((n >= 1 && n <= 16)) || die "path counts must be 1..16: $n"
    ((n > MAXN)) && MAXN=$n
  done
  for s in $SIZE $SIZES; do
    s=$(bytes_of "$s")
    ((s % (4 << 20) == 0 && s > 0)) || die "sizes must be multiples of 4M: $s"
  done
}

# builds the testbed with MAXN links of RATE and prepares results/$1; sets OUT, LOG_DIR, CSV
start() {
  ensure_tools
  OUT="$ROOT/results/$1"
  LOG_DIR="$OUT/logs"
  rm -rf "$LOG_DIR"
  mkdir -p "$LOG_DIR"
  trap cleanup EXIT
  tb down >/dev/null 2>&1 || true
  tb up "$MAXN" "$RATE"
  # hosts' default source is vNIC 0, so bootstrap connections and the initial MPTCP subflow take core
  # link 0 (the ToRs' main tables have no route to the far host)
  in_a ip route replace 10.72.0.0/24 via 10.70.1.2 dev a0 src 10.71.0.1
  in_b ip route replace 10.71.0.0/24 via 10.70.2.1 dev b0 src 10.72.0.1
  for ns in vt-a vt-b; do ip netns exec $ns ip mptcp limits set subflow 8 add_addr_accepted 8; done
  VNICS_A=$(tb vnics a); VNICS_B=$(tb vnics b)
  CSV="$OUT/$1.csv"
  echo "system,paths,bytes,link_rate_bps,fct_s,goodput_bps,pct_of_capacity,client_cpu_s" >"$CSV"
  echo "start $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg) nproc $(nproc); rate $RATE; paths $PATHS; sizes $SIZE $SIZES" >"$OUT/machine.txt"
}

finish() {
  echo "end $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"
  "$PY" "$PLOT" "$1" "$CSV" "$OUT"
  echo "experiment: wrote $CSV and the PNGs in $OUT"
}

# one transfer of BYTES over N paths with SYSTEM, appended to the CSV
measure() {
  local sys=$1 n=$2 bytes=$3 r fct cpu
  case $sys in
    virtuoso) r=$(run_virtuoso "$n" "$bytes") ;;
    *) r=$(run_iperf "$sys" "$n" "$bytes") ;;
  esac
  read -r fct cpu <<<"$r"
  awk -v s="$sys" -v n="$n" -v b="$bytes" -v r="$RBITS" -v f="$fct" -v c="$cpu" \
    'BEGIN { g = b * 8 / f; printf "%s,%d,%d,%d,%.4f,%.0f,%.1f,%.3f\n", s, n, b, r, f, g, 100 * g / (n * r), c }' | tee -a "$CSV"
}

fig5() {
  SIZE=64M SIZES= RATE=100mbit PATHS="1 2 4 6 8 10"
  parse_opts "$@"
  local bytes n sys
  bytes=$(bytes_of "$SIZE")
  start fig5
  for n in $PATHS; do
    for sys in virtuoso mptcp tcp; do measure $sys "$n" "$bytes"; done
  done
  finish fig5
}

fig6() {
  SIZE= SIZES="16M 64M 256M 1G" RATE=100mbit PATHS=4
  parse_opts "$@"
  [[ "$PATHS" =~ ^[0-9]+$ ]] || die "fig6 takes one path count: --paths N"
  local s sys
  start fig6
  for s in $SIZES; do
    for sys in virtuoso mptcp tcp; do measure $sys "$PATHS" "$(bytes_of "$s")"; done
  done
  finish fig6
}

# a bench pair in the background (the elephant): server and client PIDs in ELEPHANT_PIDS
ELEPHANT_PIDS=()
start_elephant() {
  local n=$1 va=$2 vb=$3
  # ip netns exec execs java, so $! is java itself and stop_elephant can end it
  ip netns exec vt-b java -Djava.awt.headless=true -jar "$JAR" bench -q "$n" --vnics "$vb" --wait 120 \
      >"$LOG_DIR/elephant-server-$n.log" 2>&1 &
  ELEPHANT_PIDS=($!)
  wait_listen $BENCH_PORT
  # long enough to outlast every mouse; stopped by stop_elephant
  ip netns exec vt-a java -Djava.awt.headless=true -jar "$JAR" bench -q "$n" -s 4M -n 1000000 --vnics "$va" "$SERVER" \
      >"$LOG_DIR/elephant-client-$n.log" 2>&1 &
  ELEPHANT_PIDS+=($!)
  sleep 5
  local p
  for p in "${ELEPHANT_PIDS[@]}"; do
    kill -0 "$p" 2>/dev/null || die "the elephant over $n paths did not start (see $LOG_DIR/elephant-*-$n.log)"
  done
}
stop_elephant() {
  local p
  for p in "${ELEPHANT_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${ELEPHANT_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  ELEPHANT_PIDS=()
}

# one 256 KiB mouse over vNIC 0 on its own bootstrap and UDP ports; prints its FCT in seconds
MOUSE_PORT=18600
MOUSE_UDP=4800
run_mouse() {
  local i=$1 t=$LOG_DIR/mouse-$1.json
  ip netns exec vt-b java -Djava.awt.headless=true -jar "$JAR" bench -q 1 --vnics 10.72.0.1 -p $MOUSE_PORT --udp-port $MOUSE_UDP \
      --wait 120 >"$LOG_DIR/mouse-server-$i.log" 2>&1 &
  SERVER_PID=$!
  wait_listen $MOUSE_PORT
  in_a java -Djava.awt.headless=true -jar "$JAR" bench -q 1 --vnics 10.71.0.1 -p $MOUSE_PORT --udp-port $MOUSE_UDP \
      -s 256K -n 1 -t 1 --report_gbits --json-file "$t" "$SERVER" >"$LOG_DIR/mouse-client-$i.log" 2>&1 || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
  local g
  g=$(grep -o '"bw_average": [0-9.]*' "$t" 2>/dev/null | awk '{print $2}')
  [[ -n "$g" ]] && awk -v g="$g" 'BEGIN { if (g > 0) printf "%.5f\n", 262144 * 8 / (g * 1e9) }'
}

fig7() {
  SIZE= SIZES= RATE=100mbit PATHS=4
  local count=10
  if [[ "${1:-}" == --count ]]; then count=${2:?}; shift 2; fi
  parse_opts "$@"
  [[ "$PATHS" =~ ^[0-9]+$ ]] && ((PATHS >= 2)) || die "fig7 takes one path count >= 2: --paths N"
  [[ "$count" =~ ^[0-9]+$ ]] && ((count >= 1)) || die "--count must be a positive number"
  start fig7
  echo "mode,elephant_paths,sample,mouse_bytes,fct_s" >"$CSV"
  local mode n i f
  for mode in single split; do
    n=1; [[ $mode == split ]] && n=$PATHS
    start_elephant "$n" "$(first "$VNICS_A" "$n")" "$(first "$VNICS_B" "$n")"
    for ((i = 1; i <= count; i++)); do
      f=$(run_mouse "$mode-$i")
      if [[ -n "$f" ]]; then echo "$mode,$n,$i,262144,$f" | tee -a "$CSV"; else echo "experiment: mouse $mode-$i failed (see $LOG_DIR)" >&2; fi
    done
    stop_elephant
  done
  finish fig7
}

# Table 2 needs loss, which the namespace testbed lacks (no netem here): it runs on the soft RNIC's
# in-process fabric through the policies bench (four runs of SECONDS each, 1/2/4/8 paths of 100 Mbit/s
# with 1% loss, cc-chunkprobe), and keeps its table as text and CSV
table2() {
  local seconds=${1:-5}
  [[ "$seconds" =~ ^[0-9]+$ ]] && ((seconds >= 1)) || die "table2 takes a run length in seconds"
  command -v mvn >/dev/null || die "mvn is not installed"
  local out="$ROOT/results/table2"
  mkdir -p "$out"
  echo "start $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg) nproc $(nproc)" >"$out/machine.txt"
  (cd "$ROOT" && mvn -B -q -o -f policies/bench/pom.xml compile exec:java -Dexec.args="table2 $seconds") \
    | sed 's/\x1b\[[0-9;]*m//g' | tee "$out/table2.txt"
  echo "end $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
  {
    echo "paths,sum_safe_chunk_bytes,safe_chunk_bytes_per_path,largest_completed_chunk_bytes,avg_completed_chunk_bytes,goodput_mbit_s"
    grep -E '^\| [0-9]+ \|' "$out/table2.txt" | tr -d ' ' | sed 's/^|//; s/|$//; s/|/,/g'
  } >"$out/table2.csv"
  echo "experiment: wrote $out/table2.txt and $out/table2.csv"
}

cmd=${1:-}
[[ -n "$cmd" ]] || usage
shift
case "$cmd" in
  fig5) fig5 "$@" ;;
  fig6) fig6 "$@" ;;
  fig7) fig7 "$@" ;;
  table2) table2 "$@" ;;
  -h|--help|help) usage ;;
  *) echo "experiment: unknown experiment '$cmd'" >&2; usage ;;
esac
