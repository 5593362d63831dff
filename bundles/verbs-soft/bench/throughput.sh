#!/usr/bin/env bash
# Throughput of one soft-RNIC RC QP on the UDP wire, next to iperf3 -u and Aeron on the same link.
#
#   sudo bundles/verbs-soft/bench/throughput.sh [SECONDS_PER_POINT] [SIZES] [LINKS]
#
# Environment: ICRC=off turns the soft RNIC's receive-side ICRC check off (default on);
# SOFT_ONLY=1 skips iperf3 and Aeron (for comparing soft RNIC settings).
#
# Links: "loopback" (lo of a private network namespace) and "veth" (two namespaces joined by a
# veth pair with MTU 9000, 198.18.0.1 <-> 198.18.0.2, the RFC 2544 benchmarking range).
# For each link: (a) SoftThroughputBench server/client, RDMA WRITE and READ of each size;
# (b) iperf3 -u -b 0 with the soft RNIC's datagram size (4112 bytes: BTH + 4096 payload + ICRC);
# (c) Aeron 4 KiB messages (io.aeron:aeron-all, resolved by Maven), its own driver directory per
# run: EmbeddedThroughput on loopback, StreamingPublisher -> RateSubscriber across the veth.
# Needs root (netns, sysctl), Java 17+, Maven, iperf3, python3. Everything it makes is removed on exit.
set -euo pipefail

SECONDS_PER_POINT=${1:-3}
SIZES=${2:-64k,256k,1m,4m,8m}
LINKS=${3:-loopback veth}
AERON_VERSION=1.47.4
DATAGRAM=4112
NS_A=vbench-a
NS_B=vbench-b
ADDR_A=198.18.0.1
ADDR_B=198.18.0.2

HERE=$(cd "$(dirname "$0")" && pwd)
MODULE=$(cd "$HERE/.." && pwd)
ROOT=$(cd "$MODULE/../.." && pwd)
OUT=$MODULE/target/bench
mkdir -p "$OUT"
STAMP=$(date +%Y%m%d-%H%M%S)
LOG=$OUT/throughput-$STAMP.log
RESULTS=$OUT/throughput-$STAMP.md

ICRC=${ICRC:-on}
SOFT_ONLY=${SOFT_ONLY:-0}
[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces, sysctl)" >&2; exit 1; }
TOOLS="java mvn python3 ip"
[ "$SOFT_ONLY" = 1 ] || TOOLS="$TOOLS iperf3"
for tool in $TOOLS; do
    command -v $tool >/dev/null || { echo "missing $tool" >&2; exit 1; }
done

