#!/usr/bin/env bash
# Runs Examples/GLFW/glfw-host (built against the installed library: BINARY) in an X window
# under its own Xvfb, clicks its button with xdotool (a real X event through GLFW), and
# passes when the host's self-checks pass: the HUD over the application's scene, the click
# delivered through hit testing, the application's GL state intact. Then runs it with
# GLFW's defaults (--glx: desktop GL through GLX), where Lamina must refuse the context
# with a clear error (exit 3), not crash.
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
"$bin" >"$out/host.log" 2>&1 &
host=$!
for _ in $(seq 1 100); do grep -q "ready" "$out/host.log" && break; sleep 0.1; done
window=$(timeout 10 xdotool search --sync --name lamina-glfw | head -1)
if [ -z "$window" ]; then cat "$out/host.log"; echo "glfw-host-test: no window"; kill $host 2>/dev/null; exit 1; fi
sleep 0.3
xdotool mousemove --window "$window" 80 45 click 1
wait $host; status=$?
cat "$out/host.log"
[ $status = 0 ] || { echo "glfw-host-test: the EGL + ES run failed ($status)"; exit 1; }
"$bin" --glx >"$out/glx.log" 2>&1; glx=$?
cat "$out/glx.log"
[ $glx = 3 ] || { echo "glfw-host-test: with GLFW's defaults (GLX, desktop GL) it should refuse the context cleanly (exit 3), got $glx"; exit 1; }
echo "glfw-host-test: passed"
