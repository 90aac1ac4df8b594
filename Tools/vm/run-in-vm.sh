#!/usr/bin/env bash
# Tools/vm/run-in-vm.sh CMD [ARGS...]
#
# Runs CMD inside a throw-away Linux VM that has a DRM device (/dev/dri/card0 from the
# vgem module), so that Lamina's GBM backend can be exercised on machines without a GPU.
# See docs/gbm-vm.md for why and how.
#
# - Kernel: Debian's linux-image-amd64 (fetched with apt-get download, unpacked into a
#   cache; nothing is installed in /boot). Booted with qemu under TCG.
# - Root: the host's / over virtio-9p, read-only, with a tmpfs overlay; the current
#   directory (and LAMINA_VM_RW_DIRS) mounted read-write at the same paths, so binaries
#   built on the host run unchanged and can write results back.
# - CMD runs in the current directory with the current environment; its output
#   (stdout+stderr) is streamed back; the exit status is CMD's, 124 on timeout,
#   125 when the VM died without reporting one.
#
# Environment: LAMINA_VM_CACHE (default /var/tmp/lamina-vm), LAMINA_VM_TIMEOUT (s, 900),
# LAMINA_VM_MEM (MiB, 2048), LAMINA_VM_CPUS (nproc), LAMINA_VM_RW_DIRS (space-separated),
# LAMINA_VM_VERBOSE=1 (print the guest console).
#
# A display: LAMINA_VM_GPU=1 adds `-device virtio-gpu-pci,xres=LAMINA_VM_XRES,yres=LAMINA_VM_YRES`
# (1920×1080 by default; a KMS device with a CRTC, a connector and page flips, driver
# virtio_gpu, no virgl) as /dev/dri/card1 (vgem stays card0), and a screendump service:
# the guest asks for a capture of what the virtual monitor shows by creating
# /run/lamina-vm/shot-NAME.req (optionally holding a JSON object of extra QMP screendump
# arguments), waits for shot-NAME.done ("ok <ms>" or "error <json>"), then reads
# /run/lamina-vm/shot-NAME.ppm (P6, RGB). Tools/vm/shotd.py runs QMP on the host side.
set -euo pipefail

CACHE=${LAMINA_VM_CACHE:-/var/tmp/lamina-vm}
TIMEOUT=${LAMINA_VM_TIMEOUT:-900}
MEM=${LAMINA_VM_MEM:-2048}
CPUS=${LAMINA_VM_CPUS:-$(nproc)}
RW_DIRS="$PWD ${LAMINA_VM_RW_DIRS:-}"
VERBOSE=${LAMINA_VM_VERBOSE:-0}
# Modules in the initramfs; which DRM ones are loaded is chosen per run (load order is
# /dev/dri/cardN order: vgem first keeps it card0).
MODULES="virtio_pci virtio_console 9pnet_virtio 9p overlay vgem virtio_gpu"
GPU=${LAMINA_VM_GPU:-0}
GPU_XRES=${LAMINA_VM_XRES:-1920}
GPU_YRES=${LAMINA_VM_YRES:-1080}

