#!/usr/bin/env bash
# CI step for issue 9: the soft RNIC against the Linux kernel's Soft-RoCE (rdma_rxe) in a qemu guest.
# Runs after the unit tests (`mvn -B verify` built itests/rxe-interop and its peer classpath).
# Runs scenarios/interop (perftest write/read/send in the guest against the soft-RNIC peer, both
# directions, one and two paths), scenarios/icrc-negative (proof that rxe's counters catch a wrong
# ICRC), and, issue 15, scenarios/ibv-conformance (the verbs conformance suite through verbs-ibv on
# rxe, in the guest's JDK 22+ runtime made with jlink) and scenarios/ibv-multipath (the multipath
# core on verbs-ibv in the guest against the core on the soft RNIC in the host: 1/2/4 paths, both
# roles, a path's address removed mid-transfer) and scenarios/ibv-bench (`./virtuoso bench -P ibv` in
# the guest against `./virtuoso bench` on the soft RNIC in the host), one guest boot each. Skips (exit 0, with a
# message) only where root, tap devices or qemu cannot be had; a missing JDK 22+ for the guest
# runtime or a missing build fails.
# The guest build is cached outside the checkout so later runs on the same machine reuse it.
set -euo pipefail
cd "$(dirname "$0")/.."

itest=itests/rxe-interop
if [ ! -f "$itest/target/peer.classpath" ] || [ ! -d "$itest/target/classes/dev" ] \
        || [ ! -d bundles/verbs-ibv/target/test-classes/dev ]; then
    echo "rxe-interop: $itest is not built; run after 'mvn -B verify' (or mvn -B -pl $itest -am install)" >&2
    exit 1
fi
export RXE_GUEST_CACHE="${RXE_GUEST_CACHE:-/var/cache/virtuoso/rxe-guest}"

# 1800 s: the five boots' own limits are 300 + 300 + 900 + 600 + 420 s, but the whole step stays
# within half of CI's 60-minute budget (they took 284-339 s in all; docs/rxe-interop.md records the
# measured times).
start=$SECONDS
rc=0
timeout --kill-after=10 "${RXE_CI_TIMEOUT:-1800}" "$itest/run-scenario.sh" --out "$itest/target/rxe-interop" \
    interop icrc-negative ibv-conformance ibv-multipath ibv-bench || rc=$?
case "$rc" in
    0) echo "rxe-interop: passed in $((SECONDS - start)) s";;
    2) echo "rxe-interop: SKIPPED (see the reason above: root, /dev/net/tun or qemu unavailable)"; rc=0;;
    64) echo "rxe-interop: FAILED: run-scenario.sh usage error (see above)" >&2; rc=1;;
    124|137) echo "rxe-interop: FAILED: over ${RXE_CI_TIMEOUT:-1800} s" >&2;;
    *) echo "rxe-interop: FAILED after $((SECONDS - start)) s (logs in $itest/target/rxe-interop)" >&2;;
esac
exit "$rc"
