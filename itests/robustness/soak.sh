#!/bin/sh
# Runs the soak (docs/soak.md): mixed MP_WRITE / MP_READ / MP_SEND+MP_RECV load with every byte
# verified, over the in-process fabric with lossy links, connection churn and policy swaps.
# Usage: itests/robustness/soak.sh [--duration=10m] [--key=value ...]   exit code 0 = PASS, 1 = FAIL
# Reports go to itests/robustness/target/soak/ (relative --out paths are relative to itests/robustness).
# Needs the project's modules installed in ~/.m2 (api, verbs-soft, qpmanager, decomposer, reassembler,
# policies lb-roundrobin and lb-adaptive). JVM options: SOAK_JAVA_OPTS (default -Xmx1g).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
mvn -B -q -o compile
# private copies of the classes and jars: a rebuild, or a module re-installed into ~/.m2, during a
# long run must not change the classes this JVM has yet to load
rm -rf target/soak-lib
mvn -B -q -o dependency:copy-dependencies -DoutputDirectory=target/soak-lib -DincludeScope=runtime
cp -R target/classes target/soak-lib/classes
# shellcheck disable=SC2086
exec java ${SOAK_JAVA_OPTS:--Xmx1g} -cp "target/soak-lib/classes:target/soak-lib/*" \
    dev.virtuoso.itests.robustness.soak.Soak "$@"
