#!/usr/bin/env bash
# Builds the DocC documentation of every public module (Sources/*/*.docc) with
# swift-docc-plugin, warnings as errors: a broken symbol link fails. Archives land in
# .build/plugins/Swift-DocC/outputs/. Prints "docs: N built, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
built=0; failed=0
for module in Lamina LaminaGeometry LaminaValues LaminaGPU LaminaGraphics LaminaModel LaminaRender LaminaCore LaminaScene LaminaUI; do
  log=$(mktemp)
  start=$SECONDS
  if swift package --disable-sandbox generate-documentation --target "$module" --warnings-as-errors >"$log" 2>&1; then
    echo "✔ docs: $module ($((SECONDS - start)) s)"; built=$((built + 1))
  else
    grep -vE '^\[[0-9]+/[0-9]+\]' "$log" | tail -20; echo "✘ docs: $module"; failed=$((failed + 1))
  fi
  rm -f "$log"
done
echo "docs: $built built, $failed failed"
[ "$failed" = 0 ]
