#!/usr/bin/env bash
# The README's main job: install dependencies, build the tools, then train L2
# logistic regression and report test metrics. Data: the a9a/a9a.t pair from
# ../shared/datasets (or $SNAPML_DATA_DIR) when present, else a generated
# Criteo-like click log (snap-criteo-gen), so the command works anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-deps.sh

build=${SNAPML_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${SNAPML_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)" --target snap-convert snap-train snap-predict snap-criteo-gen
bin="$build/snapml/cli"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
data_dir=${SNAPML_DATA_DIR:-../shared/datasets}
if [ -f "$data_dir/a9a" ] && [ -f "$data_dir/a9a.t" ]; then
  echo "== data: a9a (UCI Adult) from $data_dir"
  train="$data_dir/a9a"
  test="$data_dir/a9a.t"
else
  echo "== data: generated Criteo-like click log (no $data_dir/a9a here)"
  "$build/datasets/snap-criteo-gen" --rows 200000 --seed 1 --output "$work/clicks.tsv"
  "$bin/snap-convert" --from criteo "$work/clicks.tsv" "$work/all.svm"
  head -n 160000 "$work/all.svm" > "$work/train.svm"
  tail -n 40000 "$work/all.svm" > "$work/test.svm"
  train="$work/train.svm"
  test="$work/test.svm"
fi

echo "== convert the training set to the binary chunked format and summarise it"
"$bin/snap-convert" "$train" "$work/train.snap"
"$bin/snap-convert" --summary "$work/train.snap"

echo "== train L2 logistic regression (C=1, intercept, 2 threads) and test"
"$bin/snap-train" -s 0 -c 1 -B 1 -n 2 --test "$test" "$work/train.snap" "$work/model"
"$bin/snap-predict" "$test" "$work/model" "$work/predictions"
