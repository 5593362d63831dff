#!/bin/sh
# Runs the Virtuoso JMH benchmarks with the GC profiler (ns/op and B/op).
# Usage: itests/jmh/run.sh [JMH options...]   default: -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc
# Needs the project's modules installed in ~/.m2 (api, verbs-soft, decomposer, reassembler).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
mvn -B -q -o package -DskipTests
mvn -B -q -o dependency:build-classpath -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime
cp="target/classes:$(cat target/classpath.txt)"
if [ "$#" -eq 0 ]; then
    set -- -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc
fi
exec java -cp "$cp" org.openjdk.jmh.Main "$@"
