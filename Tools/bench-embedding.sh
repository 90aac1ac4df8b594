#!/usr/bin/env bash
# Tools/bench-embedding.sh [FRAMES] [ROUNDS]
# What embedding Lamina costs a real host: Examples/SDLHost (release build) in an X window
# under Xvfb, FRAMES frames without pacing (default 600), for ROUNDS rounds (default 3) of
# three runs each, interleaved: the host alone (`none`, the baseline), the HUD in retained
# mode, the HUD in every-frame mode. The HUD does not change during the run: this is a host
# that redraws every frame while Lamina's tree is unchanged. Prints, per mode, the medians
# over the rounds of each run's steady-state medians (the second half of its frames):
#   frame_us        the host's whole frame (its scene, Lamina's part, the buffer swap)
#   lamina_wall_us  time inside Lamina's calls (runFrame, present), waiting included
#   lamina_cpu_us   CPU time of the host's thread inside them (no rasteriser threads)
#   lamina_draw_calls, and the frame time as a ratio of the baseline's, same run.
# Then the median cost of an empty adopted-context round trip (the host's GL state
# captured and restored, its pending error set aside and raised again).
set -euo pipefail
cd "$(dirname "$0")/.."
frames=${1:-600}
rounds=${2:-3}
bash Tools/setup.sh --tests
rm -f Examples/SDLHost/.build/*/*/description.json   # (a stale plan misses new Lamina files: Tools/test.sh)
swift build -c release --package-path Examples/SDLHost 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' >&2
host=Examples/SDLHost/.build/release/sdl-host

work=$(mktemp -d /tmp/lamina-bench.XXXXXX)
Xvfb -displayfd 1 -screen 0 800x600x24 -nolisten tcp >"$work/display" 2>/dev/null &
xvfb=$!
disown "$xvfb"
cleanup() { kill -9 "$xvfb" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM HUP
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.05; done
export DISPLAY=":$(head -1 "$work/display")"

field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for round in $(seq "$rounds"); do
  for mode in none retained every-frame; do
    "$host" --mode "$mode" --bench --frames "$frames" </dev/null >"$work/$mode.$round" 2>&1
  done
done

printf '%-12s %10s %16s %15s %18s %8s\n' mode frame_us lamina_wall_us lamina_cpu_us lamina_draw_calls ratio
base=$(cat "$work"/none.* | grep '^stats' | field frame_us | median)
for mode in none retained every-frame; do
  stats=$(cat "$work/$mode".* | grep '^stats')
  frame=$(echo "$stats" | field frame_us | median)
  printf '%-12s %10s %16s %15s %18s %8s\n' "$mode" "$frame" \
    "$(echo "$stats" | field lamina_wall_us | median)" "$(echo "$stats" | field lamina_cpu_us | median)" \
    "$(echo "$stats" | field lamina_draw_calls | median)" "$(awk -v a="$frame" -v b="$base" 'BEGIN { printf "%.2f", a / b }')"
  if echo "$stats" | grep -qv 'host_state=intact'; then echo "  host state changed in a $mode run!" >&2; fi
done
echo "adopted-context round trip: $(cat "$work"/retained.* "$work"/every-frame.* | sed -n 's/.*: \([0-9.]*\) us median/\1/p' | median) us (median of runs)"