echo "== build (module, test classes, classpath, aeron-all $AERON_VERSION)" | tee "$LOG"
(cd "$ROOT" && mvn -B -q -pl bundles/verbs-soft install -DskipTests)
(cd "$MODULE" && mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$OUT/cp.txt" >/dev/null)
[ "$SOFT_ONLY" = 1 ] || (cd "$MODULE" && mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    -Dartifact=io.aeron:aeron-all:$AERON_VERSION -DoutputDirectory="$OUT/lib" >/dev/null)
CP="$MODULE/target/classes:$MODULE/target/test-classes:$(cat "$OUT/cp.txt")"
AERON_JAR=$OUT/lib/aeron-all-$AERON_VERSION.jar
JAVA_OPTS=(-Xms512m -Xmx2g -Dvirtuoso.bench.icrc=$ICRC)
AERON_OPTS=(--add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/jdk.internal.misc=ALL-UNNAMED
    -Daeron.sample.messageLength=4096 -Daeron.mtu.length=4128
    -Daeron.socket.so_rcvbuf=2097152 -Daeron.socket.so_sndbuf=2097152)

PIDS=()
OLD_RMEM=$(sysctl -n net.core.rmem_max)
OLD_WMEM=$(sysctl -n net.core.wmem_max)
cleanup() {
    for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
    ip netns del $NS_A 2>/dev/null || true
    ip netns del $NS_B 2>/dev/null || true
    sysctl -q -w net.core.rmem_max="$OLD_RMEM" net.core.wmem_max="$OLD_WMEM" || true
    rm -rf /dev/shm/aeron-vbench-*
}
trap cleanup EXIT

# socket buffers: the UDP wire asks for 8 MiB receive / 4 MiB send
sysctl -q -w net.core.rmem_max=16777216 net.core.wmem_max=16777216
ip netns add $NS_A
ip netns add $NS_B
ip -n $NS_A link set lo up
ip -n $NS_B link set lo up
ip link add vb-a type veth peer name vb-b
ip link set vb-a netns $NS_A
ip link set vb-b netns $NS_B
ip -n $NS_A addr add $ADDR_A/24 dev vb-a
ip -n $NS_B addr add $ADDR_B/24 dev vb-b
ip -n $NS_A link set vb-a mtu 9000 up
ip -n $NS_B link set vb-b mtu 9000 up

# waits until FILE contains PATTERN (max 60 s)
wait_for() {
    for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    echo "timeout waiting for '$2' in $1" >&2; cat "$1" >&2; return 1
}

# mean of the "bytes/sec" samples after the first two, as Gbit/s
aeron_gbps() {
    grep -oE '[0-9.e+]+ (payload )?bytes/sec' "$1" | awk 'NR>2 {s+=$1; n++} END {if (n) printf "%.3f", s*8/n/1e9; else print "n/a"}'
}

# SIGINT, then SIGKILL after 10 s
stop_pid() {
    kill -INT "$1" 2>/dev/null || return 0
    for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

{
echo "# Soft RNIC throughput run $STAMP"
echo
echo "Host: $(nproc) cores, $(uname -r), $(java -version 2>&1 | head -1), load before start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Command: ICRC=$ICRC SOFT_ONLY=$SOFT_ONLY bundles/verbs-soft/bench/throughput.sh $SECONDS_PER_POINT $SIZES \"$LINKS\""
echo
} > "$RESULTS"

for LINK in $LINKS; do
    if [ "$LINK" = loopback ]; then
        SNS=$NS_A; CNS=$NS_A; SADDR=127.0.0.1; CADDR=127.0.0.2
    else
        SNS=$NS_A; CNS=$NS_B; SADDR=$ADDR_A; CADDR=$ADDR_B
    fi
    echo "== $LINK: soft RNIC ($SADDR <- $CADDR)" | tee -a "$LOG"
    SLOG=$OUT/soft-server-$LINK.log
    ip netns exec $SNS java "${JAVA_OPTS[@]}" -cp "$CP" dev.virtuoso.verbs.soft.bench.SoftThroughputBench \
        server $SADDR 4791 18515 > "$SLOG" 2>&1 &
    PIDS+=($!)
    wait_for "$SLOG" READY
    ip netns exec $CNS java "${JAVA_OPTS[@]}" -cp "$CP" dev.virtuoso.verbs.soft.bench.SoftThroughputBench \
        client $CADDR 4791 $SADDR 18515 "$SECONDS_PER_POINT" "$SIZES" write,read | tee "$OUT/soft-client-$LINK.log" | tee -a "$LOG"
    wait "${PIDS[-1]}" || true
    cat "$SLOG" >> "$LOG"
    if [ "$SOFT_ONLY" = 1 ]; then
        {
        echo "## $LINK (ICRC check $ICRC)"
        echo
        echo "| op | size | Gbit/s | messages | retransmitted packets |"
        echo "|---|---|---|---|---|"
        { grep '^RESULT' "$OUT/soft-client-$LINK.log" || true; } | sed -E 's/.*op=([a-z]+) size=([0-9]+) depth=[0-9]+ messages=([0-9]+) seconds=[0-9.]+ gbps=([0-9.]+) retransmitted=([0-9]+).*/| \1 | \2 | \4 | \3 | \5 |/'
        echo
        } >> "$RESULTS"
        continue
    fi

    echo "== $LINK: iperf3 -u -b 0 -l $DATAGRAM" | tee -a "$LOG"
    ip netns exec $SNS iperf3 -s -1 -B $SADDR -p 5201 > "$OUT/iperf3-server-$LINK.log" 2>&1 &
    PIDS+=($!)
    sleep 1
    ip netns exec $CNS iperf3 -u -b 0 -l $DATAGRAM -t "$((SECONDS_PER_POINT * 2))" -c $SADDR -B $CADDR -p 5201 --json \
        > "$OUT/iperf3-$LINK.json"
    wait "${PIDS[-1]}" || true
    IPERF=$(python3 - "$OUT/iperf3-$LINK.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["end"]["sum"]
sent = s["bits_per_second"] / 1e9
received = sent * (1 - s.get("lost_percent", 0) / 100)
print(f"{sent:.3f} {received:.3f} {s.get('lost_percent', 0):.2f}")
PY
)
    echo "iperf3 sent/received Gbit/s, loss %: $IPERF" | tee -a "$LOG"

    echo "== $LINK: Aeron $AERON_VERSION, 4 KiB messages" | tee -a "$LOG"
    ALOG=$OUT/aeron-$LINK.log
    if [ "$LINK" = loopback ]; then
        timeout -s INT "$((SECONDS_PER_POINT * 2 + 6))" ip netns exec $SNS java "${JAVA_OPTS[@]}" "${AERON_OPTS[@]}" \
            -Daeron.dir=/dev/shm/aeron-vbench-$STAMP-embedded \
            "-Daeron.sample.channel=aeron:udp?endpoint=$SADDR:20121" \
            -cp "$AERON_JAR" io.aeron.samples.EmbeddedThroughput > "$ALOG" 2>&1 || true
    else
        ip netns exec $SNS java "${JAVA_OPTS[@]}" "${AERON_OPTS[@]}" -Daeron.sample.embeddedMediaDriver=true \
            -Daeron.dir=/dev/shm/aeron-vbench-$STAMP-sub \
            "-Daeron.sample.channel=aeron:udp?endpoint=$SADDR:20121" \
            -cp "$AERON_JAR" io.aeron.samples.RateSubscriber > "$ALOG" 2>&1 &
        PIDS+=($!)
        SUB=$!
        sleep 3
        timeout -s INT "$((SECONDS_PER_POINT * 2 + 6))" ip netns exec $CNS java "${JAVA_OPTS[@]}" "${AERON_OPTS[@]}" \
            -Daeron.sample.embeddedMediaDriver=true -Daeron.dir=/dev/shm/aeron-vbench-$STAMP-pub \
            "-Daeron.sample.channel=aeron:udp?endpoint=$SADDR:20121" \
            -cp "$AERON_JAR" io.aeron.samples.StreamingPublisher > "$OUT/aeron-pub-$LINK.log" 2>&1 || true
        stop_pid $SUB
    fi
    AERON=$(aeron_gbps "$ALOG")
    echo "aeron Gbit/s: $AERON" | tee -a "$LOG"

    {
    echo "## $LINK"
    echo
    echo "| op | size | Gbit/s | messages | retransmitted packets |"
    echo "|---|---|---|---|---|"
    { grep '^RESULT' "$OUT/soft-client-$LINK.log" || true; } | sed -E 's/.*op=([a-z]+) size=([0-9]+) depth=[0-9]+ messages=([0-9]+) seconds=[0-9.]+ gbps=([0-9.]+) retransmitted=([0-9]+).*/| \1 | \2 | \4 | \3 | \5 |/'
    grep '^FAILED' "$OUT/soft-client-$LINK.log" | sed 's/^/    /' || true
    echo
    read -r SENT RECEIVED LOSS <<< "$IPERF"
    echo "iperf3 -u -b 0 -l $DATAGRAM: sent $SENT Gbit/s, received $RECEIVED Gbit/s (loss $LOSS %)"
    echo
    echo "Aeron $AERON_VERSION (4 KiB messages, mtu 4128): $AERON Gbit/s"
    echo
    } >> "$RESULTS"
done

echo
cat "$RESULTS"
echo "(log: $LOG)"
