#!/bin/sh
# Runs a benchmark main of the QP manager's test sources on the in-process fabric.
#   bundles/qpmanager/bench/run.sh UtilisationBenchmark [rate=200m] [delay=100us] [bytes=1073741824] [min=1] [max=10]
#   bundles/qpmanager/bench/run.sh SplitThresholdBenchmark <paths> <link spec> <reps> <sizes...>
# Builds the module (tests skipped) first; needs the sibling modules installed in ~/.m2.
set -e
cd "$(dirname "$0")/.."
main="$1"; shift
mvn -B -q -o install -DskipTests
mvn -B -q -o dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
exec java -XX:MaxDirectMemorySize=4g -cp "$(cat target/bench.classpath):target/classes:target/test-classes" \
    "dev.virtuoso.qpmanager.bench.$main" "$@"
