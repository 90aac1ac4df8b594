#!/usr/bin/env bash
# The main job: builds Lamina, renders the showcase scene (Examples/showcase.json) to
# out/showcase.png with the frame's statistics and the animated example at 0.4 s to
# out/animated.png, then runs the interactive demo (views, animations,
# scripted touches) into out/demo/ (one PNG per frame, a contact sheet, and filmstrips
# of the animations, of a transition and of a tiled layer zooming).
# Extra arguments go to `lamina render` (e.g. --backend surfaceless --scale 2).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Tools/setup.sh
set +e
swift build --product lamina 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]'
status=${PIPESTATUS[0]}
set -e
[ "$status" = 0 ] || { echo "showcase: the build failed" >&2; exit 1; }
mkdir -p out
.build/debug/lamina info
.build/debug/lamina render Examples/showcase.json -o out/showcase.png --stats "$@"
# The animated example at 0.4 s (its animations evaluated at that media time).
.build/debug/lamina render Examples/animated.json --time 0.4 -o out/animated.png --stats "$@"
.build/debug/lamina demo -o out/demo --filmstrip out/demo/filmstrip.png --transition-filmstrip out/demo/transition-filmstrip.png \
  --tiled-filmstrip out/demo/tiled-zoom.png --push-filmstrip out/demo/push-filmstrip.png
