#!/usr/bin/env bash
# The main job: builds Lamina and renders the showcase to out/showcase.png, printing the
# GPU device it used. (Until the layer tree lands, the showcase is the GPU test pattern.)
# Extra arguments go to `lamina selftest` (e.g. --backend surfaceless --scale 2).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Tools/setup.sh
swift build --product lamina 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
test -x .build/debug/lamina || { echo "showcase: build failed" >&2; exit 1; }
mkdir -p out
.build/debug/lamina info
.build/debug/lamina selftest -o out/showcase.png "$@"
