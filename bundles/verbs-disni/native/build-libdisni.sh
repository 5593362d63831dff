#!/bin/sh
# Builds and installs libdisni from a DiSNI source tree (https://github.com/zrlio/disni), checking
# that it is the release the bundle embeds (DiSNI 2.1: the JNI library must answer the same JNI
# version as the jar's Java classes).
#
#   build-libdisni.sh <disni-source-tree> [install-prefix]
#
# <disni-source-tree>  a DiSNI checkout or export at tag v2.1 (its root, or its libdisni directory)
# [install-prefix]     where libdisni.so goes (<prefix>/lib); default /usr/local
#
# Environment: JAVA_HOME  JDK whose include/jni.h is used (default: the JDK of `javac`/`java`)
#              BUILD_DIR  scratch directory for the build (default: a new temporary directory);
#                         the source tree itself is never modified
#
# Needs: a C++ compiler, make, autoconf, automake, libtool, libibverbs and librdmacm headers, e.g.
#   apt-get install build-essential autoconf automake libtool libibverbs-dev librdmacm-dev
set -eu

EXPECTED_VERSION=2.1

die() {
    echo "build-libdisni: $*" >&2
    exit 1
}

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: $0 <disni-source-tree> [install-prefix]"
src=$1
prefix=${2:-/usr/local}
case $prefix in
    /*) ;;
    *) prefix=$(pwd)/$prefix ;; # configure wants an absolute prefix
esac

if [ -f "$src/libdisni/configure.ac" ]; then
    src=$src/libdisni
fi
[ -f "$src/configure.ac" ] || die "$1 is not a DiSNI source tree (no libdisni/configure.ac)"

version=$(sed -n 's/^AC_INIT(\[libdisni\], *\[\([^]]*\)\].*/\1/p' "$src/configure.ac")
[ "$version" = "$EXPECTED_VERSION" ] \
    || die "$src is libdisni '$version', the bundle embeds DiSNI $EXPECTED_VERSION (check out tag v$EXPECTED_VERSION)"

for tool in autoreconf libtoolize make c++; do
    command -v "$tool" >/dev/null 2>&1 \
        || die "$tool not found; install: build-essential autoconf automake libtool"
done

if [ -z "${JAVA_HOME:-}" ]; then
    javabin=$(command -v javac || command -v java || true)
    [ -n "$javabin" ] || die "no JDK found; set JAVA_HOME"
    JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$javabin")")")
fi
[ -f "$JAVA_HOME/include/jni.h" ] || die "$JAVA_HOME/include/jni.h missing; set JAVA_HOME to a JDK (not a JRE)"

build=${BUILD_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/libdisni-build.XXXXXX")}
mkdir -p "$build"
cp -R "$src/." "$build/"
cd "$build"

# autoprepare.sh of DiSNI 2.1 does the same; done here so a failure names the missing tool
touch NEWS README AUTHORS ChangeLog COPYING
autoreconf --install
./configure --prefix="$prefix" --with-jdk="$JAVA_HOME"
make -j"$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)"
make install

lib=$prefix/lib/libdisni.so
[ -e "$lib" ] || die "make install did not produce $lib"
if command -v ldconfig >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    ldconfig
fi
echo "build-libdisni: installed libdisni $version as $lib (JDK headers of $JAVA_HOME)"
echo "build-libdisni: run the JVM with -Djava.library.path=$prefix/lib"
