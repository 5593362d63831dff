# verbs-ibv against the kernel: the project's verbs conformance suite (itests/verbs-conformance,
# through bundles/verbs-ibv's IbvConformanceEnvironment: two contexts on rxe0, QPs between its
# first IPv4 RoCE v2 GID and itself) and IbvLoopbackTest, in the guest's JDK 22+ runtime.
# Passes only if no test fails and the skipped tests are exactly those in ./expected-skips (what
# this environment or rxe cannot do, with the reason; docs/verbs-ibv.md).
rxe_setup "$RXE_LINK_MTU" "$RXE_GUEST_IP/24" || finish
java_setup || finish
rxe_counter_pairs >/tmp/c.before
t0=$(date +%s)
timeout 840 "${GUEST_JAVA[@]}" -Dvirtuoso.ibv.required=true -Dvirtuoso.ibv.device="$RXE_DEV" -cp "$GUEST_CP" \
    dev.virtuoso.itests.rxe.JUnitRun package:dev.virtuoso.verbs.ibv.conformance class:dev.virtuoso.verbs.ibv.IbvLoopbackTest \
    2>&1 | tee /tmp/junit.out
rc=${PIPESTATUS[0]}
say "JUnit run: exit $rc after $(( $(date +%s) - t0 )) s"
[ "$rc" = 0 ] || fail "the conformance run failed (exit $rc; see the JUNIT lines)"
grep '^JUNIT-SUMMARY' /tmp/junit.out >/dev/null || fail "no JUnit summary"
grep '^JUNIT skip ' /tmp/junit.out | sed -e 's/^JUNIT skip //' -e 's/ \[.*$//' | sort >/tmp/skips.got
sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' ./expected-skips | sort >/tmp/skips.want
while read -r t; do fail "unexpected skip: $t"; done < <(comm -23 /tmp/skips.got /tmp/skips.want)
while read -r t; do fail "expected skip did not happen: $t"; done < <(comm -13 /tmp/skips.got /tmp/skips.want)
# The suite provokes errors on purpose (retries exhausted, RNR, access errors): counters are recorded, not checked.
rxe_counter_pairs | sed 's/^/RXE-COUNTER ibv-conformance /'
