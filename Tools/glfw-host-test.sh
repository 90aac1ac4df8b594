#!/usr/bin/env bash
# Runs Examples/GLFW/glfw-host (built against the installed library: BINARY) in an X window
# under its own Xvfb, clicks its button with xdotool (a real X event through GLFW), and
# passes when the host's self-checks pass: the HUD over the application's scene, the pointer
# entering, the click and a key ('b', with its text) delivered to the button view through
# Lamina's window (hit testing, the first responder, the button's event handler), the application's GL state intact, Lamina's own device
# working while the application's context is current. Three times: GLFW's defaults (desktop
# OpenGL through GLX), --core (3.3 core through GLX) and --egl (OpenGL ES 3 through EGL).
#   bash Tools/glfw-host-test.sh BINARY
set -uo pipefail
bin=$1
out=$(mktemp -d /tmp/lamina-glfw.XXXXXX)
xvfb_pid=
cleanup() { [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null; rm -rf "$out"; }
trap cleanup EXIT
exec 3< <(Xvfb -displayfd 1 -screen 0 640x480x24 -nolisten tcp 2>"$out/xvfb.log")
read -r -t 20 display <&3 || { echo "glfw-host-test: Xvfb did not start: $(cat "$out/xvfb.log")"; exit 1; }
xvfb_pid=$(pgrep -n Xvfb)
export DISPLAY=:$display
run() {   # run MODE-ARGUMENT LABEL
  "$bin" $1 >"$out/host.log" 2>&1 &
  local host=$!
  for _ in $(seq 1 100); do grep -q "ready" "$out/host.log" && break; sleep 0.1; done
  local window
  window=$(timeout 10 xdotool search --sync --name lamina-glfw | head -1)
  if [ -z "$window" ]; then cat "$out/host.log"; echo "glfw-host-test: no window ($2)"; kill $host 2>/dev/null; exit 1; fi
  sleep 0.3
  xdotool mousemove --window "$window" 80 45 click 1
  xdotool windowfocus --sync "$window" 2>/dev/null; xdotool key b
  wait $host; local status=$?
  cat "$out/host.log"
  [ $status = 0 ] || { echo "glfw-host-test: the $2 run failed ($status)"; exit 1; }
}
run "" "GLFW defaults (GLX, desktop GL compatibility profile)"
run --core "GLX, desktop GL 3.3 core profile"
run --egl "EGL + OpenGL ES 3"
echo "glfw-host-test: passed"
