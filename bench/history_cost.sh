#!/bin/bash
# What snap-train's --history costs (docs/benchmarks/history.md): the training time
# of snap-train's summary with and without --history, best of 3 runs, one thread,
# and whether the two models are the same file. SDCA certifies after every epoch
# for the history (solver.h, certify_every_epoch); the fit is unchanged.
#   bench/history_cost.sh [snap-train] [datasets folder]
set -euo pipefail
train=${1:-build/snapml/cli/snap-train}
data_dir=${2:-../shared/datasets}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
best_seconds() {  # best_seconds ARGS...: the fastest of 3 runs' training seconds
  local best=""
  for _ in 1 2 3; do
    local seconds
    seconds=$("$train" "$@" | grep -o '[0-9.e-]* s;' | head -1 | cut -d' ' -f1)
    best=$(python3 -c "print(min(float('${best:-inf}'), $seconds))")
  done
  echo "$best"
}
echo "data,solver,epochs,seconds,seconds_with_history,history_rows,same_model"
for data in a9a w8a; do
  for solver in 7 1 3; do
    file="$data_dir/$data"
    without=$(best_seconds -s "$solver" -n 1 "$file" "$scratch/alone")
    with=$(best_seconds -s "$solver" -n 1 --history "$scratch/h.csv" "$file" "$scratch/with")
    epochs=$("$train" -s "$solver" -n 1 "$file" "$scratch/alone" | grep -o '[0-9]* epochs' | head -1 | cut -d' ' -f1)
    rows=$(($(wc -l < "$scratch/h.csv") - 1))
    same=$(cmp -s "$scratch/alone" "$scratch/with" && echo yes || echo no)
    echo "$data,-s $solver,$epochs,$without,$with,$rows,$same"
  done
done
