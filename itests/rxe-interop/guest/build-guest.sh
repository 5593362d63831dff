#!/bin/bash
# Builds the qemu guest for the rxe interop tests from Debian's packages only, into a cache folder:
#   build-guest.sh CACHE_DIR   -> prints the guest folder (vmlinuz, initrd.cpio, rootfs.img, kernel.version)
# The folder name is a hash of this script, the two init scripts, the package list and the mirror,
# so a rerun reuses a finished build and any change to the recipe builds a new one. Needs root.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cache="${1:?usage: build-guest.sh CACHE_DIR}"
suite=bookworm
guest_packages=rdma-core,ibverbs-providers,ibverbs-utils,librdmacm1,rdmacm-utils,perftest,iproute2,kmod,iputils-ping
# Modules the guest loads itself (rootfs) and those the initramfs needs to reach the rootfs.
rootfs_modules=(rdma_rxe rdma_ucm ib_uverbs ib_umad crc32_generic virtio_net)
initrd_modules=(virtio_pci virtio_blk crc32c_generic ext4)

log() { echo "build-guest: $*" >&2; }

# Removes a work folder; an interrupted debootstrap leaves proc/sys mounted inside its target.
remove_work() {
    local dir="$1" m
    [ -d "$dir" ] || return 0
    for m in $(awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
        umount -l "$m" 2>/dev/null || true
    done
    rm -rf "$dir"
}

# The Debian mirror the host's apt uses for $suite (deb822 .sources first, then one-line .list files).
debian_mirror() {
    local f uri
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        uri="$(awk -v suite="$suite" '
            BEGIN { RS=""; FS="\n" }
            {
                uris=""; suites=""
                for (i = 1; i <= NF; i++) {
                    if ($i ~ /^URIs:/) { uris = $i; sub(/^URIs:[ \t]*/, "", uris) }
                    if ($i ~ /^Suites:/) { suites = " " $i " " }
                }
                if (suites ~ (" " suite " ") && uris != "") { split(uris, u, " "); print u[1]; exit }
            }' "$f")"
        if [ -n "$uri" ]; then echo "$uri"; return; fi
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        uri="$(awk -v suite="$suite" '$1 == "deb" && $0 !~ /\[/ && $3 == suite { print $2; exit }
                                      $1 == "deb" && $0 ~ /\[/ { for (i = 2; i <= NF; i++) if ($i ~ /\]$/) { if ($(i+2) == suite) { print $(i+1); exit } } }' "$f")"
        if [ -n "$uri" ]; then echo "$uri"; return; fi
    done
    echo "http://deb.debian.org/debian"
}

mirror="$(debian_mirror)"
recipe_hash() { sha256sum | cut -c1-16; }
# Two cache levels: the downloads (kernel package, debootstrap root: minutes, network) keyed by
# the package set and mirror; the assembled guest (seconds) keyed also by this script and the inits.
base_key="$(echo "$suite $guest_packages $mirror" | recipe_hash)"
key="$( (cat "$0" "$here/initramfs-init" "$here/rootfs-init"; echo "$base_key ${rootfs_modules[*]} ${initrd_modules[*]}") | recipe_hash)"
base="$cache/base-$base_key"
out="$cache/guest-$key"
if [ -f "$out/complete" ]; then
    echo "$out"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    log "needs root (debootstrap, device nodes)"
    exit 2
fi
mkdir -p "$cache"
# Leftovers of builds that were killed (an hour old: not a build running next to this one).
for old in $(find "$cache" -maxdepth 1 \( -name 'download.*' -o -name 'build.*' \) -mmin +60); do
    remove_work "$old"
done

if [ ! -f "$base/complete" ]; then
    bwork="$(mktemp -d "$cache/download.XXXXXX")"
    chmod 755 "$bwork"
    trap 'remove_work "$bwork"' EXIT
    log "downloading kernel and user space into $bwork (mirror $mirror)"
    # 1. Kernel: the current bookworm kernel package, unpacked without installing anything.
    if ! apt-cache show linux-image-amd64 >/dev/null 2>&1; then apt-get update -q >/dev/null; fi
    kpkg="$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')"
    [ -n "$kpkg" ] || { log "cannot find the kernel package behind linux-image-amd64"; exit 1; }
    mkdir -p "$bwork/dl" "$bwork/kernel"
    chown _apt "$bwork/dl" 2>/dev/null || true
    (cd "$bwork/dl" && apt-get download -q "$kpkg" >/dev/null)
    dpkg-deb -x "$bwork"/dl/"$kpkg"_*.deb "$bwork/kernel"
    rm -rf "$bwork/dl"
    depmod -b "$bwork/kernel" "${kpkg#linux-image-}"
    echo "${kpkg#linux-image-}" >"$bwork/kernel.version"
    # 2. User space: debootstrap minbase plus the RDMA tools, docs removed.
    debootstrap --variant=minbase --include="$guest_packages" "$suite" "$bwork/root" "$mirror" \
        >"$bwork/debootstrap.log" 2>&1 || { tail -30 "$bwork/debootstrap.log" >&2; exit 1; }
    rm -rf "$bwork"/root/usr/share/{doc,man,locale,info} "$bwork"/root/var/cache/apt/archives/*.deb \
        "$bwork"/root/var/lib/apt/lists/*
    touch "$bwork/complete"
    rm -rf "$base"
    mv "$bwork" "$base"
    trap - EXIT
fi
kver="$(cat "$base/kernel.version")"

work="$(mktemp -d "$cache/build.XXXXXX")"
trap 'remove_work "$work"' EXIT
log "assembling guest $key (kernel $kver) in $work"
kdir="$base/kernel"
root="$work/root"
cp -a "$base/root" "$root"

# 3. Kernel modules: the dependency closure of what the tests load, depmod'ed in the guest root.
module_paths() { # prints the .ko files (dependencies first) of the given modules, builtins skipped
    local m
    for m in "$@"; do
        modprobe -d "$kdir" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
    done | awk '!seen[$0]++'
}
kmods="$kdir/lib/modules/$kver"
mkdir -p "$root/lib/modules/$kver"
cp "$kmods"/modules.builtin* "$kmods"/modules.order "$root/lib/modules/$kver/"
for ko in $(module_paths "${rootfs_modules[@]}" "${initrd_modules[@]}"); do
    rel="${ko#"$kdir"}"
    mkdir -p "$root$(dirname "$rel")"
    cp "$ko" "$root$rel"
done
depmod -b "$root" "$kver"
install -m 0755 "$here/rootfs-init" "$root/sbin/rxe-test-init"
echo rxe-guest >"$root/etc/hostname"

# 4. Initramfs: static busybox, the modules to reach an ext4 root on virtio, and /init.
ird="$work/initrd"
mkdir -p "$ird"/{bin,dev,proc,sys,newroot,lib/modules}
cp /bin/busybox "$ird/bin/busybox"
install -m 0755 "$here/initramfs-init" "$ird/init"
: >"$ird/modules.order"
for ko in $(module_paths "${initrd_modules[@]}"); do
    cp "$ko" "$ird/lib/modules/"
    basename "$ko" >>"$ird/modules.order"
done
(cd "$ird" && find . | cpio -o -H newc --quiet) >"$work/initrd.cpio"

# 5. Root image straight from the folder (no mount needed), with some free space.
size_mb=$(( $(du -sm "$root" | cut -f1) * 13 / 10 + 128 ))
mkfs.ext4 -q -F -L rxe-guest -d "$root" "$work/rootfs.img" "${size_mb}M" >"$work/mkfs.log" 2>&1 \
    || { cat "$work/mkfs.log" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
cp "$kdir/boot/vmlinuz-$kver" "$out/vmlinuz"
mv "$work/initrd.cpio" "$work/rootfs.img" "$out/"
echo "$kver" >"$out/kernel.version"
touch "$out/complete"
# Older assemblies are not reused: keep the cache to one guest plus the downloads.
for old in "$cache"/guest-*; do [ "$old" = "$out" ] || rm -rf "$old"; done
log "guest ready in $out ($(du -sh "$out" | cut -f1))"
echo "$out"
