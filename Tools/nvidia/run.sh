#!/usr/bin/env bash
# Runs on the NVIDIA device machine, in the repository root, after Tools/nvidia/bundle.sh
# here: `lamina info`, the selftest, the reftests, the shader tests, the C API's C programs,
# the benchmark and the test suite (less the tests Tools/sanitize.sh leaves out: the SDL
# host needs Xvfb), each on the NVIDIA EGL device platform, with everything written under
# $OUT.
# Usage there: bash Tools/nvidia/run.sh [bench frames [test filter]]
# (0 frames: no benchmark; a filter: those tests only, a regular expression of their names).
# A test run still going at its limit has its threads' stacks written (cuda-gdb) before it
# is stopped.
set -u
out=${OUT:-/tmp/lamina-nvidia}; mkdir -p "$out"
frames=${1:-30}
filter=${2:-}
limit=${LAMINA_DEVICE_TEST_LIMIT:-240}
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
tar -xJf .devkit/bundle.tar.xz
export LD_LIBRARY_PATH=$PWD/.devkit/lib:$PWD/.devkit/prefix/lib
vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$vendor" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
sed -i "s#FONTDIR#$PWD/.devkit/fonts#" .devkit/fontconfig/fonts.conf
export FONTCONFIG_PATH=$PWD/.devkit/fontconfig FONTCONFIG_FILE=$PWD/.devkit/fontconfig/fonts.conf
# Tests find goldens and scenes through #filePath, compiled as /work/main/...
[ "$PWD" = /work/main ] || { mkdir -p /work; ln -sfn "$PWD" /work/main; }
export LAMINA_SNAPSHOT_ARTIFACTS=/tmp/lamina-snapshots
lamina=.build/release/lamina
{
    echo "== nvidia-smi"; nvidia-smi 2>&1 | head -20
    echo "== devices"; ls -la /dev/dri /dev/nvidia* 2>&1
    for b in auto device surfaceless gbm; do echo "== lamina info --backend $b"; timeout 60 $lamina info --backend $b 2>&1; done
    echo "== extensions"; timeout 60 $lamina info --extensions 2>&1 | head -200
} > "$out/info.txt" 2>&1
{
    echo "== selftest"; timeout 60 $lamina selftest -o "$out/selftest.png" 2>&1; echo "status $?"
    echo "== reftest"; timeout 90 $lamina reftest Tests/Reftests/reftest.list -o /tmp/lamina-reftest 2>&1; echo "status $?"
    echo "== shader-test"; timeout 60 $lamina shader-test Examples/shader-tests/*.shader_test Examples/shader-tests/*/*.shader_test 2>&1; echo "status $?"
} > "$out/cli.txt" 2>&1
# The C API's C and C++ programs (bundle.sh built them against the installed library), each
# checking its own pixels, and 2000 fuzzer sequences.
[ -d .devkit/capi ] && (
    capi=$PWD/.devkit/capi; work=$(mktemp -d); cd "$work"
    for p in "c-example c-example.png" c-errors "c-coverage /work/main/Examples/showcase.json" c-gpu "cpp-example cpp-example.png"; do
        echo "== $p"; timeout 120 $capi/$p 2>&1 | tail -5; echo "status ${PIPESTATUS[0]}"
    done
    echo "== fuzzer"; timeout 300 bash /work/main/Tools/capi-fuzz.sh "$capi/c-fuzz" 2000 200 2>&1; echo "status $?"
) > "$out/capi.txt" 2>&1
# The benchmark before the tests, so that a run cut short still has its figures. One group
# at a time, so that a slow group loses only itself; the last is S1 with the render thread.
[ "$frames" = 0 ] || for scenes in S1,S2,S3 S4,S5 D1,D2,D3,D4 E1,E2,E3 E4,E5,E6,E7,E8 S6,S6S "S1 --render-thread"; do
    echo "== bench $scenes"; timeout 60 $lamina bench --scene $scenes --frames "$frames" --warmup 5 2>&1; echo "status $?"
done > "$out/bench.txt" 2>&1
echo "== tests"; date
# Not the tests every sanitizer run leaves out either (the SDL host needs Xvfb; the scene
# fuzzer and the stress tests are CPU-bound, minutes in a debug build).
args=(--testing-library swift-testing --skip "$(bash Tools/sanitize.sh --left-out)")
[ -n "$filter" ] && args+=(--filter "$filter")
.build/debug/LaminaPackageTests.xctest "${args[@]}" > "$out/tests.log" 2>&1 &
pid=$!
for ((i = 0; i < limit; i++)); do kill -0 $pid 2>/dev/null || break; sleep 1; done
if kill -0 $pid 2>/dev/null; then
    echo "tests still running after $limit s: stacks in stacks.txt"
    timeout 60 cuda-gdb -p $pid -batch -ex "thread apply all bt 25" > "$out/stacks.txt" 2>&1
    kill -9 $pid
fi
wait $pid; echo "tests status $?"; date
tar -czf "$out/artifacts.tar.gz" -C /tmp lamina-snapshots lamina-reftest 2>/dev/null
grep -E "✘|failed|passed after" "$out/tests.log" | tail -60
tail -40 "$out/bench.txt"
