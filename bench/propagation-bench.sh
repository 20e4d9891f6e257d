#!/usr/bin/env bash
#===- propagation-bench.sh - spmd-propagate vs upstream sharding-propagation ===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
# Usage: bench/propagation-bench.sh [<build-dir>] [<layer counts>] [<repeats>]
#        (defaults: build, "10 100 1000 10000", 3)
#
# For each model (the N-layer MLP and N transformer blocks from
# bench/gen-propagation-module.py, 2x4 mesh "data" x "model", only function
# arguments annotated) and each N, generates the module in Tessera's form and
# in upstream MLIR's `shard` form and runs, side by side in the same run:
#
#   tessera-opt --spmd-propagate --mlir-timing --verify-each=false
#   mlir-opt --pass-pipeline='builtin.module(func.func(sharding-propagation{traversal=forward-backward}))' --mlir-timing --verify-each=false
#
# (mlir-opt from /usr/lib/llvm-22), each writing to /dev/null, and prints the
# pass's own wall time (--mlir-timing), the whole run's wall time and peak
# resident memory (GNU time), the ratio of the pass times, and Tessera's plan
# (bench/check-propagation-plan.py: results with the batch on "data", values
# left unsharded, matmuls that need an all-reduce). Both sides run with
# --verify-each=false: otherwise the IR verifier runs after the pass and
# --mlir-timing counts it in the pass's time (on the 10,000-layer MLP it
# takes longer than either pass). Each side runs <repeats> times, the two
# alternating, and its fastest run is reported.
#
#===------------------------------------------------------------------------===#

set -euo pipefail

build="${1:-build}"
counts="${2:-10 100 1000 10000}"
repeats="${3:-3}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
opt="$build/bin/tessera-opt"
upstream="/usr/lib/llvm-22/bin/mlir-opt"
for tool in "$opt" "$upstream" /usr/bin/time; do
  if [ ! -x "$tool" ]; then
    echo "propagation-bench.sh: no '$tool'" >&2
    exit 1
  fi
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Prints "<pass seconds> <total seconds> <peak KiB>" for one run of "$@".
measure() {
  local pass_name="$1"
  shift
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" --mlir-timing \
    --verify-each=false -o /dev/null 2> "$tmp/timing"
  local pass
  pass="$(awk -v p="$pass_name" '$0 ~ p { print $1; exit }' "$tmp/timing")"
  echo "${pass:-nan} $(cat "$tmp/time")"
}

printf '%-12s %6s %8s | %9s %9s %9s | %9s %9s %9s | %7s | %s\n' \
  model N ops "pass(s)" "total(s)" "peak(MB)" "pass(s)" "total(s)" \
  "peak(MB)" "speedup" "Tessera plan"
printf '%-12s %6s %8s | %-29s | %-29s |\n' "" "" "" "tessera-opt --spmd-propagate" \
  "mlir-opt sharding-propagation"
for model in mlp transformer; do
  for n in $counts; do
    t="$tmp/$model-$n-tessera.mlir"
    u="$tmp/$model-$n-upstream.mlir"
    python3 "$here/gen-propagation-module.py" --model "$model" --layers "$n" \
      --form tessera -o "$t"
    python3 "$here/gen-propagation-module.py" --model "$model" --layers "$n" \
      --form upstream -o "$u"
    ops="$(grep -c ' = ' "$t")"
    # Each side runs $repeats times, alternating; the fastest run of each
    # counts (the machine is shared: the minimum is the least disturbed).
    tp="" up=""
    for ((r = 0; r < repeats; r++)); do
      read -r tpr ttr tmr <<< "$(measure SpmdPropagatePass "$opt" "$t" --spmd-propagate)"
      read -r upr utr umr <<< "$(measure ShardingPropagation "$upstream" "$u" \
        --pass-pipeline='builtin.module(func.func(sharding-propagation{traversal=forward-backward}))')"
      if [ -z "$tp" ] || awk -v a="$tpr" -v b="$tp" 'BEGIN { exit !(a < b) }'; then
        tp="$tpr" tt="$ttr" tm="$tmr"
      fi
      if [ -z "$up" ] || awk -v a="$upr" -v b="$up" 'BEGIN { exit !(a < b) }'; then
        up="$upr" ut="$utr" um="$umr"
      fi
    done
    plan="$("$opt" "$t" --spmd-propagate | python3 "$here/check-propagation-plan.py")"
    ratio="$(awk -v a="$tp" -v b="$up" 'BEGIN { if (a > 0) printf "%.1fx", b / a; else print "-" }')"
    printf '%-12s %6s %8s | %9s %9s %9.1f | %9s %9s %9.1f | %7s | %s\n' \
      "$model" "$n" "$ops" "$tp" "$tt" "$(awk -v k="$tm" 'BEGIN{print k/1024}')" \
      "$up" "$ut" "$(awk -v k="$um" 'BEGIN{print k/1024}')" "$ratio" "$plan"
  done
done
