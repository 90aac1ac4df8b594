#!/usr/bin/env bash
# Runs Examples/GTK/gtk-host (built against the installed library: BINARY) in an X window
# under its own Xvfb: clicks Lamina's button and presses a key with xdotool (real X events
# through GTK's event controllers), and passes when the application's self-checks pass —
# the HUD over its GL scene in the GtkGLArea's framebuffer, its GL state intact, renders
# only on Lamina's frame requests (none in an idle second after each animation). Twice: with
# GDK's default context (GLX on X11 in GTK 4.8) and with GDK_DEBUG=gl-egl (EGL).
#   bash Tools/gtk-host-test.sh BINARY
set -uo pipefail
bin=$1
out=$(mktemp -d /tmp/lamina-gtk.XXXXXX)
xvfb_pid=
cleanup() { [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null; rm -rf "$out"; }
trap cleanup EXIT
exec 3< <(Xvfb -displayfd 1 -screen 0 640x480x24 -nolisten tcp 2>"$out/xvfb.log")
read -r -t 20 display <&3 || { echo "gtk-host-test: Xvfb did not start: $(cat "$out/xvfb.log")"; exit 1; }
xvfb_pid=$(pgrep -n Xvfb)
export DISPLAY=:$display
# No session bus, accessibility bus or settings daemon here: GTK runs without them.
export NO_AT_BRIDGE=1 GTK_A11Y=none GSETTINGS_BACKEND=memory

run() {   # run GDK_DEBUG-VALUE LABEL
  GDK_DEBUG=$1 "$bin" >"$out/host.log" 2>&1 &
  local host=$!
  for _ in $(seq 1 150); do grep -q "ready" "$out/host.log" && break; sleep 0.1; done
  local window
  window=$(timeout 10 xdotool search --sync --name lamina-gtk | head -1)
  if [ -z "$window" ]; then cat "$out/host.log"; echo "gtk-host-test: no window ($2)"; kill $host 2>/dev/null; exit 1; fi
  sleep 0.3
  xdotool mousemove --window "$window" 80 45 click 1
  for _ in $(seq 1 50); do grep -q "waiting for the key" "$out/host.log" && break; sleep 0.1; done
  xdotool windowfocus --sync "$window" 2>/dev/null; xdotool key b
  wait $host; local status=$?
  cat "$out/host.log"
  [ $status = 0 ] || { echo "gtk-host-test: the $2 run failed ($status)"; exit 1; }
}
run "" "GDK default (GLX on X11 in GTK 4.8)"
run gl-egl "GDK_DEBUG=gl-egl (EGL)"
echo "gtk-host-test: passed"
