#!/usr/bin/env bash
# One benchmark script run alternately on an earlier checkout and on this one, in the same minutes
# (docs/benchmarks.md: ratios measured side by side, medians of several runs): round i runs
# before then after when i is odd, after then before when it is even, so a drift of the machine's
# load does not favour one side. Each run is the script's own (medians of its RUNS runs); the
# outputs are kept in OUT for reading the rows off.
# Run: BASE_DIR=<a git worktree of the earlier commit, with node_modules> ROUNDS=2 \
#        bash bench/before-after.sh bench/tts.ts   (the script's own settings pass through: RUNS=5 ONLY=1,2 ...)
set -euo pipefail
script=${1:?usage: BASE_DIR=... bash bench/before-after.sh bench/<name>.ts}
base=${BASE_DIR:?set BASE_DIR to a worktree of the earlier commit}
here=$(pwd)
rounds=${ROUNDS:-2}
out=${OUT:-$(mktemp -d /tmp/parla-before-after-XXXXXX)}
name=$(basename "$script" .ts)
run() { # side dir round
  echo "== $name $1 round $3 ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))" | tee -a "$out/$name.log"
  (cd "$2" && node --import tsx "$script") >"$out/$name-$1-$3.txt" 2>&1 || echo "   exited $?" | tee -a "$out/$name.log"
}
for i in $(seq 1 "$rounds"); do
  if [ $((i % 2)) -eq 1 ]; then run before "$base" "$i"; run after "$here" "$i"; else run after "$here" "$i"; run before "$base" "$i"; fi
done
echo "outputs in $out"
