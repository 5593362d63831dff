#!/usr/bin/env bash
# The paper's evaluation on the namespace testbed (testbed.sh), over the soft RNIC's UDP wire, against
# Linux MPTCP (mptcpize + iperf3) and single-path TCP (iperf3). Needs root. Writes CSV and PNG into
# results/<experiment>/ at the repository root. `experiment.sh --help` lists the experiments.
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
# the Virtuoso flows of fig5/fig6 are MP_WRITEs of 4 MiB messages, 16 outstanding
MSG=4M
# M MP_WRITEs per path (of the transfer's message size) before a measured Virtuoso transfer (--warmup of fig5, table2)
WARMUP=0

die() { echo "experiment: $*" >&2; exit 1; }
usage() {
  cat >&2 <<'EOF'
usage: experiment.sh fig5   [--size BYTES] [--rate RATE] [--paths "1 2 4 6 8 10"] [--warmup M]
       experiment.sh fig6   [--sizes "16M 64M 256M 1G"] [--rate RATE] [--paths N]
       experiment.sh fig7   [--count K] [--interval SECS] [--elephant-rate RATE] [--rate RATE] [--paths N]
                            [--burst BYTES]
       experiment.sh table2 [--paths "1 2 4 6 8 10"] [--msgs M] [--queue BYTES] [--burst BYTES]
                            [--window PACKETS] [--retry N] [--rate RATE] [--fixed-msgs M]
                            [--loss "0.1 1 5"] [--loss-paths "1 4"] [--loss-mib MIB] [--warmup M]
       experiment.sh fig8   [--size BYTES] [--msg-sizes "256K 1M 4M"] [--rate RATE] [--paths "1 2 4 6 8 10"]
       experiment.sh hetero [--size BYTES] [--runs N] [--systems "default lb-proportional lb-adaptive mptcp"]
       experiment.sh all    [--size BYTES]    (fig5, fig6, fig7, table2, fig8, hetero in sequence, their defaults)
 fig5: FCT of one flow of --size bytes (default 128M) against the number of paths, each path a core
       link of --rate (default 100mbit): Virtuoso (bench client in host A, server in host B, one vNIC
       per path, MP_WRITE of 4 MiB messages) with its default policies and with the paper's
       lb-proportional ("virtuoso-proportional"), Linux MPTCP over the same paths (one subflow endpoint
       per vNIC, at most 8 extra subflows) and single-path TCP; with each side's CPU time per
       transfer (fig5-cpu.png). --warmup M (default 0: cold JVMs) precedes each Virtuoso transfer
       with M MP_WRITEs of its 4 MiB messages per path on an unmeasured connection in the same two
       JVMs, as in table2, so the CPU columns show the data path without most of its JIT compilation.
 fig6: FCT against flow size (--sizes, multiples of 4M) over --paths N (default 4), the same systems.
 fig7: K (default 20) 256 KiB mice, one every --interval s (default 2), over path 0 while a Virtuoso
       elephant paced to --elephant-rate (default 75% of one core link) runs on path 0 only
       ("single": no splitting) or split over N paths (default 4): CDF of the mice's FCT. The core
       links' tbf bucket is --burst (default 16kb) so that a mouse cannot pass as a burst.
 table2: chunk sizes cc-chunkprobe finds on lossy paths: the core links get a shallow tbf queue
       (--queue, default 64kb; bucket --burst, default 32kb), the soft RNIC a requester window
       larger than that (--window, default 512 packets) and QPs no retries (--retry, default 0), so
       a WR whose burst overflows the queue ends in RETRY_EXC_ERR; M (default 8) MP_WRITEs of 8 MiB
       per path. Max (sum over paths) and average chunk size per path count, goodput, and on the
       same links cc-chunkprobe with 7 retries, cc-fixed (1 MiB chunks, 7 retries, --fixed-msgs
       8 MiB messages per path, default 1; 0 skips it) and MPTCP (table2.csv). Then random loss (nftables) of each --loss percent on
       default queues, cc-chunkprobe (--loss-mib per path, default 32) beside cc-fixed (a quarter of
       that), both with 7 retries, over each of --loss-paths (table2-loss.csv; --loss none skips it).
       Each cc-chunkprobe transfer on the shallow queues (both retry settings) is preceded, in the same
       two JVMs, by --warmup M (default 2) MP_WRITEs of 8 MiB per path on a connection of its own that
       is not measured (bench --warmup): the JIT has compiled the data path, and the measured
       connection's chunk probe starts afresh; 0 = cold JVMs. cc-fixed and the random-loss table run cold.
 fig8: CPU time per transfer of a --size flow (default 128M) against the number of paths, for
       each message size of --msg-sizes: Virtuoso's client and server, transfer only.
 hetero: four core links of 200/100/50/25 Mbit/s (sum 375): --runs (default 5) transfers of --size
       (default 256M) per system, in turn: Virtuoso with the default policies, with lb-proportional,
       with lb-adaptive, and MPTCP; each link's share of the bytes from its counters. Then the rate
       change: four 100 Mbit/s links, link 1 drops to 25 Mbit/s 2 s into the transfer; link-level
       goodput per 250 ms (hetero-timeline.csv) and its mean from 2 s after the change to the end.
 all:  every experiment above; --size applies to fig5 and fig8.
Results: results/<experiment>/<experiment>.csv, PNGs, machine.txt (time, load), logs/.
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
# VT_PREFIX (as in testbed.sh) names the namespaces, so two experiments can run side by side
NS=${VT_PREFIX:-vt}
export VT_PREFIX=$NS
in_a() { ip netns exec "$NS-a" "$@"; }
in_b() { ip netns exec "$NS-b" "$@"; }
# the bench in host B or A; arrays, not functions, so that `"${BENCH_B[@]}" ... &` gives $! = the
# process that becomes java (ip netns exec execs it) and kill ends the JVM, not a subshell
BENCH_B=(ip netns exec "$NS-b" java -Djava.awt.headless=true -jar "$JAR" bench)
BENCH_A=(ip netns exec "$NS-a" java -Djava.awt.headless=true -jar "$JAR" bench)

# first N of a comma-separated list
first() { echo "$1" | cut -d, -f"1-$2"; }

# json FILE EXPR: a value from a JSON file (EXPR in Python over the parsed document `d`)
json() {
  $PY - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2], {"d": d}))
