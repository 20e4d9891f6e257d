#!/usr/bin/env bash
#===- spmd-verify-bench.sh - time verification of sharded modules ----------===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
# Usage: bench/spmd-verify-bench.sh [<build-dir>] [<runs>] [<functions>]
#        (defaults: build, 3 runs, 10000 functions)
#
# Generates, with bench/gen-spmd-module.py, a module of <functions>
# functions x 10 sharded ops three ways: the mesh declared before every
# function, after every function, and no mesh nor shardings at all (the same
# ops: the baseline). For each it times `tessera-opt FILE -o /dev/null`
# (parse + verify + print) and the same with verification disabled
# (--mlir-very-unsafe-disable-verifier-on-parsing); the difference is the
# verifier's time. Best of <runs>, on the shell's clock. Mesh lookups go
# through one SymbolTableCollection per module verification, so both sharded
# columns should match and exceed the baseline only by a linear term.
#
#===------------------------------------------------------------------------===#

set -euo pipefail

build="${1:-build}"
runs="${2:-3}"
functions="${3:-10000}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
opt="$build/bin/tessera-opt"
if [ ! -x "$opt" ]; then
  echo "spmd-verify-bench.sh: no '$opt' (build tessera-opt first)" >&2
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Best wall-clock milliseconds of `tessera-opt "$@" -o /dev/null`.
best_ms() {
  local best=""
  for _ in $(seq "$runs"); do
    local start end ms
    start="$(date +%s%N)"
    "$opt" "$@" -o /dev/null
    end="$(date +%s%N)"
    ms="$(awk -v d="$((end - start))" 'BEGIN { printf "%.0f", d / 1e6 }')"
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then
      best="$ms"
    fi
  done
  echo "$best"
}

printf '%-22s %-12s %-16s %-12s\n' "module" "total (ms)" "no verify (ms)" "verify (ms)"
printf '%-22s %-12s %-16s %-12s\n' "------" "----------" "--------------" "-----------"
for mesh in none first last; do
  file="$tmp/spmd-$mesh.mlir"
  python3 "$here/gen-spmd-module.py" --functions "$functions" --ops 10 \
    --mesh "$mesh" -o "$file"
  total="$(best_ms "$file")"
  noverify="$(best_ms "$file" --mlir-very-unsafe-disable-verifier-on-parsing)"
  label="mesh $mesh"
  [ "$mesh" = none ] && label="unsharded (baseline)"
  printf '%-22s %-12s %-16s %-12s\n' "$label" "$total" "$noverify" \
    "$((total - noverify))"
done
echo "($functions functions x 10 ops; best of $runs runs)"
