#!/usr/bin/env bash
# The test command: installs what is missing, builds with warnings treated as failures
# (Lamina, and the SDL2 host program of Examples/SDLHost that the suite drives under
# Xvfb), runs the test suite on this machine (llvmpipe through EGL) under AddressSanitizer,
# the C API's C programs against the instrumented library (Tools/capi-sanitize.sh), and
# then the GBM suite with the same instrumented test binary inside a VM that has a DRM
# device (Tools/sanitize.sh address; Tools/vm/), the tests that run leaves out uninstrumented
# (the real SDL2 host, the scene fuzzer, the 10⁵-deep and 10⁶-wide stress tests), the C
# API's tests (Tools/capi-tests.sh: install, C/C++/Rust examples), the DocC build
# (Tools/docs.sh), Lamina on displays in the VM (Tools/display-tests.sh: KMS on
# virtio-gpu, checked with qemu screendumps; a Wayland client in Weston), and the suites
# that run on several threads under ThreadSanitizer (Tools/sanitize.sh thread; its build
# made in the background meanwhile), the C API's C programs again against that library.
# The suite runs once, instrumented, not once plain and once again under AddressSanitizer:
# that saves about 5 minutes of CI (the plain run took 449 s and the plain GBM run 76 s;
# the tests left out of the instrumented run take 214 s plain).
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
# SwiftPM keeps the host package's build plan and does not look again for source files
# added to Lamina (a path dependency) since it was made: the host's build then fails to
# find them. The plan is remade in under a second; nothing is recompiled for it.
rm -f Examples/SDLHost/.build/*/*/description.json
set +e
swift build --package-path Examples/SDLHost 2>&1 | tee "$log/host-build.txt" | grep -vE '^\[[0-9]+/[0-9]+\]'
host_build_status=${PIPESTATUS[0]}
set -e
took
[ "$host_build_status" = 0 ] || { echo "tests: 0 passed, 1 failed (the SDL host's build failed)"; exit 1; }

step() {
  local name=$1; shift
  set +e
  "$@" 2>&1 | strip | tee "$log/$name.txt"
  printf -v "${name}_status" '%s' "${PIPESTATUS[0]}"
  set -e
}

stage "build the suite for AddressSanitizer (Tools/sanitize.sh --build-only address)"
step asan_build bash Tools/sanitize.sh --build-only address
took

# Builds in the background from here, one after another, at idle priority (SCHED_IDLE:
# they get only the cycles nothing else wants): ThreadSanitizer's suite, the C library's
# release build (Tools/install.sh into a scratch prefix: the C API stage's own install then
# finds it built), the display example's (Tools/display-tests.sh runs the release build) and
# the DocC archives (Tools/docs.sh; its stage shows what it printed).
# The suite under AddressSanitizer runs its tests on the main actor one at a time and
# leaves about half of the 2 cores idle; these fill them. At nice 19 instead, a build beside
# the suite made it twice as slow (80 s → 155 s for 13 of its tests; under SCHED_IDLE 79 s).
# A stage that needs one of them waits for it; a foreground build in the same build
# directory waits for SwiftPM's lock.
idle() { if chrt --idle 0 true 2>/dev/null; then chrt --idle 0 "$@"; else nice -n 19 "$@"; fi; }
(
  idle bash Tools/sanitize.sh --build-only thread >"$log/thread-build.txt" 2>&1; echo $? >"$log/thread-build.status"
  idle bash Tools/install.sh --prefix "$log/release-prefix" >"$log/release-build.txt" 2>&1
  idle swift build -c release --product lamina-display >>"$log/release-build.txt" 2>&1
  idle bash Tools/docs.sh >"$log/docs-background.txt" 2>&1; echo $? >"$log/docs.status"
) &
background=$!

stage "the suite on this machine under AddressSanitizer, the C API's C programs against the instrumented library (Tools/capi-sanitize.sh), then the GBM suites in the VM (Tools/vm/run-in-vm.sh, vgem, /dev/dri/card0) with the same binary (Tools/sanitize.sh address)"
step asan env LAMINA_SANITIZE_LOGS="$log" bash Tools/sanitize.sh address
took

stage "the tests the instrumented run leaves out, uninstrumented: the real SDL2 host under Xvfb, the scene fuzzer, the stress tests"
set +e
swift test --skip-build --filter "$(bash Tools/sanitize.sh --left-out)" 2>&1 | strip | tee "$log/plain.txt" | grep -vE '^◇'
plain_status=${PIPESTATUS[0]}
set -e
took

stage "the C API: install, C/C++/Rust examples against it through pkg-config, C error tests (Tools/capi-tests.sh)"
step capi env LAMINA_CAPI_VM=1 bash Tools/capi-tests.sh
took

