#!/usr/bin/env bash
# Tools/capi-sanitize.sh address|thread SCRATCH
#   (SCRATCH: the sanitizer's build directory, e.g. .build-address, once Tools/sanitize.sh built it)
# The C API under a sanitizer: the C programs of Tools/capi-tests.sh that need no display
# (the C example, the error paths, the coverage test, GL and shader layers, and a short run
# of the fuzzer) built with the toolchain's clang and -fsanitize=…, and linked against the
# instrumented libLaminaC.so that the sanitizer build of the suite already made
# (SCRATCH/debug): the C API's Swift side (handle tables, strings and arrays read from C,
# callbacks that call in again, calls from the wrong thread) is checked as the suite's
# code is. The sanitizer's runtime in the program serves the library's instrumentation:
# the runtime of the clang beside swift (gcc's would be a second, other runtime; and lld,
# which, unlike gold, does not warn about the runtime's local symbols). Leak checking is
# off, as for the suite on the host (the drivers keep process-lifetime allocations); the
# programs check that their handles are all released with lamina_live_handles().
# Prints "✔ capi-asan: …"/"✘ capi-asan: …" (capi-tsan under ThreadSanitizer) per check and
# "capi-asan: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
sanitizer=${1:-}; scratch=${2:-}
case $sanitizer in
  address) tag=asan; symbol=__asan_report; report='^==[0-9]+==ERROR: AddressSanitizer' ;;
  thread) tag=tsan; symbol=__tsan_read; report='^WARNING: ThreadSanitizer' ;;
  *) echo "usage: capi-sanitize.sh address|thread SCRATCH (the sanitizer's build directory, e.g. .build-address)" >&2; exit 2 ;;
esac
[ -n "$scratch" ] || { echo "capi-sanitize.sh: name the build directory (e.g. .build-$sanitizer)" >&2; exit 2; }
lib=$scratch/debug/libLaminaC.so
passed=0; failed=0
ok() { echo "✔ capi-$tag: $1"; passed=$((passed + 1)); }
ko() { echo "✘ capi-$tag: $1"; failed=$((failed + 1)); }
finish() { echo "capi-$tag: $passed passed, $failed failed"; [ "$failed" = 0 ]; exit; }
[ -f "$lib" ] || { ko "$lib is missing (run Tools/sanitize.sh $sanitizer, which builds it)"; finish; }
nm -D "$lib" | grep "$symbol" >/dev/null || { ko "$lib is not instrumented (no $symbol symbols): build it with --sanitize=$sanitizer"; finish; }
# The clang beside swift: its runtime is the one the library was instrumented for.
cc=$(dirname "$(readlink -f "$(command -v swift)")")/clang
[ -x "$cc" ] || { ko "no clang beside swift ($cc): the Swift toolchain's clang is needed"; finish; }
work=$(mktemp -d /tmp/lamina-capi-$tag.XXXXXX)
trap 'rm -rf "$work"' EXIT
flags=(-fuse-ld=lld -std=c99 -g -O1 -fsanitize="$sanitizer" -fno-omit-frame-pointer -Wall -Wextra -Werror -ISources/CLamina/include
       $(pkg-config --cflags cairo))
link=(-L"$scratch/debug" -lLaminaC -Wl,-rpath,"$PWD/$scratch/debug" $(pkg-config --libs cairo egl glesv2) -lpthread -lm)
# The toolchain's ThreadSanitizer runtime intercepts libdispatch: it links against it.
swiftlib=$(dirname "$cc")/../lib/swift/linux
[ "$sanitizer" = thread ] && link+=(-L"$swiftlib" -Wl,-rpath,"$swiftlib" -ldispatch -lBlocksRuntime)
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 SWIFT_BACKTRACE=enable=no
# build NAME SOURCE: builds $work/NAME.
build() {
  if "$cc" "${flags[@]}" "$2" "${link[@]}" -o "$work/$1" >"$work/$1-build.txt" 2>&1; then return 0; fi
  cat "$work/$1-build.txt"; ko "$1: the build failed"; return 1
}
# check NAME DESCRIPTION ARGS…: runs it; passes when it exits 0 and the sanitizer said nothing.
check() {
  local name=$1 what=$2; shift 2
  (cd "$work" && "./$name" "$@") >"$work/$name.txt" 2>&1
  local s=$?
  if [ "$s" = 0 ] && ! grep -qE "$report" "$work/$name.txt"; then
    tail -2 "$work/$name.txt" | sed 's/^/   /'; ok "$what"
  else
    grep -EA40 "$report" "$work/$name.txt" | head -60 || true
    tail -20 "$work/$name.txt"; ko "$what (exit status $s)"
  fi
}
build c-example Examples/C/example.c && check c-example "C example (offscreen PNG, the host's own EGL context)" c-example.png
build c-errors Tests/CAPI/errors.c && check c-errors "C error paths and handle lifetimes (bad input, wrong thread, double release, 10⁴ layers)"
build c-coverage Tests/CAPI/coverage.c && check c-coverage "C API coverage (run loop, transactions, scenes, getters, hit testing, effects, retained mode)" "$PWD/Examples/showcase.json"
build c-gpu Tests/CAPI/gpu.c && check c-gpu "GL layers, shader layers and effects with uniforms, their errors"
# The fuzzer: fewer sequences than the plain run's 10⁴ (instrumented code is slower); a
# report ends its process with a status other than 0 (1, TSan 66), which capi-fuzz.sh counts
# as a failure.
if build c-fuzz Tests/CAPI/fuzz.c; then
  # (ThreadSanitizer: 500, about 30 s; the fuzzer's calls come from one thread, the races it
  # can reach are with Lamina's own threads.)
  default=1000; [ "$sanitizer" = thread ] && default=500
  n=${LAMINA_SANITIZE_FUZZ_SEQUENCES:-$default}
  if bash Tools/capi-fuzz.sh "$work/c-fuzz" "$n" 200 >"$work/fuzz.txt" 2>&1; then
    sed 's/^/   /' "$work/fuzz.txt"; ok "the C-API fuzzer: $n sequences, no report, crash or hang"
  else cat "$work/fuzz.txt"; ko "the C-API fuzzer under the $sanitizer sanitizer"; fi
fi
finish
