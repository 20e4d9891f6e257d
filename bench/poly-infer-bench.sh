#!/usr/bin/env bash
#===- poly-infer-bench.sh - time poly-infer on generated modules -----------===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
# Usage: bench/poly-infer-bench.sh [<build-dir>] [<runs>]
#        (defaults: build, 5 runs)
#
# Generates polymorphic modules of 1,000, 10,000 and 100,000 operations with
# bench/gen-poly-module.py and times `tessera-opt --poly-infer` on each:
# with hyperfine when it is installed (mean of its runs), else with the
# shell's clock (best of <runs>). Also reports the pass alone, from
# `--mlir-timing` (best of <runs>). Prints a table; the target is under one
# second for 10,000 operations.
#
#===------------------------------------------------------------------------===#

set -euo pipefail

build="${1:-build}"
runs="${2:-5}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
opt="$build/bin/tessera-opt"
if [ ! -x "$opt" ]; then
  echo "poly-infer-bench.sh: no '$opt' (build tessera-opt first)" >&2
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Milliseconds of the PolyInferPass line of --mlir-timing, best of $runs.
pass_ms() {
  local best=""
  for _ in $(seq "$runs"); do
    local ms
    ms="$("$opt" --poly-infer "$1" -o /dev/null --mlir-timing 2>&1 |
          awk '/PolyInferPass/ { printf "%.1f", $1 * 1000 }')"
    if [ -z "$best" ] || awk -v a="$ms" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best="$ms"
    fi
  done
  echo "$best"
}

# Milliseconds of a whole `tessera-opt --poly-infer` run.
total_ms() {
  if command -v hyperfine > /dev/null; then
    hyperfine --runs "$runs" --warmup 1 --export-json "$tmp/h.json" \
      "$opt --poly-infer $1 -o /dev/null" > /dev/null
    python3 -c 'import json,sys; print("%.1f" % (json.load(open(sys.argv[1]))["results"][0]["mean"] * 1000))' "$tmp/h.json"
    return
  fi
  local best=""
  for _ in $(seq "$runs"); do
    local start end ms
    start="$(date +%s%N)"
    "$opt" --poly-infer "$1" -o /dev/null
    end="$(date +%s%N)"
    ms="$(awk -v d="$((end - start))" 'BEGIN { printf "%.1f", d / 1e6 }')"
    if [ -z "$best" ] || awk -v a="$ms" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best="$ms"
    fi
  done
  echo "$best"
}

# The number of operations of a module (every op, nested ones included).
count_ops() {
  "$opt" "$1" --mlir-print-op-generic | grep -cE '"[a-z_]+\.[a-z_0-9.]+"\('
}

timer="shell clock, best of $runs"
command -v hyperfine > /dev/null && timer="hyperfine, mean of $runs"
printf '%-12s %-10s %-16s %-22s\n' "operations" "functions" "pass (ms)" "tessera-opt (ms)"
printf '%-12s %-10s %-16s %-22s\n' "----------" "---------" "---------" "----------------"
for spec in "1000 10" "10000 50" "100000 100"; do
  set -- $spec
  file="$tmp/poly-$1.mlir"
  python3 "$here/gen-poly-module.py" --ops "$1" --functions "$2" -o "$file" 2> /dev/null
  printf '%-12s %-10s %-16s %-22s\n' "$(count_ops "$file")" "$2" \
    "$(pass_ms "$file")" "$(total_ms "$file")"
done
echo "(tessera-opt includes parsing, verification and printing; timer: $timer)"
