# Sourced by run-scenario.sh and scenarios/interop/host.sh: finds the Java for the soft-RNIC peer.
# The peer needs Java 19+: jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT gives IPv4 DF with ID 0,
# which the soft RNIC's ICRC assumes; on Java 17 rxe drops every packet ("peer sent N, rxe
# accepted 0"). No silent fallback to whatever `java` is: if no 19+ is found, say so and fail.

# java_feature_version JAVA -> the major version (17, 21, 25, ...), empty if JAVA does not run
java_feature_version() {
    "$1" -XshowSettings:properties -version 2>&1 \
        | awk -F'= ' '/java.specification.version =/ { v = $2; sub(/^1\./, "", v); print int(v); exit }'
}

# peer_java_find -> prints a java of version 19 or newer: RXE_PEER_JAVA if set (checked), else the
# newest of JAVA_HOME, PATH and RXE_JDK_CANDIDATES (default /usr/lib/jvm/*/bin/java); returns 1
# with a message on stderr if there is none
peer_java_find() {
    local j v best="" bestv=0
    if [ -n "${RXE_PEER_JAVA:-}" ]; then
        v="$(java_feature_version "$RXE_PEER_JAVA")"
        if [ "${v:-0}" -ge 19 ]; then echo "$RXE_PEER_JAVA"; return 0; fi
        echo "rxe-interop: RXE_PEER_JAVA=$RXE_PEER_JAVA is Java ${v:-?}; the interop peer needs Java 19+" >&2
        return 1
    fi
    for j in "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)" ${RXE_JDK_CANDIDATES:-/usr/lib/jvm/*/bin/java}; do
        [ -n "$j" ] && [ -x "$j" ] || continue
        v="$(java_feature_version "$j")"
        if [ "${v:-0}" -gt "$bestv" ]; then best="$j"; bestv="$v"; fi
    done
    if [ "$bestv" -ge 19 ]; then echo "$best"; return 0; fi
    echo "rxe-interop: the interop peer needs a Java 19+ JDK (for IP_DONTFRAGMENT) and none was found" \
        "(newest: ${best:-none} ${bestv:+Java $bestv}); Debian 12 ships only OpenJDK 17: install e.g." \
        "Temurin 21 or 25 (Adoptium) and/or set RXE_PEER_JAVA=/path/to/bin/java" >&2
    return 1
}

# guest_jdk_find -> prints the home of a JDK 22+ that has jlink, to make the guest's Java runtime
# (verbs-ibv needs java.lang.foreign, final in 22): RXE_GUEST_JDK if set (checked), else the newest
# such JDK among JAVA_HOME, PATH and RXE_JDK_CANDIDATES; returns 1 with a message if there is none
guest_jdk_find() {
    local j v home best="" bestv=0
    for j in ${RXE_GUEST_JDK:+$RXE_GUEST_JDK/bin/java} "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)" \
            ${RXE_JDK_CANDIDATES:-/usr/lib/jvm/*/bin/java}; do
        [ -n "$j" ] && [ -x "$j" ] || continue
        home="$(dirname "$(dirname "$(readlink -f "$j")")")"
        [ -x "$home/bin/jlink" ] || continue
        v="$(java_feature_version "$j")"
        if [ -n "${RXE_GUEST_JDK:-}" ]; then
            if [ "${v:-0}" -ge 22 ]; then echo "$home"; return 0; fi
            break
        fi
        if [ "${v:-0}" -gt "$bestv" ]; then best="$home"; bestv="$v"; fi
    done
    if [ "$bestv" -ge 22 ]; then echo "$best"; return 0; fi
    echo "rxe-interop: the guest's Java runtime is made with jlink from a JDK 22+ (verbs-ibv uses" \
        "java.lang.foreign) and none was found${RXE_GUEST_JDK:+ at RXE_GUEST_JDK=$RXE_GUEST_JDK}; install" \
        "e.g. Temurin 25 or set RXE_GUEST_JDK=/path/to/jdk" >&2
    return 1
}
