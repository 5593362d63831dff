#!/bin/bash
# Makes the guest's Java disk for scenarios that run Java in the guest (their folder has a file
# `needs-java`): an ext4 image (mkfs.ext4 -d, no mount) with
#   jre/                a jlink image (JDK 22+: verbs-ibv uses java.lang.foreign) of the modules below
#   lib/*.jar           itests/rxe-interop's runtime class path (core, policies, verbs SPI, verbs-ibv,
#                       conformance suite, JUnit platform)
#   classes/            itests/rxe-interop's classes (MpPeer, JUnitRun)
#   ibv-test-classes/   bundles/verbs-ibv's test classes (the conformance suite's ibv environment)
#   launcher/           the launcher as built (virtuoso-launcher.jar, lib/, bundles/), if it is
#                       built: `virtuoso bench` in the guest (scenario ibv-bench)
# The guest mounts it read-only (guest/lib.sh java_setup).
#   java-disk.sh CACHE_DIR IMAGE      (the jlink image is cached in CACHE_DIR/jre-<key>)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
itest="$(cd "$here/.." && pwd)"
repo="$(cd "$itest/../.." && pwd)"
cache="${1:?usage: java-disk.sh CACHE_DIR IMAGE}"
image="${2:?usage: java-disk.sh CACHE_DIR IMAGE}"
# what jdeps --print-module-deps reports for the class path above (java.sql brings java.logging and
# java.xml; jdk.unsupported and java.management are for Agrona, which the QP manager uses) and for
# the launcher with its bundles (java.desktop: the commands bundle imports javax.imageio for the
# demo's chart, so the framework must export it for the bundle to resolve)
modules=java.base,java.logging,java.sql,java.management,java.compiler,jdk.unsupported,java.desktop

log() { echo "java-disk: $*" >&2; }

# shellcheck source=../peer-java.sh
source "$itest/peer-java.sh"
jdk="$(guest_jdk_find)" || exit 1
ibv_tests="$repo/bundles/verbs-ibv/target/test-classes"
for need in "$itest/target/peer.classpath" "$itest/target/classes/dev" "$ibv_tests/dev"; do
    [ -e "$need" ] || { log "$need is missing: build first (mvn -B -pl itests/rxe-interop -am install, or mvn -B verify)"; exit 1; }
done

key="$( (cat "$jdk/release"; echo "$modules") | sha256sum | cut -c1-16)"
jre="$cache/jre-$key"
if [ ! -f "$jre/complete" ]; then
    mkdir -p "$cache"
    tmp="$(mktemp -d "$cache/jlink.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    log "jlink from $jdk ($modules)"
    # --generate-cds-archive: class data sharing, so the JVM starts faster under emulation
    "$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
        --generate-cds-archive --output "$tmp/jre" >&2
    touch "$tmp/jre/complete"
    for old in "$cache"/jre-*; do [ -e "$old" ] && rm -rf "$old"; done
    mv "$tmp/jre" "$jre"
    trap - EXIT
    rm -rf "$tmp"
fi

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp -a "$jre" "$stage/jre"
mkdir "$stage/lib"
IFS=: read -r -a jars <"$itest/target/peer.classpath" || true  # no newline at its end
for j in "${jars[@]}"; do
    [ -f "$j" ] || { log "class path entry $j missing"; exit 1; }
    cp "$j" "$stage/lib/"
done
cp -a "$itest/target/classes" "$stage/classes"
cp -a "$ibv_tests" "$stage/ibv-test-classes"
launcher="$repo/launcher/target"
if [ -f "$launcher/virtuoso-launcher.jar" ] && [ -d "$launcher/bundles" ] && [ -d "$launcher/lib" ]; then
    mkdir "$stage/launcher"
    cp -a "$launcher/virtuoso-launcher.jar" "$launcher/lib" "$launcher/bundles" "$stage/launcher/"
else
    log "no launcher in $launcher (build it: mvn -B verify, or mvn -B -pl launcher -am install): scenarios that run it fail"
fi
size_mb=$(( $(du -sm "$stage" | cut -f1) * 13 / 10 + 16 ))
mkfs.ext4 -q -F -L virtuoso-java -d "$stage" "$image" "${size_mb}M" >&2
log "$(du -sh "$image" | cut -f1) image, runtime $("$jre/bin/java" -version 2>&1 | head -1)"
