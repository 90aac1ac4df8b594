#!/usr/bin/env bash
# Runs Examples/Qt/qt-host (built against the installed library: BINARY) in an X window
# under its own Xvfb: clicks Lamina's button and presses a key with xdotool (real X events
# through Qt's event delivery), and passes when the application's self-checks pass — the
# HUD over its GL scene in defaultFramebufferObject(), its GL state intact, paints only on
# Lamina's frame requests (none in an idle second after each animation). Three times: Qt's
# default context (desktop GL through GLX on xcb), a 3.3 core profile (--core), and EGL
# (QT_XCB_GL_INTEGRATION=xcb_egl).
#   bash Tools/qt-host-test.sh BINARY
set -uo pipefail
bin=$1
out=$(mktemp -d /tmp/lamina-qt.XXXXXX)
xvfb_pid=
cleanup() { [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null; rm -rf "$out"; }
trap cleanup EXIT
exec 3< <(Xvfb -displayfd 1 -screen 0 640x480x24 -nolisten tcp 2>"$out/xvfb.log")
read -r -t 20 display <&3 || { echo "qt-host-test: Xvfb did not start: $(cat "$out/xvfb.log")"; exit 1; }
xvfb_pid=$(pgrep -n Xvfb)
export DISPLAY=:$display
export QT_QPA_PLATFORM=xcb XDG_RUNTIME_DIR=$out

run() {   # run QT_XCB_GL_INTEGRATION-VALUE ARGUMENT LABEL
  QT_XCB_GL_INTEGRATION=$1 "$bin" $2 >"$out/host.log" 2>&1 &
  local host=$!
  for _ in $(seq 1 150); do grep -q "ready" "$out/host.log" && break; sleep 0.1; done
  local window
  window=$(timeout 10 xdotool search --sync --name lamina-qt | head -1)
  if [ -z "$window" ]; then cat "$out/host.log"; echo "qt-host-test: no window ($3)"; kill $host 2>/dev/null; exit 1; fi
  sleep 0.3
  xdotool mousemove --window "$window" 80 45 click 1
  for _ in $(seq 1 50); do grep -q "waiting for the key" "$out/host.log" && break; sleep 0.1; done
  xdotool windowfocus --sync "$window" 2>/dev/null; xdotool key b
  wait $host; local status=$?
  cat "$out/host.log"
  [ $status = 0 ] || { echo "qt-host-test: the $3 run failed ($status)"; exit 1; }
}
run xcb_glx "" "Qt's default (GLX)"
run xcb_glx --core "GLX, 3.3 core profile"
run xcb_egl "" "QT_XCB_GL_INTEGRATION=xcb_egl (EGL)"
echo "qt-host-test: passed"
