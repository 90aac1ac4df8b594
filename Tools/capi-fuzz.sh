#!/usr/bin/env bash
# The C-API fuzzer's driver: runs Tests/CAPI/fuzz.c (built against the installed library) for
# SEQUENCES seeds, each sequence in its own process with a time limit, $FUZZ_JOBS (default:
# the CPU count) at a time. Fails, listing the seeds, on any sequence that ended through a
# signal or ran past the limit; a failing seed reproduces with `FUZZ_BINARY SEED CALLS`.
#   Tools/capi-fuzz.sh FUZZ_BINARY [SEQUENCES=10000] [CALLS=200] [FIRST_SEED=1]
# Tools/capi-tests.sh runs 10⁴ sequences (a few minutes on 2 cores); a longer run:
#   Tools/capi-fuzz.sh /tmp/fuzz 200000 400 1000001
set -uo pipefail
bin=${1:?usage: capi-fuzz.sh FUZZ_BINARY [SEQUENCES] [CALLS] [FIRST_SEED]}
sequences=${2:-10000}; calls=${3:-200}; first=${4:-1}
jobs=${FUZZ_JOBS:-$(nproc)}
limit=${FUZZ_TIME_LIMIT:-30}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$SECONDS
export bin calls limit
# Exit status per seed: 0 (errors are expected and fine), 3 (no device: reported as such),
# 124 (time-out: a hang), 128+N (signal N: a crash).
seq "$first" $((first + sequences - 1)) | xargs -P "$jobs" -I{} sh -c '
  timeout -s KILL "$limit" "$bin" {} "$calls" >/dev/null 2>&1; s=$?
  [ $s -ne 0 ] && echo "{} $s"; exit 0' >"$out"
crashes=$(awk '$2 >= 128 && $2 != 137' "$out" | wc -l)        # 128+N: signal N (132 SIGILL: a Swift trap)
hangs=$(awk '$2 == 137 || $2 == 124' "$out" | wc -l)          # killed at the time limit
other=$(awk '$2 < 124 || ($2 > 124 && $2 < 128)' "$out" | wc -l)
echo "fuzz: $sequences sequences of $calls calls (seeds $first…$((first + sequences - 1))), $jobs at a time: $crashes crashes, $hangs hangs, $other other failures, $((SECONDS - start)) s"
if [ -s "$out" ]; then
  sort -n "$out" | head -20 | while read -r seed status; do echo "   seed $seed: exit status $status — reproduce: $bin $seed $calls"; done
  exit 1
fi
