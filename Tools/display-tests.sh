#!/usr/bin/env bash
# Lamina on real displays inside the test VM (Tools/vm/run-in-vm.sh with LAMINA_VM_GPU=1:
# qemu's virtio-gpu, a KMS device whose monitor qemu captures with screendump), with the
# display example (Examples/Display, lamina-display):
# - kms: sets a mode and page-flips a GBM swapchain for 30 frames, paced by flip events;
# - wayland: a fullscreen client of Weston (Debian's weston 10, DRM backend, GL renderer)
#   whose buffers are the swapchain's dma-bufs (zwp_linux_dmabuf_v1), for 20 frames;
# each compares qemu's screendumps of chosen frames with full renders of those frames; and
# the controls: with the checked frame never presented, the check must fail.
# Prints "✔ display: …" / "✘ display: …" lines and "display: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0 failed=0
ok() { echo "✔ display: $*"; passed=$((passed + 1)); }
ko() { echo "✘ display: $*"; failed=$((failed + 1)); }
work=$(mktemp -d /tmp/lamina-display.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The release build, as users run it: in the VM, where TCG emulates every instruction, a
# frame of the debug build took 2.5 s, of the release build 0.65 s (10 frames at 800×600).
# (Tools/test.sh builds it in the background beforehand; here it is then up to date.)
app=.build/release/lamina-display
swift build -c release --product lamina-display >/dev/null || { ko "lamina-display does not build"; echo "display: $passed passed, $failed failed"; exit 1; }
# The four runs share one VM boot (a boot under TCG costs about 25 s: 306 s for the four
# together against 380 s with a VM each, on 2 cores). The guest runs them in turn, each
# step's output and exit status written to $work (mounted read-write), and each is judged
# here as if it had had a VM of its own. A step's display state does not carry over: each
# sets its mode (or starts its Weston) from frame 0, and a screendump request removes the
# answer to an earlier one of its name.
steps=()
# step NAME CMD...: a step of the guest's script.
step() {
  local name=$1; shift
  steps+=("$name")
  printf '%q ' "$@" >"$work/$name.cmd"
}
step kms "$app" kms --frames 30 --shots 5,17,29 --check-shots
step kms-control "$app" kms --frames 8 --shots 6 --check-shots --drop-flip 6
step wayland Tools/vm/weston-session.sh "$app" wayland --frames 20 --shots 5,19 --check-shots
step wayland-control Tools/vm/weston-session.sh "$app" wayland --frames 8 --shots 7 --check-shots --drop-flip 7
{
  echo 'set -u'
  for name in "${steps[@]}"; do
    echo "echo '== step $name'"
    echo "timeout -k 5 600 bash -c \"\$(cat '$work/$name.cmd')\" >'$work/$name.txt' 2>&1; echo \$? >'$work/$name.status'"
  done
} >"$work/steps.sh"
LAMINA_VM_GPU=1 LAMINA_VM_XRES=800 LAMINA_VM_YRES=600 GBM_ALWAYS_SOFTWARE=1 LAMINA_VM_TIMEOUT=1500 \
  LAMINA_VM_RW_DIRS="$work" Tools/vm/run-in-vm.sh bash "$work/steps.sh" >"$work/vm.txt" 2>&1
vm_status=$?
# A step that left no status (the VM died or timed out during it): its output and the VM's.
# (A step past its own 600 s ends with timeout's status, 124: a failure.)
status_of() {
  if [ -s "$work/$1.status" ]; then cat "$work/$1.status"
  else echo "display-tests: step $1 reported no exit status (the VM's run ended with status $vm_status):" >>"$work/$1.txt"
       cat "$work/vm.txt" >>"$work/$1.txt"; echo 125; fi
}
for name in "${steps[@]}"; do touch "$work/$name.txt"; done

# run NAME EXPECTED-MATCHES PRESENTATIONS-PATTERN: the step succeeded, with that many
# screendumps matching and its presentations reported.
run() {
  local name=$1 matches=$2 pattern=$3
  if [ "$(status_of "$name")" = 0 ] && [ "$(grep -c ' — match$' "$work/$name.txt")" = "$matches" ] && grep -q "$pattern" "$work/$name.txt"; then
    sed 's/^/   /' "$work/$name.txt"; return 0
  fi
  cat "$work/$name.txt"; return 1
}
# control NAME FRAME: the step must fail, with FRAME's screendump a mismatch.
control() {
  local name=$1 frame=$2
  if [ "$(status_of "$name")" = 0 ]; then cat "$work/$name.txt"; return 1; fi
  grep -q "frame $frame: .* MISMATCH\$" "$work/$name.txt" || { cat "$work/$name.txt"; return 1; }
  grep "frame $frame" "$work/$name.txt" | sed 's/^/   /'
}

run kms 3 ' 29 page flips with events' \
  && ok "KMS on virtio-gpu: 30 frames, 29 page flips paced by their events, 3 qemu screendumps match full renders" \
  || ko "KMS on virtio-gpu"
control kms-control 6 \
  && ok "the KMS control: a frame left unflipped is caught by the screendump check" \
  || ko "the KMS control: a frame never flipped went unnoticed (or the run failed otherwise)"
run wayland 2 ' 20 frame callbacks' \
  && ok "Weston (DRM backend, GL renderer) shows the Lamina client's dma-buf frames: 20 frames, 2 qemu screendumps match full renders" \
  || ko "the Wayland client in Weston"
control wayland-control 7 \
  && ok "the Wayland control: a frame never committed is caught by the screendump check" \
  || ko "the Wayland control: a frame never committed went unnoticed (or the run failed otherwise)"

echo "display: $passed passed, $failed failed"
[ "$failed" = 0 ]
