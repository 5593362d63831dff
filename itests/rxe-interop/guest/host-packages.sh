#!/bin/bash
# Installs the host packages the rxe interop guest needs (Debian 12, as root). Idempotent: does
# nothing when every tool is already there, so a rerun needs no network.
set -euo pipefail

packages=(qemu-system-x86 debootstrap busybox-static e2fsprogs cpio xz-utils kmod iproute2)
tools=(qemu-system-x86_64 debootstrap busybox mkfs.ext4 cpio xz depmod modprobe ip)

missing=0
for tool in "${tools[@]}"; do
    # busybox-static installs /bin/busybox; the others are on the usual sbin/bin paths.
    if ! PATH="$PATH:/usr/sbin:/sbin" command -v "$tool" >/dev/null 2>&1; then
        missing=1
    fi
done
if [ "$missing" = 0 ]; then
    exit 0
fi
# Exit 2 (the caller skips) only when the tools cannot be had at all: not root, or no apt-get; a
# failing apt-get is a failure (its own exit status), never a skip.
if [ "$(id -u)" != 0 ]; then
    echo "host-packages: missing tools and not root; install: ${packages[*]}" >&2
    exit 2
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "host-packages: missing tools and no apt-get to install them; install: ${packages[*]}" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${packages[@]}" >/dev/null
echo "host-packages: installed ${packages[*]}"
