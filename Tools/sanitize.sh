#!/usr/bin/env bash
# Tools/sanitize.sh [--build-only] [address|thread]...   (default: both)
# Builds the test suite with a sanitizer (its own build directory, .build-<sanitizer>) and
# runs it on llvmpipe: AddressSanitizer (memory errors) and ThreadSanitizer (data races, in the
# suites whose code runs on several threads).
# Lamina's code and the tests are instrumented; Mesa, Cairo and Pango are not (their own
# accesses are not checked, calls into them are). Leak checking is off on the
# host: the drivers keep process-lifetime allocations; Lamina's GL objects are proved
# freed by the suite's live-object counts instead.
# The C API's C programs then run against the instrumented library (Tools/capi-sanitize.sh).
# Then the GBM suites (swapchains, fences, external buffers and the threads that hand them
# back) run with the same instrumented binary inside the VM (Tools/vm/run-in-vm.sh), where
# AddressSanitizer checks leaks too, with Mesa's and libgbm's own allocations suppressed
# (LAMINA_SANITIZE_VM=0 skips this).
# Exits non-zero when a test fails or a sanitizer reports. Tools/test.sh runs it: the
# AddressSanitizer run is the test command's run of the suite (LAMINA_SANITIZE_LOGS=DIR keeps
# each run's log as DIR/<sanitizer>-suite.txt and DIR/<sanitizer>-vm.txt for its counts), and
# it runs the tests left out here uninstrumented (`Tools/sanitize.sh --left-out` prints them,
# as a `swift test --filter`).
set -euo pipefail
cd "$(dirname "$0")/.."
# Left out of every sanitizer run: the real SDL2 host (its own binary, built without the
# sanitizer), the scene fuzzer (10⁴ parsed and rendered inputs, minutes instrumented: the
# parser is Swift, and the render paths its inputs reach run here in the rest of the suite)
# and the 10⁵-deep and 10⁶-wide stress tests (minutes each instrumented; the code they
# drive is the same the smaller tests drive here).
left_out='SDLHostTests|SceneFuzzTests|DeepWideTreeTests|RenderDepthTests/(deepClippedChain|wideSiblings)|ViewRobustnessTests/(deepViewChain|wideSubviews|deepResponderChain)'
if [ "${1:-}" = --left-out ]; then echo "$left_out"; exit 0; fi
# --build-only: build the instrumented suites and stop (Tools/test.sh builds ThreadSanitizer's
# in the background, on the core the AddressSanitizer run leaves idle).
build_only=0
if [ "${1:-}" = --build-only ]; then build_only=1; shift; fi
bash Tools/setup.sh
export NO_COLOR=1
sanitizers=("$@")
[ ${#sanitizers[@]} -gt 0 ] || sanitizers=(address thread)
status=0
for s in "${sanitizers[@]}"; do
  echo "== sanitizer: $s"
  log=$(mktemp /tmp/lamina-$s.XXXXXX)
  t0=$SECONDS
  if ! swift build --build-tests --sanitize="$s" --scratch-path ".build-$s" >"$log" 2>&1; then
    tail -40 "$log"; echo "sanitize: the $s build failed"; status=1; continue
  fi
  echo "   (the $s build: $((SECONDS - t0)) s)"; t0=$SECONDS
  if [ "$build_only" = 1 ]; then rm -f "$log"; continue; fi
  # ThreadSanitizer looks for data races: it runs the suites whose code runs on more than one
  # thread (render threads, the run loop's posts and timers, tiles drawn off the main thread,
  # asynchronous GL layers, transaction contexts, the render-thread bench); the rest of the
  # suite is single-threaded and under ThreadSanitizer only cost CI time (~15 min on 2 cores).
  # AddressSanitizer runs the rest of the suite (the GBM suites skip themselves outside the VM).
  only=()
  [ "$s" = thread ] && only=(--filter 'RenderThreadTests|RunLoopTests|TiledLayerTests|GLLayerTests|CrossFadeTests|AnimationEdgeCaseTests|RenderThreadEmbeddingTests|TransactionContextTests|BenchTests')
  set +e
  # SWIFT_BACKTRACE=enable=no: a crash must end the run. Swift's backtracer reads the other
  # threads' stacks, which AddressSanitizer reports as a stack-buffer-underflow, and the
  # backtracer then waits forever: a test that aborted (a fuzz watchdog) hung CI this way.
  # LAMINA_WATCHDOG_SCALE: the fuzz tests' hang limits stretched for instrumented code.
  SWIFT_BACKTRACE=enable=no LAMINA_WATCHDOG_SCALE=8 \
  ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    swift test --skip-build --sanitize="$s" --scratch-path ".build-$s" "${only[@]}" --skip "$left_out" >"$log" 2>&1
  test_status=$?
  set -e
  [ -z "${LAMINA_SANITIZE_LOGS:-}" ] || cp "$log" "$LAMINA_SANITIZE_LOGS/$s-suite.txt"
  passed=$(grep -cE '^✔ Test "' "$log" || true)
  failed=$(grep -cE '^✘ Test .* failed' "$log" || true)
  reports=$(grep -cE '^(==[0-9]+==ERROR: AddressSanitizer|WARNING: ThreadSanitizer)' "$log" || true)
  if [ "$test_status" != 0 ] || [ "$reports" != 0 ] || [ "$passed" = 0 ]; then
    grep -E -A30 '^(==[0-9]+==ERROR|WARNING: ThreadSanitizer)' "$log" | head -120 || true
    grep -E '^✘' "$log" | head -40 || true
    # A run that ends without a report (a crash) says why only at its end: show it, keep it.
    tail -40 "$log"
    cp "$log" "/tmp/lamina-$s-suite-failed.log" && echo "(the whole log: /tmp/lamina-$s-suite-failed.log)"
    status=1
  fi
  echo "sanitizer $s: $passed tests passed, $failed failed, $reports sanitizer reports (status $test_status; $((SECONDS - t0)) s)"
  t0=$SECONDS
  # The C API has no Swift tests of its own: its C programs run against the instrumented
  # libLaminaC.so this build made (Tools/capi-sanitize.sh; LAMINA_SANITIZE_CAPI=0 skips it).
  if [ "${LAMINA_SANITIZE_CAPI:-1}" = 1 ]; then
    bash Tools/capi-sanitize.sh "$s" ".build-$s" || status=1
    echo "   (the C API under $s: $((SECONDS - t0)) s)"; t0=$SECONDS
  fi
  if [ "${LAMINA_SANITIZE_VM:-1}" = 1 ]; then
    # In the VM, AddressSanitizer runs all 20 GBM tests (it checks leaks there).
    # ThreadSanitizer runs the 4 whose code runs on several threads: the fences' 3 (a
    # producer thread, a second context) and external buffers as layer contents (handed
    # back on Lamina's thread that waits for the GPU): 61 s, against 186 s for all 20. The
    # other 16 run on the test's thread alone, where it can find nothing.
    vm_filter=GBM
    [ "$s" = thread ] && vm_filter='GBMFenceTests|GBMSwapchainTests/externalContents'
    supp="$PWD/.build-$s/lsan-mesa.supp"
    printf 'leak:zink_dri.so\nleak:libgbm.so\nleak:libEGL_mesa.so\nleak:libLLVM\nleak:libglapi\n' >"$supp"
    set +e
    SWIFT_BACKTRACE=enable=no LSAN_OPTIONS="suppressions=$supp:print_suppressions=0" ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 \
      TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 LAMINA_GBM_TESTS=1 GBM_ALWAYS_SOFTWARE=1 \
      Tools/vm/run-in-vm.sh ".build-$s/debug/LaminaPackageTests.xctest" --testing-library swift-testing --no-parallel \
      --filter "$vm_filter" >"$log" 2>&1
    vm_status=$?
    set -e
    [ -z "${LAMINA_SANITIZE_LOGS:-}" ] || cp "$log" "$LAMINA_SANITIZE_LOGS/$s-vm.txt"
    passed=$(grep -cE '^✔ Test "' "$log" || true)
    failed=$(grep -cE '^✘ Test .* failed' "$log" || true)
    reports=$(grep -cE '^(==[0-9]+==ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer)' "$log" || true)
    if [ "$vm_status" != 0 ] || [ "$reports" != 0 ] || [ "$passed" = 0 ]; then
      grep -E -A30 '^(==[0-9]+==ERROR|WARNING: ThreadSanitizer)' "$log" | head -120 || true
      grep -E '^✘' "$log" | head -40 || true
      tail -20 "$log"
      status=1
    fi
    echo "sanitizer $s in the VM (the GBM suites): $passed tests passed, $failed failed, $reports sanitizer reports (status $vm_status; $((SECONDS - t0)) s)"
  fi
  rm -f "$log"
done
exit "$status"
