#!/usr/bin/env bash
# The C-API fuzzer's driver: runs Tests/CAPI/fuzz.c (built against the installed library) for
# SEQUENCES seeds, $FUZZ_BATCH (default 25) consecutive seeds per process (`FUZZ_BINARY FIRST
# CALLS COUNT`: starting a process — the Swift runtime, EGL — costs more than a sequence),
# $FUZZ_JOBS (default: the CPU count) processes at a time, each with a time limit of
# $FUZZ_TIME_LIMIT (default 30) seconds per seed of its batch. A batch that ends through a
# signal, runs past its limit or fails otherwise has each of its seeds run again alone, one
# per process with the per-seed limit, to name the failing ones. Fails, listing them, on any
# seed that ended through a signal or ran past the limit alone; a failing seed reproduces
# with `FUZZ_BINARY SEED CALLS`. A batch failure that its seeds do not reproduce alone (the
# seed it was running passes alone: something an earlier sequence of the process left
# behind) fails too, listed as the batch with `FUZZ_BINARY FIRST CALLS COUNT`.
#   Tools/capi-fuzz.sh FUZZ_BINARY [SEQUENCES=10000] [CALLS=200] [FIRST_SEED=1]
# Tools/capi-tests.sh runs 10⁴ sequences (about 2 minutes on 2 cores); a longer run:
#   Tools/capi-fuzz.sh /tmp/fuzz 200000 400 1000001
# FUZZ_BATCH=1: every seed in its own process (as before batches).
set -uo pipefail
bin=${1:?usage: capi-fuzz.sh FUZZ_BINARY [SEQUENCES] [CALLS] [FIRST_SEED]}
sequences=${2:-10000}; calls=${3:-200}; first=${4:-1}
jobs=${FUZZ_JOBS:-$(nproc)}
limit=${FUZZ_TIME_LIMIT:-30}
batch=${FUZZ_BATCH:-25}
[[ $limit =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "capi-fuzz.sh: FUZZ_TIME_LIMIT is seconds (got $limit)" >&2; exit 2; }
[[ $batch =~ ^[1-9][0-9]*$ ]] || { echo "capi-fuzz.sh: FUZZ_BATCH is a count of seeds, 1 or more (got $batch)" >&2; exit 2; }
last=$((first + sequences - 1))
batch_limit=$(awk -v l="$limit" -v n="$batch" 'BEGIN { print l * n }')
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$SECONDS
export bin calls limit batch last batch_limit
# Exit status per process: 0 (errors are expected and fine), 3 (no device: reported as
# such), 137 (killed at the time limit: a hang; 124 likewise), 128+N (signal N: a crash).
# Each batch (its first seed; the last may be short) runs in one process. One that fails
# has its seeds run alone: a line "SEED STATUS" for each that fails so; a line "FIRST STATUS
# COUNT RUNNING" for the batch when those leave its failure unexplained (RUNNING: the seed it
# was running, from the fuzzer's "fuzz: seed N" lines, or - when unknown).
seq "$first" "$batch" "$last" | xargs -P "$jobs" -I{} sh -c '
  f=$1; n=$((last - f + 1)); [ "$n" -gt "$batch" ] && n=$batch
  progress=$({ timeout -s KILL "$batch_limit" "$bin" "$f" "$calls" "$n"; } 2>/dev/null); s=$?
  [ $s -eq 0 ] && exit 0
  running=$(printf "%s\n" "$progress" | sed -n "s/^fuzz: seed \([0-9][0-9]*\)$/\1/p" | tail -n 1)
  [ "$n" -eq 1 ] && running=$f
  alone=$( i=$f; while [ "$i" -lt $((f + n)) ]; do
      if [ "$n" -eq 1 ]; then t=$s
      else timeout -s KILL "$limit" "$bin" "$i" "$calls" >/dev/null 2>&1; t=$?; fi
      [ $t -ne 0 ] && echo "$i $t"; i=$((i + 1))
    done )
  [ -n "$alone" ] && echo "$alone"
  if [ -n "$running" ]; then printf "%s\n" "$alone" | grep -q "^$running " && exit 0
  elif [ -n "$alone" ]; then exit 0; fi
  echo "$f $s $n ${running:--}"; exit 0' sh {} >"$out"
crashes=$(awk '$2 >= 128 && $2 != 137' "$out" | wc -l)        # 128+N: signal N (132 SIGILL: a Swift trap)
hangs=$(awk '$2 == 137 || $2 == 124' "$out" | wc -l)          # killed at the time limit
other=$(awk '$2 < 124 || ($2 > 124 && $2 < 128)' "$out" | wc -l)
echo "fuzz: $sequences sequences of $calls calls (seeds $first…$last), $batch per process, $jobs at a time: $crashes crashes, $hangs hangs, $other other failures, $((SECONDS - start)) s"
if [ -s "$out" ]; then
  sort -n "$out" | head -20 | while read -r seed status count running; do
    if [ -z "$count" ]; then echo "   seed $seed: exit status $status — reproduce: $bin $seed $calls"
    else
      case $running in
        -) why="none of its seeds fails alone" ;;
        *) why="while running seed $running, which passes alone" ;;
      esac
      echo "   seeds $seed…$((seed + count - 1)) in one process: exit status $status ($why) — reproduce: $bin $seed $calls $count"
    fi
  done
  exit 1
fi