[ $# -gt 0 ] || { echo "usage: $0 CMD [ARGS...]" >&2; exit 2; }
for tool in qemu-system-x86_64 busybox dpkg-deb xz python3; do
  command -v "$tool" >/dev/null || {
    echo "run-in-vm: '$tool' is missing: apt-get install qemu-system-x86 busybox-static xz-utils (or run Tools/setup.sh)" >&2
    exit 2
  }
done

# ------------------------------------------------------------ kernel + initramfs, once
prepare_cache() {
  mkdir -p "$CACHE"
  exec 8>"$CACHE/.lock"
  flock 8
  cache_ready && return 0
  local pkg work
  pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  if [ -z "$pkg" ]; then apt-get update -qq; pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}'); fi
  [ -n "$pkg" ] || { echo "run-in-vm: cannot resolve linux-image-amd64 (apt-get update?)" >&2; exit 2; }
  work=$(mktemp -d "$CACHE/build.XXXXXX")
  echo "run-in-vm: preparing $pkg in $CACHE (one time)" >&2
  (cd "$work" && apt-get download "$pkg" >/dev/null 2>&1) || { apt-get update -qq && (cd "$work" && apt-get download "$pkg" >/dev/null); }
  dpkg-deb -x "$work"/*.deb "$work/root"
  local kver; kver=$(ls "$work/root/lib/modules")
  local kdir="$work/root/lib/modules/$kver"
  busybox depmod -b "$work/root" "$kver"   # the package ships no modules.dep
  # The bzImage carries an xz-compressed ELF vmlinux; booting that directly (PVH)
  # skips the slow in-guest decompression under TCG.
  local bz="$work/root/boot/vmlinuz-$kver" off
  off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$bz" | head -n1 | cut -d: -f1 || true)
  if [ -n "$off" ] && tail -c +$((off + 1)) "$bz" | xz -dc --single-stream >"$work/vmlinux" 2>/dev/null \
     && [ "$(head -c 4 "$work/vmlinux" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
    mv "$work/vmlinux" "$CACHE/kernel"
  else
    cp "$bz" "$CACHE/kernel"
  fi
  # initramfs: busybox + the modules we load (with their dependencies from modules.dep).
  local ir="$work/initramfs"
  mkdir -p "$ir"/{bin,dev,proc,sys,host,upper,newroot,io}
  cp "$(command -v busybox)" "$ir/bin/busybox"
  local files="" m line
  for m in $MODULES; do
    line=$(awk -F: -v want="$m" '{ n=$1; sub(/.*\//, "", n); sub(/\.ko.*/, "", n); gsub(/-/, "_", n); if (n == want) { print; exit } }' "$kdir/modules.dep")
    [ -n "$line" ] || continue   # built into the kernel
    files="$files ${line%%:*} ${line#*:}"
  done
  for f in $files; do
    mkdir -p "$ir/lib/modules/$kver/$(dirname "$f")"
    cp "$kdir/$f" "$ir/lib/modules/$kver/$f"
  done
  cp "$kdir/modules.dep" "$ir/lib/modules/$kver/"
  cat >"$ir/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
die() { echo "vm-init: $*" >/dev/ttyS0; poweroff -f; }
for m in virtio_pci virtio_console 9pnet_virtio 9p overlay; do modprobe $m 2>/dev/null; done
opts=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o $opts,cache=mmap io /io || die "cannot mount the io share"
for m in $(cat /io/modules); do modprobe $m || echo "vm-init: modprobe $m failed" >/dev/ttyS0; done
mount -t 9p -o $opts,ro,cache=loose host /host || die "cannot mount the host root"
mount -t tmpfs -o mode=755 upper /upper && mkdir -p /upper/u /upper/w
mount -t overlay -o lowerdir=/host,upperdir=/upper/u,workdir=/upper/w root /newroot || mount --bind /host /newroot
R=/newroot
mount -t proc proc $R/proc; mount -t sysfs sys $R/sys; mount -t devtmpfs dev $R/dev
mkdir -p $R/dev/pts $R/dev/shm; mount -t devpts devpts $R/dev/pts; mount -t tmpfs shm $R/dev/shm
mount -t tmpfs tmp $R/tmp; mount -t tmpfs run $R/run
mkdir -p $R/run/lamina-vm && mount --bind /io $R/run/lamina-vm
i=0
for d in $(cat /io/rw-dirs); do
  mkdir -p $R$d 2>/dev/null
  mount -t 9p -o $opts,cache=mmap rw$i $R$d || echo "vm-init: cannot mount $d" >/dev/ttyS0
  i=$((i+1))
