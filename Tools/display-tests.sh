#!/usr/bin/env bash
# Lamina on real displays inside the test VM (Tools/vm/run-in-vm.sh with LAMINA_VM_GPU=1:
# qemu's virtio-gpu, a KMS device whose monitor qemu captures with screendump):
# - the KMS example (Examples/KMS, lamina-kms) sets a mode, page-flips a GBM swapchain for
#   30 frames paced by flip events, and compares three of qemu's screendumps with full
#   renders of those frames;
# - the control: with one flip left out, the check must fail (the display is a frame behind).
# Prints "✔ display: …" / "✘ display: …" lines and "display: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0 failed=0
ok() { echo "✔ display: $*"; passed=$((passed + 1)); }
ko() { echo "✘ display: $*"; failed=$((failed + 1)); }
work=$(mktemp -d /tmp/lamina-display.XXXXXX)
trap 'rm -rf "$work"' EXIT
kms=.build/debug/lamina-kms
[ -x "$kms" ] || swift build --product lamina-kms >/dev/null || { ko "lamina-kms does not build"; echo "display: $passed passed, $failed failed"; exit 1; }
vm() { LAMINA_VM_GPU=1 LAMINA_VM_XRES=800 LAMINA_VM_YRES=600 GBM_ALWAYS_SOFTWARE=1 LAMINA_VM_TIMEOUT=600 Tools/vm/run-in-vm.sh "$@"; }

if vm "$kms" --frames 30 --shots 5,17,29 --check-shots >"$work/kms.txt" 2>&1 \
   && [ "$(grep -c ' — match$' "$work/kms.txt")" = 3 ] && grep -q ' 29 page flips with events' "$work/kms.txt"; then
  sed 's/^/   /' "$work/kms.txt"; ok "KMS example on virtio-gpu: 30 frames, 29 page flips paced by their events, 3 qemu screendumps match full renders"
else
  cat "$work/kms.txt"; ko "KMS example on virtio-gpu"
fi

if vm "$kms" --frames 20 --shots 12 --check-shots --drop-flip 12 >"$work/control.txt" 2>&1; then
  cat "$work/control.txt"; ko "the control: a frame never flipped went unnoticed by the screendump check"
elif grep -q 'frame 12: .* MISMATCH$' "$work/control.txt"; then
  grep 'frame 12' "$work/control.txt" | sed 's/^/   /'; ok "the control: a frame left unflipped is caught by the screendump check"
else
  cat "$work/control.txt"; ko "the control run failed for another reason"
fi

echo "display: $passed passed, $failed failed"
[ "$failed" = 0 ]
