#!/usr/bin/env bash
# Tools/vm/weston-session.sh CMD [ARGS...] — inside the VM (Tools/vm/run-in-vm.sh with
# LAMINA_VM_GPU=1): starts Weston (Debian's weston 10) on its DRM backend over the
# virtio-gpu card, with its GL renderer (llvmpipe), runs CMD as a Wayland client of it
# (WAYLAND_DISPLAY set, LAMINA_DRM_DEVICE naming the card Weston renders with, where a
# client's dma-bufs must be allocated), then stops Weston. Exit status: CMD's.
set -uo pipefail
card=""
for c in /sys/class/drm/card[0-9]; do
  case "$(readlink -f "$c/device/driver")" in *virtio*) card=$(basename "$c") ;; esac
done
[ -n "$card" ] || { echo "weston-session: no virtio-gpu card (run with LAMINA_VM_GPU=1)" >&2; exit 2; }
export XDG_RUNTIME_DIR; XDG_RUNTIME_DIR=$(mktemp -d /tmp/xdg.XXXXXX); chmod 700 "$XDG_RUNTIME_DIR"
log=$XDG_RUNTIME_DIR/weston.log
weston --backend=drm-backend.so --tty=1 --drm-device="$card" --continue-without-input --no-config \
       --idle-time=0 --socket=wayland-1 --log="$log" &
weston=$!
for _ in $(seq 1 600); do [ -S "$XDG_RUNTIME_DIR/wayland-1" ] && break; kill -0 $weston 2>/dev/null || break; sleep 0.1; done
if [ ! -S "$XDG_RUNTIME_DIR/wayland-1" ]; then
  echo "weston-session: Weston did not start; its log:" >&2; cat "$log" >&2; exit 2
fi
grep -E "Using|renderer|dmabuf|Output|DRM: " "$log" | head -8 | sed 's/^/weston: /'
WAYLAND_DISPLAY=wayland-1 LAMINA_DRM_DEVICE=/dev/dri/$card "$@"
status=$?
kill $weston 2>/dev/null; wait $weston 2>/dev/null   # (weston 10 may crash on exit after a dmabuf client: ignored)
[ "$status" = 0 ] || { echo "weston-session: the client failed; Weston's log:" >&2; tail -30 "$log" >&2; }
exit $status
