#!/usr/bin/env bash
# One RC QP of the soft RNIC on UDP loopback (two JVMs, SoftThroughputBench) while HOGS busy loops
# (`yes > /dev/null`) compete for the CPUs: how often the retransmit timer fires and how many
# packets are resent. The hogs are started before and killed after the run.
#
#   bundles/verbs-soft/bench/cpu-starved.sh [HOGS=3] [SECONDS_PER_POINT=3] [SIZES=64k,1m,4m] [OPS=write,read]
#
# CLASSES=<dir> runs another build of the main classes (e.g. an older commit compiled with javac)
# against this module's test classes. Needs: mvn (offline is fine), java, 127.0.0.1/127.0.0.2.
set -euo pipefail
HOGS=${1:-3}
SECONDS_PER_POINT=${2:-3}
SIZES=${3:-64k,1m,4m}
OPS=${4:-write,read}
MODULE=$(cd "$(dirname "$0")/.." && pwd)
OUT=$MODULE/target/bench
mkdir -p "$OUT"
if [ ! -s "$OUT/cp.txt" ]; then
    (cd "$MODULE" && mvn -B -q -o dependency:build-classpath -Dmdep.includeScope=test \
        -Dmdep.outputFile="$OUT/cp.txt" >/dev/null)
fi
CLASSES=${CLASSES:-$MODULE/target/classes}
CP="$CLASSES:$MODULE/target/test-classes:$(cat "$OUT/cp.txt")"
CONTROL_PORT=18615
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

rcvbuf_errors() { awk '/^Udp:/ { if (h) { print $6; exit } h = 1 }' /proc/net/snmp; }

echo "classes: $CLASSES"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), hogs: $HOGS, $(nproc) cores"
ERR0=$(rcvbuf_errors)
java -Xms256m -Xmx1g -cp "$CP" dev.virtuoso.verbs.soft.bench.SoftThroughputBench \
    server 127.0.0.1 4791 $CONTROL_PORT > "$OUT/starved-server.log" 2>&1 &
SERVER=$!
PIDS+=($SERVER)
for _ in $(seq 1 50); do grep -q READY "$OUT/starved-server.log" && break; sleep 0.2; done
for _ in $(seq 1 "$HOGS"); do
    yes > /dev/null &
    PIDS+=($!)
done
java -Xms256m -Xmx1g -cp "$CP" dev.virtuoso.verbs.soft.bench.SoftThroughputBench \
    client 127.0.0.2 4791 127.0.0.1 $CONTROL_PORT "$SECONDS_PER_POINT" "$SIZES" "$OPS"
wait $SERVER || true
cat "$OUT/starved-server.log"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "UDP RcvbufErrors during the run (whole host): $(( $(rcvbuf_errors) - ERR0 ))"
