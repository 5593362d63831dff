#!/bin/sh
# Runs a benchmark main of the QP manager's test sources on the in-process fabric.
#   bundles/qpmanager/bench/run.sh UtilisationBenchmark [rate=200m] [delay=100us] [bytes=1073741824] [min=1] [max=10]
#   bundles/qpmanager/bench/run.sh SplitThresholdBenchmark <paths> <link spec> <reps> <sizes...>
# Builds the module and the modules it needs (tests skipped) first, so it runs from a fresh clone.
set -e
cd "$(dirname "$0")/.."
main="$1"; shift
(cd ../.. && mvn -B -q -pl bundles/qpmanager -am install -DskipTests)
mvn -B -q dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
exec java -XX:MaxDirectMemorySize=4g -cp "$(cat target/bench.classpath):target/classes:target/test-classes" \
    "dev.virtuoso.qpmanager.bench.$main" "$@"
