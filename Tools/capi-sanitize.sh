#!/usr/bin/env bash
# Tools/capi-sanitize.sh SCRATCH   (e.g. .build-address, after Tools/sanitize.sh address built it)
# The C API under AddressSanitizer: the C programs of Tools/capi-tests.sh that need no
# display (the C example, the error paths, the coverage test, GL and shader layers, and
# a short run of the fuzzer) built with the toolchain's clang and -fsanitize=address, and
# linked against the instrumented libLaminaC.so that the sanitizer build of the suite
# already made (SCRATCH/debug): the C API's Swift side (handle tables, strings and buffers
# handed across, callbacks calling in again) is checked as the suite's code is. clang's
# ASan runtime in the program serves the library's instrumentation (gcc's libasan would
# be a second runtime: hence clang, not cc; and lld, quiet about the runtime's local
# symbols where gold warns). Leak checking is off, as for the suite on the
# host (the drivers keep process-lifetime allocations); the programs check their handles
# are all released with lamina_live_handles().
# Prints "✔ capi-asan: …"/"✘ capi-asan: …" per check and "capi-asan: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
scratch=${1:?usage: capi-sanitize.sh SCRATCH (a sanitizer build directory, e.g. .build-address)}
lib=$scratch/debug/libLaminaC.so
passed=0; failed=0
ok() { echo "✔ capi-asan: $1"; passed=$((passed + 1)); }
ko() { echo "✘ capi-asan: $1"; failed=$((failed + 1)); }
finish() { echo "capi-asan: $passed passed, $failed failed"; [ "$failed" = 0 ]; exit; }
[ -f "$lib" ] || { ko "$lib is missing (run Tools/sanitize.sh address, which builds it)"; finish; }
nm -D "$lib" | grep '__asan_report' >/dev/null || { ko "$lib is not instrumented (no __asan_ symbols): build it with --sanitize=address"; finish; }
# The clang beside swift: its ASan runtime is the one the library was instrumented for.
cc=$(dirname "$(readlink -f "$(command -v swift)")")/clang
[ -x "$cc" ] || { ko "no clang beside swift ($cc): the Swift toolchain's clang is needed"; finish; }
work=$(mktemp -d /tmp/lamina-capi-asan.XXXXXX)
trap 'rm -rf "$work"' EXIT
flags=(-fuse-ld=lld -std=c99 -g -O1 -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -Werror -ISources/CLamina/include
       $(pkg-config --cflags cairo))
link=(-L"$scratch/debug" -lLaminaC -Wl,-rpath,"$PWD/$scratch/debug" $(pkg-config --libs cairo egl glesv2) -lpthread -lm)
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0 SWIFT_BACKTRACE=enable=no
# build NAME SOURCE: builds $work/NAME.
build() {
  if "$cc" "${flags[@]}" "$2" "${link[@]}" -o "$work/$1" >"$work/$1-build.txt" 2>&1; then return 0; fi
  cat "$work/$1-build.txt"; ko "$1: the build failed"; return 1
}
# check NAME DESCRIPTION ARGS…: runs it; passes when it exits 0 and AddressSanitizer said nothing.
check() {
  local name=$1 what=$2; shift 2
  (cd "$work" && "./$name" "$@") >"$work/$name.txt" 2>&1
  local s=$?
  if [ "$s" = 0 ] && ! grep -q '^==[0-9]*==ERROR: AddressSanitizer' "$work/$name.txt"; then
    tail -2 "$work/$name.txt" | sed 's/^/   /'; ok "$what"
  else
    grep -A40 '^==[0-9]*==ERROR: AddressSanitizer' "$work/$name.txt" | head -60 || true
    tail -20 "$work/$name.txt"; ko "$what (exit status $s)"
  fi
}
build c-example Examples/C/example.c && check c-example "C example (offscreen PNG, the host's own EGL context)" c-example.png
build c-errors Tests/CAPI/errors.c && check c-errors "C error paths and handle lifetimes (bad input, wrong thread, double release, 10⁴ layers)"
build c-coverage Tests/CAPI/coverage.c && check c-coverage "C API coverage (run loop, transactions, scenes, getters, hit testing, effects, retained mode)" "$PWD/Examples/showcase.json"
build c-gpu Tests/CAPI/gpu.c && check c-gpu "GL layers, shader layers and effects with uniforms, their errors"
# The fuzzer: fewer sequences than the plain run's 10⁴ (instrumented code is slower); a
# report ends its process with status 1, which capi-fuzz.sh counts as a failure.
if build c-fuzz Tests/CAPI/fuzz.c; then
  n=${LAMINA_ASAN_FUZZ_SEQUENCES:-1000}
  if FUZZ_TIME_LIMIT=120 bash Tools/capi-fuzz.sh "$work/c-fuzz" "$n" 200 >"$work/fuzz.txt" 2>&1; then
    sed 's/^/   /' "$work/fuzz.txt"; ok "the C-API fuzzer: $n sequences, no report, crash or hang"
  else cat "$work/fuzz.txt"; ko "the C-API fuzzer under AddressSanitizer"; fi
fi
finish