stage "DocC documentation of every public module, warnings as errors (Tools/docs.sh, built in the background)"
wait_start=$SECONDS
wait "$background" || true
echo "   (waited $((SECONDS - wait_start)) s for the background builds: $(grep -oE 'the thread build: [0-9]+ s' "$log/thread-build.txt" || echo 'ThreadSanitizer: no time printed'))"
strip <"$log/docs-background.txt" | tee "$log/docs.txt"
docs_status=$(cat "$log/docs.status" 2>/dev/null || echo 1)
took

stage "Lamina on displays in the VM: KMS on virtio-gpu and a Wayland client in Weston, checked with qemu screendumps (Tools/display-tests.sh)"
step display bash Tools/display-tests.sh
took

stage "the suites that run on several threads under ThreadSanitizer, the C API's C programs against the instrumented library, then the GBM suites in the VM (Tools/sanitize.sh thread)"
if [ "$(cat "$log/thread-build.status" 2>/dev/null)" = 0 ]; then
  step tsan bash Tools/sanitize.sh thread
else
  tail -40 "$log/thread-build.txt"; echo "the ThreadSanitizer build failed"; tsan_status=1
fi
took

count() { if [ -f "$2" ]; then grep -cE "$1" "$2" || true; else echo 0; fi; }
# The suite's runs on this machine: instrumented (Tools/sanitize.sh keeps its logs), then
# what that leaves out; the VM's: the GBM suites under AddressSanitizer.
cat "$log/address-suite.txt" "$log/plain.txt" >"$log/host.txt" 2>/dev/null || true
[ ! -f "$log/address-vm.txt" ] || cp "$log/address-vm.txt" "$log/vm.txt"
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
capi_asan_passed=$(count '^✔ capi-asan: ' "$log/asan.txt")
capi_asan_failed=$(count '^✘ capi-asan: ' "$log/asan.txt")
capi_tsan_passed=$(count '^✔ capi-tsan: ' "$log/tsan.txt")
capi_tsan_failed=$(count '^✘ capi-tsan: ' "$log/tsan.txt")
display_passed=$(count '^✔ display: ' "$log/display.txt")
display_failed=$(count '^✘ display: ' "$log/display.txt")
echo "host: $host_passed passed, $host_failed failed, $host_skipped skipped (the GBM suite, run in the VM)"
echo "VM:   $vm_passed passed, $vm_failed failed, $vm_skipped skipped"
echo "C API: $capi_passed passed, $capi_failed failed; under AddressSanitizer: $capi_asan_passed passed, $capi_asan_failed failed; under ThreadSanitizer: $capi_tsan_passed passed, $capi_tsan_failed failed"
echo "DocC:  $docs_passed built, $docs_failed failed"
echo "Displays: $display_passed passed, $display_failed failed"
status=0
[ "$asan_status" = 0 ] || { echo "the suite, or the GBM suites in the VM, failed under AddressSanitizer (Tools/sanitize.sh address)" >&2; status=1; }
[ "$plain_status" = 0 ] || { echo "the tests left out of the instrumented run failed (status $plain_status)" >&2; status=1; }
[ "$docs_status" = 0 ] && [ "$docs_passed" -gt 0 ] || { echo "the documentation does not build (Tools/docs.sh)" >&2; status=1; }
[ "$capi_asan_passed" -gt 0 ] && [ "$capi_tsan_passed" -gt 0 ] || { echo "the C API did not run under both sanitizers (Tools/capi-sanitize.sh)" >&2; status=1; }
[ "$capi_status" = 0 ] && [ "$capi_passed" -gt 0 ] || { echo "the C API's tests failed (Tools/capi-tests.sh)" >&2; status=1; }
[ "$display_status" = 0 ] && [ "$display_passed" -gt 0 ] || { echo "the display tests failed (Tools/display-tests.sh)" >&2; status=1; }
[ "$tsan_status" = 0 ] || { echo "the suites failed under ThreadSanitizer (Tools/sanitize.sh thread)" >&2; status=1; }
# Every test skipped on the host must have run in the VM, and nothing may skip there.
[ "$vm_skipped" = 0 ] || { echo "GBM tests were skipped inside the VM" >&2; status=1; }
[ "$vm_passed" -ge "$host_skipped" ] || { echo "only $vm_passed GBM tests passed in the VM, $host_skipped were left to it" >&2; status=1; }
[ "$host_passed" -gt 0 ] || { echo "no host test ran" >&2; status=1; }
[ "$vm_passed" -gt 0 ] || { echo "no GBM test ran in the VM" >&2; status=1; }
failed=$((host_failed + vm_failed + capi_failed + capi_asan_failed + capi_tsan_failed + docs_failed + display_failed))
[ "$status" = 0 ] || [ "$failed" -gt 0 ] || failed=1
echo "time: $SECONDS s in all (setup included)"
echo "tests: $((host_passed + vm_passed + capi_passed + capi_asan_passed + capi_tsan_passed + docs_passed + display_passed)) passed, $failed failed"
exit "$status"
