#!/usr/bin/env bash
# The test command: installs what is missing, builds with warnings treated as failures
# (Lamina, and the SDL2 host program of Examples/SDLHost that the suite drives under
# Xvfb), runs the whole test suite on this machine (llvmpipe through EGL), then runs the
# GBM suite with the same test binary inside a VM that has a DRM device (Tools/vm/), the
# C API's tests (Tools/capi-tests.sh: install, C/C++/Rust examples), the DocC build
# (Tools/docs.sh), Lamina on displays in the VM (Tools/display-tests.sh: KMS on
# virtio-gpu, checked with qemu screendumps; a Wayland client in Weston), and the suite again
# under AddressSanitizer and ThreadSanitizer (Tools/sanitize.sh).
# Prints how long each stage took ("   (stage took N s)") and the whole run.
# Exits non-zero when anything fails; ends with one line "tests: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
bash Tools/setup.sh --tests
export NO_COLOR=1

log=$(mktemp -d /tmp/lamina-test.XXXXXX)
trap 'rm -rf "$log"' EXIT
strip() { sed -e 's/\x1b\[[0-9;]*m//g'; }
# Each stage's time: `stage` starts it (its "== ..." line), `took` ends it.
stage() { stage_start=$SECONDS; echo "== $*"; }
took() { echo "   (stage took $((SECONDS - stage_start)) s)"; }

stage "build (our targets treat warnings as errors: see Package.swift)"
set +e
swift build --build-tests 2>&1 | tee "$log/build.txt" | grep -vE '^\[[0-9]+/[0-9]+\]'
build_status=${PIPESTATUS[0]}
set -e
took
[ "$build_status" = 0 ] || { echo "tests: 0 passed, 1 failed (the build failed)"; exit 1; }

stage "build the SDL2 host (Examples/SDLHost, its own package depending on Lamina by path)"
set +e
swift build --package-path Examples/SDLHost 2>&1 | tee "$log/host-build.txt" | grep -vE '^\[[0-9]+/[0-9]+\]'
host_build_status=${PIPESTATUS[0]}
set -e
took
[ "$host_build_status" = 0 ] || { echo "tests: 0 passed, 1 failed (the SDL host's build failed)"; exit 1; }

stage "tests on this machine"
set +e
swift test --skip-build 2>&1 | strip | tee "$log/host.txt" | grep -vE '^◇'
host_status=${PIPESTATUS[0]}
set -e
took

# A step: its command's output shown and kept in $log/NAME.txt, its status in NAME_status.
step() {
  local name=$1; shift
  set +e
  "$@" 2>&1 | strip | tee "$log/$name.txt"
  printf -v "${name}_status" '%s' "${PIPESTATUS[0]}"
  set -e
}

stage "the C API: install, C/C++/Rust examples against it through pkg-config, C error tests (Tools/capi-tests.sh)"
step capi env LAMINA_CAPI_VM=1 bash Tools/capi-tests.sh
took

stage "DocC documentation of every public module, warnings as errors (Tools/docs.sh)"
step docs bash Tools/docs.sh
took

stage "GBM tests inside the VM (Tools/vm/run-in-vm.sh, vgem, /dev/dri/card0)"
set +e
LAMINA_GBM_TESTS=1 GBM_ALWAYS_SOFTWARE=1 Tools/vm/run-in-vm.sh \
  .build/debug/LaminaPackageTests.xctest --testing-library swift-testing --no-parallel --filter GBM 2>&1 \
  | strip | tee "$log/vm.txt" | grep -vE '^◇|DRM_IOCTL_MODE_CREATE_DUMB'
vm_status=${PIPESTATUS[0]}
set -e
took

stage "Lamina on displays in the VM: KMS on virtio-gpu and a Wayland client in Weston, checked with qemu screendumps (Tools/display-tests.sh)"
step display bash Tools/display-tests.sh
took

stage "the suite under AddressSanitizer and ThreadSanitizer (Tools/sanitize.sh)"
step sanitize bash Tools/sanitize.sh
took

count() { grep -cE "$1" "$2" || true; }
host_passed=$(count '^✔ Test "' "$log/host.txt")
host_failed=$(count '^✘ Test .* failed' "$log/host.txt")
host_skipped=$(count '^➜ Test "' "$log/host.txt")
vm_passed=$(count '^✔ Test "' "$log/vm.txt")
vm_failed=$(count '^✘ Test .* failed' "$log/vm.txt")
vm_skipped=$(count '^➜ Test "' "$log/vm.txt")

docs_passed=$(count '^✔ docs: ' "$log/docs.txt")
docs_failed=$(count '^✘ docs: ' "$log/docs.txt")
capi_passed=$(count '^✔ capi: ' "$log/capi.txt")
capi_failed=$(count '^✘ capi: ' "$log/capi.txt")
display_passed=$(count '^✔ display: ' "$log/display.txt")
display_failed=$(count '^✘ display: ' "$log/display.txt")
echo "host: $host_passed passed, $host_failed failed, $host_skipped skipped (the GBM suite, run in the VM)"
echo "VM:   $vm_passed passed, $vm_failed failed, $vm_skipped skipped"
echo "C API: $capi_passed passed, $capi_failed failed"
echo "DocC:  $docs_passed built, $docs_failed failed"
echo "Displays: $display_passed passed, $display_failed failed"
status=0
[ "$host_status" = 0 ] || { echo "host tests failed (status $host_status)" >&2; status=1; }
[ "$vm_status" = 0 ] || { echo "GBM tests in the VM failed (status $vm_status)" >&2; status=1; }
[ "$docs_status" = 0 ] && [ "$docs_passed" -gt 0 ] || { echo "the documentation does not build (Tools/docs.sh)" >&2; status=1; }
[ "$capi_status" = 0 ] && [ "$capi_passed" -gt 0 ] || { echo "the C API's tests failed (Tools/capi-tests.sh)" >&2; status=1; }
[ "$display_status" = 0 ] && [ "$display_passed" -gt 0 ] || { echo "the display tests failed (Tools/display-tests.sh)" >&2; status=1; }
[ "$sanitize_status" = 0 ] || { echo "the suite failed under a sanitizer (Tools/sanitize.sh)" >&2; status=1; }
# Every test skipped on the host must have run in the VM, and nothing may skip there.
[ "$vm_skipped" = 0 ] || { echo "GBM tests were skipped inside the VM" >&2; status=1; }
[ "$vm_passed" -ge "$host_skipped" ] || { echo "only $vm_passed GBM tests passed in the VM, $host_skipped were left to it" >&2; status=1; }
[ "$host_passed" -gt 0 ] || { echo "no host test ran" >&2; status=1; }
failed=$((host_failed + vm_failed + capi_failed + docs_failed + display_failed))
[ "$status" = 0 ] || [ "$failed" -gt 0 ] || failed=1
echo "time: $SECONDS s in all (setup included)"
echo "tests: $((host_passed + vm_passed + capi_passed + docs_passed + display_passed)) passed, $failed failed"
exit "$status"