EOF
}

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
  stop_sampler
  stop_server
  stop_elephant
  tb down >/dev/null 2>&1 || true
}

# one Virtuoso transfer of SIZE bytes in messages of MSG over the first n vNICs, extra bench options
# after them; prints "fct_s client_cpu_s client_engine_cpu_s server_cpu_s server_engine_cpu_s
# client_whole_process_cpu_s" (engine: the virtuoso-* threads, without JIT, GC and framework threads)
run_virtuoso() {
  local n=$1 size=$2 msg=$3 tag=$4
  shift 4
  local iters=$(( size / $(bytes_of "$msg") )) va vb
  va=$(first "$VNICS_A" "$n"); vb=$(first "$VNICS_B" "$n")
  local sj=$LOG_DIR/virtuoso-server-$tag.json cj=$LOG_DIR/virtuoso-client-$tag.json
  rm -f "$sj" "$cj"
  # both ends take the client's policies (as in run_t2): the server's probe flows and its control
  # messages on the paths follow them too; the other options (warm-up) are the client's only
  local so=() a=("$@") i
  for ((i = 0; i < ${#a[@]}; i++)); do
    case ${a[i]} in --policy|--cc) so+=("${a[i]}" "${a[i + 1]}"); i=$((i + 1)) ;; esac
  done
  "${BENCH_B[@]}" -q "$n" --vnics "$vb" --wait 120 --json-file "$sj" "${so[@]}" >"$LOG_DIR/virtuoso-server-$tag.log" 2>&1 &
  SERVER_PID=$!
  wait_listen $BENCH_PORT
  # bash's `time`: the whole client process (JVM and OSGi start included), for comparison only
  local TIMEFORMAT='%U %S'
  local whole
  whole=$( { time "${BENCH_A[@]}" -q "$n" -s "$msg" -n "$iters" --vnics "$va" --report_gbits --json --json-file "$cj" "$@" \
      "$SERVER" >"$LOG_DIR/virtuoso-client-$tag.log" 2>&1; } 2>&1 )
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
  [[ -s "$cj" ]] || die "no Virtuoso result for $tag (see $LOG_DIR/virtuoso-client-$tag.log)"
  local r
  r=$(json "$cj" '"%.4f %.4f %.4f" % (d["results"][0]["seconds"], d["results"][0]["cpu"]["process_s"], d["results"][0]["cpu"]["virtuoso_threads_s"])')
  local server="-1 -1" machine
  [[ -s "$sj" ]] && server=$(json "$sj" '"%.4f %.4f" % (d["cpu"]["process_s"], d["cpu"]["virtuoso_threads_s"])')
  # the whole machine's busy CPU over the client's transfer (both JVMs, the kernel's softirq work)
  machine=$(json "$cj" '"%.4f" % d["results"][0]["cpu"].get("machine_s", -1)')
  awk -v r="$r" -v s="$server" -v w="$whole" -v m="$machine" 'BEGIN { split(w, u, " "); printf "%s %s %.3f %s\n", r, s, u[1] + u[2], m }'
}

# the machine's busy CPU time so far in seconds (/proc/stat: user nice system irq softirq steal)
machine_busy() { awk '/^cpu / { printf "%.2f\n", ($2 + $3 + $4 + $7 + $8 + $9) / 100; exit }' /proc/stat; }

# one iperf3 transfer (MPTCP when $1 is mptcp); prints the same seven fields as run_virtuoso (engines -1)
run_iperf() {
  local kind=$1 n=$2 size=$3 wrap=() i
  in_a ip mptcp endpoint flush
  if [[ $kind == mptcp ]]; then
    wrap=(mptcpize run)
    # the first vNIC carries the initial subflow (the default source address); one subflow per other
    # vNIC, at most 8 (the kernel's limit on endpoints and on extra subflows): MPTCP gets 9 paths at most
    for ((i = 2; i <= n && i <= 9; i++)); do in_a ip mptcp endpoint add "10.71.0.$i" dev a0 subflow; done
  fi
  ip netns exec "$NS-b" "${wrap[@]}" iperf3 -s -1 -p $IPERF_PORT >"$LOG_DIR/$kind-server-$n.log" 2>&1 &
  SERVER_PID=$!
  wait_listen $IPERF_PORT
  local t=$LOG_DIR/$kind-client-$n-$size.json
  local TIMEFORMAT='%U %S'
  local whole m0 m1
  m0=$(machine_busy)
  whole=$( { time in_a "${wrap[@]}" iperf3 -c "$SERVER" -p $IPERF_PORT -n "$size" -J >"$t" 2>"$LOG_DIR/$kind-client-$n.err"; } 2>&1 )
  m1=$(machine_busy)
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
  # iperf3's cpu_utilization_percent: getrusage user + system of each iperf3 process over the test,
  # which leaves out the kernel's softirq work on TCP/MPTCP done outside those processes
  $PY - "$t" "$size" "$whole" "$m0" "$m1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
if "error" in r:
    sys.exit("iperf3: " + r["error"])
bps = r["end"]["sum_received"]["bits_per_second"]
secs = r["end"]["sum_sent"]["seconds"]
cpu = r["end"]["cpu_utilization_percent"]
u, s = sys.argv[3].split()
print("%.4f %.4f -1 %.4f -1 %.3f %.2f" % (int(sys.argv[2]) * 8 / bps, cpu["host_total"] / 100 * secs,
                                  cpu["remote_total"] / 100 * secs, float(u) + float(s),
                                  float(sys.argv[5]) - float(sys.argv[4])))
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

# parses the options into upper-case variables; only those in $ALLOWED (set by the caller, with its
# defaults) are accepted
parse_opts() {
  local opt var
  while (($#)); do
    opt=$1
    [[ "$opt" == --* && " $ALLOWED " == *" $opt "* ]] || { echo "experiment: unknown option for this experiment: $opt" >&2; usage; }
    [[ $# -ge 2 && -n "$2" ]] || die "$opt needs a value"
    var=${opt#--}; var=${var//-/_}; var=${var^^}
    printf -v "$var" '%s' "$2"
    shift 2
  done
  local n s
  RBITS=$(bits_of_rate "$RATE")
  MAXN=0
  for n in $PATHS; do
    [[ "$n" =~ ^[0-9]+$ ]] && ((n >= 1 && n <= 16)) || die "path counts must be 1..16: $n"
    ((n > MAXN)) && MAXN=$n
  done
  ((MAXN > 0)) || die "--paths lists no path count"
  for s in $SIZE $SIZES; do
    s=$(bytes_of "$s")
    ((s % (4 << 20) == 0 && s > 0)) || die "flow sizes must be multiples of 4M: $s"
  done
}

# builds the testbed with MAXN links of RATE (extra testbed options after the name) and prepares
# results/$1; sets OUT, LOG_DIR, CSV
start() {
  local name=$1
  shift
  ensure_tools
  OUT="$ROOT/results/$name"
  LOG_DIR="$OUT/logs"
  rm -rf "$LOG_DIR"
  mkdir -p "$LOG_DIR"
  trap cleanup EXIT
  tb down >/dev/null 2>&1 || true
  tb up "$MAXN" "$RATE" "$@"
  # hosts' default source is vNIC 0, so bootstrap connections and the initial MPTCP subflow take core
  # link 0 (the ToRs' main tables have no route to the far host)
  in_a ip route replace 10.72.0.0/24 via 10.70.1.2 dev a0 src 10.71.0.1
  in_b ip route replace 10.71.0.0/24 via 10.70.2.1 dev b0 src 10.72.0.1
  for ns in "$NS-a" "$NS-b"; do ip netns exec "$ns" ip mptcp limits set subflow 8 add_addr_accepted 8; done
  VNICS_A=$(tb vnics a); VNICS_B=$(tb vnics b)
  CSV="$OUT/$name.csv"
  echo "start $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg) nproc $(nproc); rate $RATE; paths $PATHS; command: $CMDLINE" >"$OUT/machine.txt"
}

finish() {
  echo "end $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"
  tb down >/dev/null 2>&1 || true
  trap - EXIT
  "$PY" "$PLOT" "$1" "$CSV" "$OUT"
  echo "experiment: wrote $CSV and the PNGs in $OUT"
}

FLOW_HEADER="system,paths,bytes,link_rate_bps,fct_s,goodput_bps,pct_of_capacity,client_cpu_s,client_engine_cpu_s,server_cpu_s,server_engine_cpu_s,client_whole_process_cpu_s,machine_cpu_s,machine_cpu_s_per_gib"

# one transfer of BYTES over N paths with SYSTEM, appended to the CSV
measure() {
  local sys=$1 n=$2 bytes=$3 r fct ccpu ecpu scpu secpu whole machine
  case $sys in
    virtuoso) r=$(run_virtuoso "$n" "$bytes" "$MSG" "$n-$bytes" $(warmup "$n")) ;;
    # the paper's load balancer (probe + proportional split) beside the default policies
    virtuoso-proportional) r=$(run_virtuoso "$n" "$bytes" "$MSG" "$n-$bytes-prop" --policy lb-proportional $(warmup "$n")) ;;
    *) r=$(run_iperf "$sys" "$n" "$bytes") ;;
  esac
  read -r fct ccpu ecpu scpu secpu whole machine <<<"$r"
  awk -v s="$sys" -v n="$n" -v b="$bytes" -v r="$RBITS" -v f="$fct" -v c="$ccpu" -v e="$ecpu" -v sc="$scpu" -v se="$secpu" -v w="$whole" -v m="$machine" \
    'BEGIN { g = b * 8 / f; printf "%s,%d,%d,%d,%.4f,%.0f,%.1f,%.4f,%s,%.4f,%s,%.3f,%s,%s\n", s, n, b, r, f, g, 100 * g / (n * r), c, (e < 0 ? "" : sprintf("%.4f", e)), sc, (se < 0 ? "" : sprintf("%.4f", se)), w, (m < 0 ? "" : sprintf("%.2f", m)), (m < 0 ? "" : sprintf("%.2f", m * 1073741824 / b)) }' \
    | tee -a "$CSV"
}

fig5() {
  SIZE=128M SIZES= RATE=100mbit PATHS="1 2 4 6 8 10" WARMUP=0 ALLOWED="--size --rate --paths --warmup"
  parse_opts "$@"
  [[ "$WARMUP" =~ ^[0-9]+$ ]] && ((WARMUP <= 100)) || die "--warmup must be 0..100 messages per path"
  local bytes n sys
  bytes=$(bytes_of "$SIZE")
  start fig5
  echo "$FLOW_HEADER" >"$CSV"
  for n in $PATHS; do
    for sys in virtuoso virtuoso-proportional mptcp tcp; do measure $sys "$n" "$bytes"; done
  done
  finish fig5
}

fig6() {
  SIZE= SIZES="16M 64M 256M 1G" RATE=100mbit PATHS=4 ALLOWED="--sizes --rate --paths"
  parse_opts "$@"
  [[ "$PATHS" =~ ^[0-9]+$ ]] || die "fig6 takes one path count: --paths N"
  local s sys
  start fig6
  echo "$FLOW_HEADER" >"$CSV"
  for s in $SIZES; do
    for sys in virtuoso virtuoso-proportional mptcp tcp; do measure $sys "$PATHS" "$(bytes_of "$s")"; done
  done
  finish fig6
}

# the elephant: a bench pair in the background over the first n vNICs, MP_WRITE of 256 KiB messages
# paced to RATE bit/s; server and client PIDs in ELEPHANT_PIDS
ELEPHANT_PIDS=()
ELEPHANT_MSG=262144
start_elephant() {
  local n=$1 rate_bps=$2 seconds=$3 iters
  iters=$(( rate_bps / 8 * seconds / ELEPHANT_MSG + 1 ))
  # ip netns exec execs java, so $! is java itself and stop_elephant can end it
  "${BENCH_B[@]}" -q "$n" --vnics "$(first "$VNICS_B" "$n")" --wait 120 >"$LOG_DIR/elephant-server-$n.log" 2>&1 &
  ELEPHANT_PIDS=($!)
  wait_listen $BENCH_PORT
  "${BENCH_A[@]}" -q "$n" --vnics "$(first "$VNICS_A" "$n")" -s $ELEPHANT_MSG -n "$iters" -t 4 --rate "$rate_bps" \
      "$SERVER" >"$LOG_DIR/elephant-client-$n.log" 2>&1 &
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

# COUNT 256 KiB mice over vNIC 0, one every INTERVAL s (one bench pair on its own bootstrap and UDP
# ports, paced by --rate, every message's FCT from the bench's --fct); one more mouse goes first and
# is not counted (it carries the JIT's and the new connection's first-use costs); prints one FCT per line
MOUSE_PORT=18600
MOUSE_UDP=4800
run_mice() {
  local tag=$1 count=$2 interval=$3 t=$LOG_DIR/mice-$1.json rate
  rate=$(awk -v i="$interval" 'BEGIN { printf "%d", 262144 * 8 / i }')
  "${BENCH_B[@]}" -q 1 --vnics 10.72.0.1 -p $MOUSE_PORT --udp-port $MOUSE_UDP --wait 120 >"$LOG_DIR/mice-server-$tag.log" 2>&1 &
  SERVER_PID=$!
  wait_listen $MOUSE_PORT
  "${BENCH_A[@]}" -q 1 --vnics 10.71.0.1 -p $MOUSE_PORT --udp-port $MOUSE_UDP -s 256K -n "$((count + 1))" -t 1 --rate "$rate" --fct \
      --report_gbits --json-file "$t" "$SERVER" >"$LOG_DIR/mice-client-$tag.log" 2>&1 \
      || die "the mice failed (see $LOG_DIR/mice-client-$tag.log)"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
  json "$t" '"\n".join("%.6f" % f for f in d["results"][0]["fct_s"][1:])'
}

fig7() {
  SIZE= SIZES= RATE=100mbit PATHS=4 COUNT=20 INTERVAL=2 ELEPHANT_RATE= BURST=16kb
  ALLOWED="--count --interval --elephant-rate --rate --paths --burst"
  parse_opts "$@"
  [[ "$PATHS" =~ ^[0-9]+$ ]] && ((PATHS >= 2)) || die "fig7 takes one path count >= 2: --paths N"
  [[ "$COUNT" =~ ^[0-9]+$ ]] && ((COUNT >= 1 && COUNT <= 10000)) || die "--count must be 1..10000"
  [[ "$INTERVAL" =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v i="$INTERVAL" 'BEGIN { exit !(i >= 0.05 && i <= 60) }' \
    || die "--interval must be 0.05..60 seconds: $INTERVAL"
  local erate
  if [[ -n "$ELEPHANT_RATE" ]]; then erate=$(bits_of_rate "$ELEPHANT_RATE"); else erate=$((RBITS * 3 / 4)); fi
  ((erate <= RBITS)) || die "--elephant-rate must not exceed one core link's --rate (the single elephant shares one link)"
  # a small tbf bucket: with the default 256 kB one a 256 KiB mouse would pass a lightly loaded link
  # at the access links' speed, whatever shares it
  start fig7 --burst "$BURST"
  echo "mode,elephant_paths,elephant_rate_bps,sample,mouse_bytes,fct_s" >"$CSV"
  local mode n i f seconds fcts
  seconds=$(awk -v c="$COUNT" -v i="$INTERVAL" 'BEGIN { printf "%d", c * i + 60 }')
  for mode in single split; do
    n=1; [[ $mode == split ]] && n=$PATHS
    start_elephant "$n" "$erate" "$seconds"
    fcts=$(run_mice "$mode" "$COUNT" "$INTERVAL")
    i=0
    for f in $fcts; do
      i=$((i + 1))
      echo "$mode,$n,$erate,$i,262144,$f" | tee -a "$CSV"
    done
    tb status >"$LOG_DIR/links-$mode.txt"
    stop_elephant
  done
  finish fig7
}

# --- Table 2 and the random-loss table -------------------------------------------------------------

# packets the core links dropped so far (tbf, A->B)
link_drops() { tb status | grep -o 'dropped [0-9]*' | awk '{ s += $2 } END { print s + 0 }'; }

# a fresh testbed of MAXN core links with the tbf options given (zeroed drop counters)
t2_testbed() {
  tb down >/dev/null 2>&1 || true
  tb up "$MAXN" "$RATE" "$@" >/dev/null
  in_a ip route replace 10.72.0.0/24 via 10.70.1.2 dev a0 src 10.71.0.1
  in_b ip route replace 10.71.0.0/24 via 10.70.2.1 dev b0 src 10.72.0.1
  local ns
  for ns in "$NS-a" "$NS-b"; do ip netns exec "$ns" ip mptcp limits set subflow 8 add_addr_accepted 8; done
  VNICS_A=$(tb vnics a); VNICS_B=$(tb vnics b)
}

# random loss of PCT percent on every core link, both ways (nftables in the ToRs: netem is missing)
set_loss() {
  local pct=$1 ns side devs i per100k
  per100k=$(awk -v p="$pct" 'BEGIN { printf "%d", p * 1000 + 0.5 }')
  for ns in "$NS-tor1:a" "$NS-tor2:b"; do
    side=${ns#*:}; ns=${ns%:*}
    ip netns exec "$ns" nft delete table ip vtloss 2>/dev/null || true
    ((per100k > 0)) || continue
    devs=
    for ((i = 0; i < MAXN; i++)); do devs+="${devs:+, }\"c$i$side\""; done
    printf '%s\n' "table ip vtloss {" "  chain lossy {" \
      "    type filter hook forward priority 0; policy accept;" \
      "    oifname { $devs } numgen random mod 100000 < $per100k counter drop" "  }" "}" \
      | ip netns exec "$ns" nft -f -
  done
}

# packets the random loss dropped so far
loss_drops() {
  local ns
  for ns in "$NS-tor1" "$NS-tor2"; do ip netns exec "$ns" nft list table ip vtloss 2>/dev/null || true; done \
    | grep -o 'packets [0-9]*' | awk '{ s += $2 } END { print s + 0 }'
}

# one bench transfer of BYTES (8 MiB messages, 2 outstanding) over the first n vNICs, bench options
# after TAG; the client's JSON in $LOG_DIR/virtuoso-client-TAG.json. Fails if the client fails or runs
# past T2_TIMEOUT seconds (cc-fixed on a lossy link may crawl) instead of ending the experiment.
run_t2() {
  local n=$1 bytes=$2 tag=$3 rc=0
  shift 3
  local va vb cj=$LOG_DIR/virtuoso-client-$tag.json
  va=$(first "$VNICS_A" "$n"); vb=$(first "$VNICS_B" "$n")
  rm -f "$cj"
  # both ends take the same options (perftest's rule): the server's probe flows and QPs follow the
  # same congestion policy, retry count, window and ACK timeout as the client's
  "${BENCH_B[@]}" -q "$n" --vnics "$vb" --wait 120 --json-file "$LOG_DIR/virtuoso-server-$tag.json" "$@" \
      >"$LOG_DIR/virtuoso-server-$tag.log" 2>&1 &
  SERVER_PID=$!
  wait_listen $BENCH_PORT
  timeout "$T2_TIMEOUT" "${BENCH_A[@]}" -q "$n" -s 8M -n $((bytes >> 23)) -t 2 --vnics "$va" --report_gbits --json \
      --json-file "$cj" "$@" "$SERVER" >"$LOG_DIR/virtuoso-client-$tag.log" 2>&1 || rc=$?
  if ((rc == 0)); then
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
  else
    stop_server
  fi
  ((rc == 0)) && [[ -s "$cj" ]]
}

# CSV fields of a finished run_t2 over n paths:
# bytes,fct_s,goodput_bps,pct_of_capacity,sum_safe_chunk_bytes,sum_max_chunk_bytes,avg_chunk_bytes,losses
t2_fields() {
  local n=$1 tag=$2
  json "$LOG_DIR/virtuoso-client-$tag.json" '(lambda r, c, g: ",".join(str(x) for x in [
      r["bytes"] * r["iterations"], "%.4f" % r["seconds"], "%.0f" % g, "%.1f" % (100 * g / ('"$n * $RBITS"')),
      sum(p["safe_chunk_bytes"] for p in c), sum(p["max_completed_chunk_bytes"] for p in c),
      sum(p["avg_completed_chunk_bytes"] for p in c) // max(1, len(c)), sum(p["losses"] for p in c)]))(
      d["results"][0], d.get("chunk_stats", []),
      d["results"][0]["bytes"] * d["results"][0]["iterations"] * 8 / d["results"][0]["seconds"])'
}

# "client_cpu_s,server_cpu_s" of a finished run_t2: each JVM's process CPU time over the transfer
# (the machine's 2 cores carry both soft RNICs; at 10 paths this shows how close it is to CPU-bound)
t2_cpu() {
  local tag=$1 c s=
  c=$(json "$LOG_DIR/virtuoso-client-$tag.json" '"%.3f" % d["results"][0]["cpu"]["process_s"]')
  [[ -s "$LOG_DIR/virtuoso-server-$tag.json" ]] && s=$(json "$LOG_DIR/virtuoso-server-$tag.json" '"%.3f" % d["cpu"]["process_s"]')
  echo "$c,$s"
}

# "path_repairs,mean_repair_ms" of a finished run_t2: the client's QP repairs (a path leaving the
# placement, UP -> RECOVERING, until it is UP again) from its path-event log, and how long the path
# was out on average
t2_repairs() {
  local log=$LOG_DIR/virtuoso-client-$1.log
  [[ -s "$log" ]] || { echo ","; return; }
  $PY - "$log" <<'PYEOF'
import re, sys
out, down, total = 0, {}, 0.0
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"(\d+):(\d+):(\d+\.\d+) \S*PathLifecycle path (\d+): (\w+) -> (\w+)", line)
    if not m:
        continue
    t = (int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))) * 1000
    path, old, new = int(m.group(4)), m.group(5), m.group(6)
    if old == "UP" and new == "RECOVERING":
        down[path] = t
    elif old == "RECOVERING" and new == "UP" and path in down:
        out += 1
        total += (t - down.pop(path)) % 86400000
print("%d,%s" % (out, "%.1f" % (total / out) if out else ""))
PYEOF
}

# --warmup of a bench pair over n paths: WARMUP messages of 8 MiB per path on a first connection
# that is not measured (the JVMs' JIT compiles the data path; the measured connection's chunk probe
# starts afresh), nothing with --warmup 0
warmup() {
  ((WARMUP > 0)) && echo "--warmup $((WARMUP * $1))"
  return 0
}

# --cc of table2's cc-chunkprobe runs (both tables): T2_CC_PROPS=key=value,... in the environment
# gives them other settings than the policy's defaults
probe_cc() {
  echo "cc-chunkprobe${T2_CC_PROPS:+:$T2_CC_PROPS}"
}

# Table 2: per path count a fresh testbed with shallow queues and four systems on it, one after the
# other: cc-chunkprobe with --retry (default 0) and with 7 retries, cc-fixed (its defaults: 1 MiB
# chunks, 4 per path) and MPTCP. Then the
# random-loss table (default queues, nftables drops): cc-chunkprobe beside cc-fixed.
table2() {
  SIZE= SIZES= RATE=100mbit PATHS="1 2 4 6 8 10" MSGS=8 QUEUE=64kb BURST=32kb WINDOW=512 RETRY=0
  FIXED_MSGS=1 LOSS="0.1 1 5" LOSS_PATHS="1 4" LOSS_MIB=32 T2_TIMEOUT=150 WARMUP=2
  ALLOWED="--paths --msgs --queue --burst --window --retry --rate --fixed-msgs --loss --loss-paths --loss-mib --warmup"
  parse_opts "$@"
  [[ "$MSGS" =~ ^[0-9]+$ ]] && ((MSGS >= 1 && MSGS <= 1000)) || die "--msgs must be 1..1000"
  [[ "$FIXED_MSGS" =~ ^[0-9]+$ ]] && ((FIXED_MSGS <= 1000)) || die "--fixed-msgs must be 0..1000"
  [[ "$WINDOW" =~ ^[0-9]+$ ]] && ((WINDOW >= 8 && WINDOW <= 4096)) || die "--window must be 8..4096 packets"
  [[ "$RETRY" =~ ^[0-7]$ ]] || die "--retry must be 0..7"
  [[ "$WARMUP" =~ ^[0-9]+$ ]] && ((WARMUP <= 100)) || die "--warmup must be 0..100 messages per path"
  [[ "$LOSS_MIB" =~ ^[0-9]+$ ]] && ((LOSS_MIB >= 8 && LOSS_MIB % 8 == 0 && LOSS_MIB <= 4096)) \
    || die "--loss-mib must be a multiple of 8 in 8..4096"
  [[ "$LOSS" == none ]] && LOSS=
  local l n
  for l in $LOSS; do
    [[ "$l" =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v l="$l" 'BEGIN { exit !(l <= 50) }' \
      || die "--loss values are percentages 0..50: $l"
  done
  # (the loss table's path counts matter only when it runs)
  for n in ${LOSS:+$LOSS_PATHS}; do
    [[ "$n" =~ ^[0-9]+$ ]] && ((n >= 1 && n <= MAXN)) || die "--loss-paths must be 1..the largest of --paths: $n"
  done
  start table2 --queue "$QUEUE" --burst "$BURST"
  echo "warm-up: $WARMUP MP_WRITEs of 8 MiB per path on a first, unmeasured connection before each cc-chunkprobe transfer on the shallow queues" \
    >>"$OUT/machine.txt"
  # the core's path-event log (DEBUG) in the clients' logs, for the repair columns
  local jul=$OUT/path-events.properties
  printf '%s\n' 'handlers=java.util.logging.ConsoleHandler' 'java.util.logging.ConsoleHandler.level=FINE' \
    'java.util.logging.SimpleFormatter.format=%1$tT.%1$tL %3$s %5$s%n' '.level=INFO' \
    'dev.virtuoso.qpmanager.internal.engine.PathLifecycle.level=FINE' \
    'dev.virtuoso.policy.cc.chunkprobe.ChunkProbeSession.level=FINE' >"$jul"
  local BENCH_A=(ip netns exec "$NS-a" java -Djava.awt.headless=true "-Djava.util.logging.config.file=$jul" -jar "$JAR" bench)
  if [[ -n "$LOSS" ]] && ! command -v nft >/dev/null; then
    echo "experiment: installing nftables (apt-get)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q nftables >&2 || die "could not install nftables"
  fi
  echo "system,paths,bytes,link_rate_bps,fct_s,goodput_bps,pct_of_capacity,sum_safe_chunk_bytes,sum_max_chunk_bytes,avg_chunk_bytes,losses,tbf_drops,queue,burst,window_packets,retry,client_cpu_s,server_cpu_s,path_repairs,mean_repair_ms" >"$CSV"
  local bytes d0 f r fct cpu fresh=0
  # ACK timeout 2^12 x 4.096 us = 17 ms: longer than the shallow queue's drain, short enough to
  # find the threshold within the run
  local qp=(--window "$WINDOW" --ack-timeout 12)
  local row='{ print $1, $2, $3, r, $4, $5, $6, $7, $8, $9, $10, d, tail }'
  for n in $PATHS; do
    ((fresh)) && t2_testbed --queue "$QUEUE" --burst "$BURST"
    fresh=1
    bytes=$((MSGS * n * (8 << 20)))
    d0=$(link_drops)
    f=",,,,,,,"
    cpu=","
    run_t2 "$n" "$bytes" "t2-$n" --cc "$(probe_cc)" --retry "$RETRY" "${qp[@]}" $(warmup "$n") && f=$(t2_fields "$n" "t2-$n") \
      && cpu=$(t2_cpu "t2-$n")
    cpu="$cpu,$(t2_repairs "t2-$n")"
    echo "cc-chunkprobe,$n,$f" | awk -F, -v OFS=, -v r="$RBITS" -v d=$(($(link_drops) - d0)) \
      -v tail="$QUEUE,$BURST,$WINDOW,$RETRY,$cpu" "$row" | tee -a "$CSV"
    # the same probe with the QP default of 7 retries: go-back-N repairs the overflow, no QP fails,
    # and the probe backs off on the slowdown of its chunks instead
    d0=$(link_drops)
    f=",,,,,,,"
    cpu=","
    run_t2 "$n" "$bytes" "t2-r7-$n" --cc "$(probe_cc)" --retry 7 "${qp[@]}" $(warmup "$n") && f=$(t2_fields "$n" "t2-r7-$n") \
      && cpu=$(t2_cpu "t2-r7-$n")
    cpu="$cpu,$(t2_repairs "t2-r7-$n")"
    echo "cc-chunkprobe-retry7,$n,$f" | awk -F, -v OFS=, -v r="$RBITS" -v d=$(($(link_drops) - d0)) \
      -v tail="$QUEUE,$BURST,$WINDOW,7,$cpu" "$row" | tee -a "$CSV"
    if ((FIXED_MSGS > 0)); then
      # cc-fixed's 1 MiB WRs overflow the shallow queue every time: with no retries none could ever
      # complete, so it keeps the QP default of 7 retries (go-back-N repairs the losses)
      d0=$(link_drops)
      f=",,,,,,,"
      cpu=","
      run_t2 "$n" $((FIXED_MSGS * n * (8 << 20))) "t2-fixed-$n" --cc cc-fixed --retry 7 "${qp[@]}" \
        && f=$(t2_fields "$n" "t2-fixed-$n") && cpu=$(t2_cpu "t2-fixed-$n")
      cpu="$cpu,$(t2_repairs "t2-fixed-$n")"
      echo "cc-fixed-1m,$n,$f" | awk -F, -v OFS=, -v r="$RBITS" -v d=$(($(link_drops) - d0)) \
        -v tail="$QUEUE,$BURST,$WINDOW,7,$cpu" '{ print $1, $2, $3, r, $4, $5, $6, "", "", "", "", d, tail }' | tee -a "$CSV"
    fi
    d0=$(link_drops)
    r=$(run_iperf mptcp "$n" "$bytes")
    fct=${r%% *}
    awk -v n="$n" -v b="$bytes" -v r="$RBITS" -v f="$fct" -v d=$(($(link_drops) - d0)) -v tail="$QUEUE,$BURST,,,,,," \
      'BEGIN { g = b * 8 / f; printf "mptcp,%d,%d,%d,%.4f,%.0f,%.1f,,,,,%d,%s\n", n, b, r, f, g, 100 * g / (n * r), d, tail }' \
      | tee -a "$CSV"
    echo "$r" >"$LOG_DIR/mptcp-t2-$n.txt"
  done
  table2_loss "${qp[@]}"
  finish table2
}

# the random-loss table: default (deep) queues, LOSS percent dropped at random on every core link;
# both systems keep the QP default of 7 retries, so a lost packet costs a go-back-N, not the QP.
table2_loss() {
  local lcsv="$OUT/table2-loss.csv" l n sys cc bytes d0 f
  echo "system,paths,loss_pct,bytes,link_rate_bps,fct_s,goodput_bps,pct_of_capacity,sum_safe_chunk_bytes,avg_chunk_bytes,chunk_failures,dropped_packets,retry,status" >"$lcsv"
  [[ -n "$LOSS" ]] || return 0
  t2_testbed
  for l in $LOSS; do
    set_loss "$l"
    for n in $LOSS_PATHS; do
      for cc in cc-chunkprobe cc-fixed; do
        sys=$cc
        bytes=$((LOSS_MIB * n << 20))
        if [[ $cc == cc-fixed ]]; then
          sys=cc-fixed-1m
          bytes=$(((LOSS_MIB / 4 > 8 ? LOSS_MIB / 4 : 8) * n << 20))
        fi
        d0=$(loss_drops)
        local ccarg=$cc
        [[ $cc == cc-chunkprobe ]] && ccarg=$(probe_cc)
        if run_t2 "$n" "$bytes" "loss-$l-$n-$cc" --cc "$ccarg" --retry 7 "$@"; then
          f="$(t2_fields "$n" "loss-$l-$n-$cc"),ok"
        else
          f="$bytes,,,,,,,,failed or over ${T2_TIMEOUT} s"
        fi
        echo "$sys,$n,$l,$f" | awk -F, -v OFS=, -v r="$RBITS" -v d=$(($(loss_drops) - d0)) \
          '{ print $1, $2, $3, $4, r, $5, $6, $7, $8, $10, $11, d, 7, $12 }' | tee -a "$lcsv"
      done
    done
  done
  set_loss 0
}

# Fig. 8: Virtuoso's CPU per transfer against paths, one line per message size
fig8() {
  SIZE=128M SIZES= RATE=100mbit PATHS="1 2 4 6 8 10" MSG_SIZES="256K 1M 4M" ALLOWED="--size --msg-sizes --rate --paths"
  parse_opts "$@"
  local bytes m n r fct ccpu ecpu scpu secpu whole
  bytes=$(bytes_of "$SIZE")
  for m in $MSG_SIZES; do
    m=$(bytes_of "$m")
    ((m >= 4096 && m <= (8 << 20) && bytes % m == 0)) || die "--msg-sizes must be 4K..8M and divide --size: $m"
  done
  start fig8
  echo "paths,msg_bytes,bytes,fct_s,client_cpu_s,client_engine_cpu_s,server_cpu_s,server_engine_cpu_s,client_whole_process_cpu_s,machine_cpu_s" >"$CSV"
  for m in $MSG_SIZES; do
    for n in $PATHS; do
      r=$(run_virtuoso "$n" "$bytes" "$m" "f8-$n-$m")
      read -r fct ccpu ecpu scpu secpu whole machine <<<"$r"
      # an unknown machine CPU (negative) is an empty cell, as in fig5's and fig6's CSVs
      [[ $machine == -* ]] && machine=
      echo "$n,$(bytes_of "$m"),$bytes,$fct,$ccpu,$ecpu,$scpu,$secpu,$whole,$machine" | tee -a "$CSV"
    done
  done
  finish fig8
}

# --- hetero: heterogeneous core links (200/100/50/25 Mbit/s) and a rate change ---

# the core links' A->B bytes sent so far, one number per link, space-separated
link_sent() {
  local i out=
  for ((i = 0; i < MAXN; i++)); do
    out+="$(ip netns exec "$NS-tor1" cat "/sys/class/net/c${i}a/statistics/tx_bytes") "
  done
  echo "${out% }"
}

# a sampler in ToR1: every 100 ms "epoch_ms bytes_link0 .. bytes_linkN-1" into $1; PID in SAMPLER_PID
SAMPLER_PID=
start_sampler() {
  local devs="" i
  for ((i = 0; i < MAXN; i++)); do devs+=" c${i}a"; done
  ip netns exec "$NS-tor1" bash -c 'while :; do l=$(date +%s%3N); for d in '"$devs"'; do
      read -r b <"/sys/class/net/$d/statistics/tx_bytes"; l="$l $b"; done; echo "$l"; sleep 0.1; done' >"$1" &
  SAMPLER_PID=$!
}
stop_sampler() {
  [[ -n "$SAMPLER_PID" ]] || return 0
  kill "$SAMPLER_PID" 2>/dev/null || true
  wait "$SAMPLER_PID" 2>/dev/null || true
  SAMPLER_PID=
}

# one transfer of SYSTEM (default, lb-NAME, mptcp) over the links; prints its FCT in seconds and
# writes the links' byte counts during it (space-separated) to $LOG_DIR/$tag.links
hetero_transfer() {
  local sys=$1 bytes=$2 tag=$3 before after r
  before=$(link_sent)
  case $sys in
    default) r=$(run_virtuoso "$MAXN" "$bytes" "$MSG" "$tag") ;;
    lb-*) r=$(run_virtuoso "$MAXN" "$bytes" "$MSG" "$tag" --policy "$sys") ;;
    mptcp) r=$(run_iperf mptcp "$MAXN" "$bytes") ;;
  esac
  after=$(link_sent)
  paste -d' ' <(tr ' ' '\n' <<<"$before") <(tr ' ' '\n' <<<"$after") \
    | awk '{ printf "%s%d", (NR > 1 ? " " : ""), $2 - $1 } END { print "" }' >"$LOG_DIR/$tag.links"
  echo "${r%% *}"
}

# link shares in percent of the bytes the links carried: "s0,s1,..."
shares() {
  awk '{ t = 0; for (i = 1; i <= NF; i++) t += $i; for (i = 1; i <= NF; i++) printf "%s%.1f", (i > 1 ? "," : ""), (t ? 100 * $i / t : 0) }' "$1"
}

# link-level goodput per 250 ms window from 4 s before the change (appended to TIMELINE as
# system,t_s,bps, t relative to the change) and "before after span": the mean over the 1.5 s before the change and from 2 s after it
# to the end of the flow's data
timeline() {
  $PY - "$1" "$2" "$3" "$4" <<'EOF'
import sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1]) if len(l.split()) > 1]
change, sysname = int(sys.argv[2]), sys.argv[3]
tot = [(r[0], sum(r[1:])) for r in rows]
# the flow's end: the last 100 ms sample that moved more than 64 KiB; the links also carry a few
# control packets after the flow (its disconnect), which must not stretch the window with idle time
end = max(t for (t, b), (_, pb) in zip(tot[1:], tot[:-1]) if b - pb > 65536)
def at(t):
    best = tot[0]
    for s in tot:
        if s[0] <= t:
            best = s
    return best
with open(sys.argv[4], "a") as out:
    t = max(tot[0][0], change - 4000)
    while t + 250 <= end:
        a, b = at(t), at(t + 250)
        if b[0] > a[0]:
            out.write("%s,%.3f,%.0f\n" % (sysname, (t - change) / 1000, (b[1] - a[1]) * 8000 / (b[0] - a[0])))
        t += 250
def rate(t1, t2):
    a, b = at(t1), at(t2)
    return (b[1] - a[1]) * 8000 / max(1, b[0] - a[0])
print("%.0f %.0f %.2f" % (rate(change - 1500, change), rate(change + 2000, end), (end - change - 2000) / 1000))
EOF
}

hetero() {
  SIZE=256M SIZES= RATE=100mbit PATHS=4 RUNS=5 SYSTEMS="default lb-proportional lb-adaptive mptcp"
  ALLOWED="--size --runs --systems"
  parse_opts "$@"
  [[ "$RUNS" =~ ^[0-9]+$ ]] && ((RUNS >= 1 && RUNS <= 100)) || die "--runs must be 1..100"
  local sys
  for sys in $SYSTEMS; do
    [[ "$sys" =~ ^(default|lb-[a-z]+|mptcp)$ ]] || die "--systems: default, lb-NAME or mptcp: $sys"
  done
  local rates=(200mbit 100mbit 50mbit 25mbit) capacity=375000000 bytes run fct g i
  bytes=$(bytes_of "$SIZE")
  start hetero
  for i in 0 1 2 3; do tb rate "$i" "${rates[$i]}"; done
  tb status >"$LOG_DIR/links-hetero.txt"
  echo "kind,run,system,bytes,capacity_bps,fct_s,goodput_bps,pct_of_capacity,link0_pct,link1_pct,link2_pct,link3_pct" >"$CSV"
  for ((run = 1; run <= RUNS; run++)); do
    for sys in $SYSTEMS; do
      fct=$(hetero_transfer "$sys" "$bytes" "h-$sys-$run")
      g=$(awk -v b="$bytes" -v f="$fct" 'BEGIN { printf "%.0f", b * 8 / f }')
      echo "steady,$run,$sys,$bytes,$capacity,$fct,$g,$(awk -v g="$g" -v c=$capacity 'BEGIN { printf "%.1f", 100 * g / c }'),$(shares "$LOG_DIR/h-$sys-$run.links")" \
        | tee -a "$CSV"
    done
  done
  # the rate change: 4 x 100 Mbit/s; 2 s into the transfer link 1 drops to 25 Mbit/s (new sum 325)
  local tl="$OUT/hetero-timeline.csv" samples change_ms res tpid base before after span
  echo "system,t_s,link_bps_sum" >"$tl"
  for sys in $SYSTEMS; do
    for i in 0 1 2 3; do tb rate "$i" 100mbit; done
    samples="$LOG_DIR/samples-$sys.txt"
    start_sampler "$samples"
    base=$(link_sent | cut -d' ' -f1)
    hetero_transfer "$sys" "$bytes" "c-$sys" >"$LOG_DIR/c-$sys.fct" &
    tpid=$!
    # wait for the flow to run (4 MB on link 0), then 2 s more
    for ((i = 0; i < 1200; i++)); do
      (($(link_sent | cut -d' ' -f1) - base > 4000000)) && break
      sleep 0.1
    done
    sleep 2
    change_ms=$(date +%s%3N)
    tb rate 1 25mbit
    wait "$tpid" || die "the rate-change transfer of $sys failed (see $LOG_DIR)"
    stop_sampler
    fct=$(cat "$LOG_DIR/c-$sys.fct")
    res=$(timeline "$samples" "$change_ms" "$sys" "$tl")
    read -r before after span <<<"$res"
    echo "change,1,$sys,$bytes,325000000,$fct,$after,$(awk -v g="$after" 'BEGIN { printf "%.1f", 100 * g / 325000000 }'),$(shares "$LOG_DIR/c-$sys.links")" \
      | tee -a "$CSV"
    echo "rate change, $sys: link level $before bit/s in the 1.5 s before (of 400M), $after bit/s from 2 s after to the end ($span s)" \
      | tee -a "$OUT/machine.txt"
  done
  finish hetero
}

all() {
  SIZE=128M
  if (($#)); then
    [[ $# -eq 2 && "$1" == --size ]] || { echo "experiment: 'all' takes only --size BYTES" >&2; usage; }
    SIZE=$2
  fi
  local b
  b=$(bytes_of "$SIZE")
  ((b > 0 && b % (4 << 20) == 0)) || die "--size must be a multiple of 4M: $SIZE"
  local t0=$SECONDS e t failed=()
  for e in "fig5 --size $SIZE" fig6 fig7 table2 "fig8 --size $SIZE" hetero; do
    t=$SECONDS
    echo "experiment: === $e ($(date -u +%T)) ===" >&2
    # each in its own shell (its own testbed, traps and option defaults); a failure does not stop the rest
    # shellcheck disable=SC2086 # $e is the experiment and its options
    if bash "${BASH_SOURCE[0]}" $e; then
      echo "experiment: $e took $((SECONDS - t)) s" >&2
    else
      failed+=("${e%% *}")
    fi
  done
  echo "experiment: all done in $((SECONDS - t0)) s; results in $ROOT/results/{fig5,fig6,fig7,table2,fig8,hetero}" >&2
  ((${#failed[@]} == 0)) || die "failed: ${failed[*]} (see their logs/)"
}

CMDLINE="experiment $*"
cmd=${1:-}
[[ -n "$cmd" ]] || usage
shift
case "$cmd" in
  fig5|fig6|fig7|table2|fig8|hetero|all) "$cmd" "$@" ;;
  -h|--help|help) usage ;;
  *) echo "experiment: unknown experiment '$cmd'" >&2; usage ;;
esac