done
chmod 666 $R/dev/dri/* 2>/dev/null
port=""
for p in /sys/class/virtio-ports/*; do [ "$(cat $p/name 2>/dev/null)" = out ] && port=$(basename $p); done
[ -n "$port" ] || die "no output port"
chroot $R /bin/bash /run/lamina-vm/cmd.sh </dev/null >/dev/$port 2>&1
echo $? >/io/status
sync
poweroff -f
INIT
  chmod +x "$ir/init"
  (cd "$ir" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1 >"$CACHE/initramfs.gz")
  printf '%s %s\nmodules: %s\n' "$pkg" "$kver" "$MODULES" >"$CACHE/ready"
  rm -rf "$work"
}
cache_ready() { [ -f "$CACHE/ready" ] && grep -qxF "modules: $MODULES" "$CACHE/ready"; }
cache_ready || prepare_cache

# ------------------------------------------------------------ one run
IO=$(mktemp -d /tmp/lamina-vm.XXXXXX)
trap 'rm -rf "$IO"' EXIT
dirs=""
for d in $RW_DIRS; do dirs="$dirs $(cd "$d" && pwd)"; done
echo "$dirs" >"$IO/rw-dirs"
mods=vgem
[ "$GPU" = 1 ] && mods="vgem virtio_gpu"
echo "$mods" >"$IO/modules"
{
  echo '#!/bin/bash'
  export -p | grep -vE '^declare -x (PWD|OLDPWD|SHLVL|_)=' || true
  printf 'cd %q || exit 126\n' "$PWD"
  printf 'exec'; printf ' %q' "$@"; echo
} >"$IO/cmd.sh"

shares=(-virtfs "local,path=$IO,mount_tag=io,security_model=none"
        -virtfs "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap")
i=0
for d in $dirs; do
  shares+=(-virtfs "local,path=$d,mount_tag=rw$i,security_model=none,multidevs=remap")
  i=$((i + 1))
done

display=()
if [ "$GPU" = 1 ]; then
  display=(-device "virtio-gpu-pci,xres=$GPU_XRES,yres=$GPU_YRES" -qmp "unix:$IO/qmp.sock,server=on,wait=off")
  python3 "$(dirname "$(readlink -f "$0")")/shotd.py" "$IO/qmp.sock" "$IO" 2>"$IO/shotd.err" &
  shotd=$!
  trap 'kill $shotd 2>/dev/null; rm -rf "$IO"' EXIT
fi

# /dev/kvm on these machines is a nested PVM that cannot run this kernel: use TCG.
mkfifo "$IO/out.in" "$IO/out.out"
cat "$IO/out.out" &
reader=$!
set +e
timeout -k 5 "$TIMEOUT" qemu-system-x86_64 -machine pc -accel tcg,thread=multi,tb-size=256 -cpu max \
  -smp "$CPUS" -m "$MEM" -nodefaults -no-user-config -display none -no-reboot \
  -kernel "$CACHE/kernel" -initrd "$CACHE/initramfs.gz" \
  -append "console=ttyS0 panic=-1 rdinit=/init quiet loglevel=3" \
  -serial "file:$IO/console.log" \
  -device virtio-serial-pci -chardev pipe,id=out,path="$IO/out" -device virtserialport,chardev=out,name=out \
  "${shares[@]}" "${display[@]}" </dev/null 2>"$IO/qemu.err"
qemu_status=$?
# If qemu never opened the pipe (it failed to start), the reader is still blocked in
# open(): open the writing end once to release it (bounded, in case it just finished).
if kill -0 "$reader" 2>/dev/null; then timeout 5 sh -c ': >"$1"' _ "$IO/out.out" || true; fi
wait "$reader"
set -e
if [ "$VERBOSE" = 1 ]; then sed 's/^/[guest] /' "$IO/console.log" "$IO/qemu.err" >&2; [ -f "$IO/shotd.err" ] && sed 's/^/[shotd] /' "$IO/shotd.err" >&2; fi
if [ -f "$IO/status" ]; then exit "$(cat "$IO/status")"; fi
if [ "$qemu_status" = 124 ] || [ "$qemu_status" = 137 ]; then
  echo "run-in-vm: the VM was stopped after ${TIMEOUT}s" >&2; exit 124
fi
echo "run-in-vm: the VM ended (qemu status $qemu_status) without reporting a status; console:" >&2
cat "$IO/console.log" "$IO/qemu.err" >&2 2>/dev/null || true
exit 125
