#!/usr/bin/env bash
# Builds the DocC documentation of every public module (Sources/*/*.docc) with
# swift-docc-plugin, warnings as errors: a broken symbol link fails. Archives land in
# .build/plugins/Swift-DocC/outputs/. Prints "✔ docs: MODULE" per archive and "docs: N built,
# N failed".
# One invocation builds all of them (38 s here, against 75 s for one invocation a module:
# each extracts the symbol graphs again). When it fails, each module is built alone, so
# that the failure names its module.
set -uo pipefail
cd "$(dirname "$0")/.."
modules=(Lamina LaminaGeometry LaminaValues LaminaGPU LaminaGraphics LaminaModel LaminaRender LaminaCore LaminaScene LaminaUI)
build() { swift package --disable-sandbox generate-documentation "${@/#/--target=}" --warnings-as-errors; }
built=0; failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
if build "${modules[@]}" >"$log" 2>&1; then
  for module in "${modules[@]}"; do
    if grep -q "outputs/$module.doccarchive$" "$log"; then
      echo "✔ docs: $module"; built=$((built + 1))
    else echo "✘ docs: $module (no archive generated)"; failed=$((failed + 1)); fi
  done
  echo "   (all in one invocation: $((SECONDS - start)) s)"
else
  grep -vE '^\[[0-9]+/[0-9]+\]' "$log" | tail -20
  echo "   (one invocation for all failed: each module alone, to name it)"
  for module in "${modules[@]}"; do
    start=$SECONDS
    if build "$module" >"$log" 2>&1; then
      echo "✔ docs: $module ($((SECONDS - start)) s)"; built=$((built + 1))
    else
      grep -vE '^\[[0-9]+/[0-9]+\]' "$log" | tail -20; echo "✘ docs: $module"; failed=$((failed + 1))
    fi
  done
fi
echo "docs: $built built, $failed failed"
[ "$failed" = 0 ]
