#!/usr/bin/env bash
#===- partition-bench.sh - tessera-partition vs upstream shard-partition ---===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
# Usage: bench/partition-bench.sh [<build-dir>] [<layer counts>] [<repeats>]
#        (defaults: build, "10 100 1000 10000", 3)
#
# For each model (the N-layer MLP and N transformer blocks of
# bench/gen-propagation-module.py: 2x4 mesh "data" x "model", data parallel
# on the batch, weights alternating column- and row-parallel, only function
# arguments annotated) and each N, runs side by side in the same run:
#
#   tessera-opt --tessera-partition --mlir-timing --verify-each=false
#   mlir-opt --pass-pipeline='builtin.module(func.func(
#       sharding-propagation{traversal=forward-backward},shard-partition))'
#       --mlir-timing --verify-each=false   (mlir-opt from /usr/lib/llvm-22)
#
# both with --verify-each=false (otherwise the IR verifier runs after every
# pass and is counted in that pass's time: three times on Tessera's side,
# once on upstream's), and prints the partitioning passes' own time
# (Tessera: spmd-insert-reshards, which also checks manual computations as
# spmd-check-vma does, spmd-reshard-to-collectives and spmd-partition;
# upstream: shard-partition), the whole run's wall time and peak memory (GNU
# time), the ratio of the partitioning times, and what Tessera's per-device
# program communicates: collectives and bytes each device sends per layer
# (the Megatron schedule is one all-reduce of the activation per MLP block,
# i.e. per two MLP layers, and two per transformer block). Each side runs
# <repeats> times, the two alternating, and its fastest run is reported.
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
    echo "partition-bench.sh: no '$tool'" >&2
    exit 1
  fi
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Sums the wall times (first column of --mlir-timing) of the passes whose
# names match the regular expression $1 in the timing report $2.
pass_time() {
  awk -v p="$1" '$0 ~ p && $1 ~ /^[0-9.]+$/ { s += $1 } END { printf "%.4f", s }' "$2"
}

printf '%-12s %6s | %9s %9s %9s | %9s %9s %9s | %7s | %s\n' \
  model N "part(s)" "total(s)" "peak(MB)" "part(s)" "total(s)" "peak(MB)" \
  "speedup" "Tessera's collectives"
printf '%-12s %6s | %-29s | %-29s |\n' "" "" "tessera-opt --tessera-partition" \
  "mlir-opt shard-partition"
for model in mlp transformer; do
  for n in $counts; do
    t="$tmp/$model-$n-tessera.mlir"
    u="$tmp/$model-$n-upstream.mlir"
    python3 "$here/gen-propagation-module.py" --model "$model" --layers "$n" \
      --form tessera -o "$t"
    python3 "$here/gen-propagation-module.py" --model "$model" --layers "$n" \
      --form upstream -o "$u"
    # Each side runs $repeats times, alternating; the fastest run of each
    # counts (the machine is shared: the minimum is the least disturbed).
    tp="" up=""
    for ((r = 0; r < repeats; r++)); do
      /usr/bin/time -f "%e %M" -o "$tmp/time.t" "$opt" "$t" --tessera-partition \
        --mlir-timing --verify-each=false -o "$tmp/out.mlir" 2> "$tmp/timing.t"
      /usr/bin/time -f "%e %M" -o "$tmp/time.u" "$upstream" "$u" \
        --pass-pipeline='builtin.module(func.func(sharding-propagation{traversal=forward-backward},shard-partition))' \
        --mlir-timing --verify-each=false -o /dev/null 2> "$tmp/timing.u"
      tpr="$(pass_time 'SpmdCheckVma|SpmdInsertReshards|SpmdReshardToCollectives|SpmdPartition' "$tmp/timing.t")"
      upr="$(pass_time 'Partition' "$tmp/timing.u")"
      if [ -z "$tp" ] || awk -v a="$tpr" -v b="$tp" 'BEGIN { exit !(a < b) }'; then
        tp="$tpr"
        read -r tt tm < "$tmp/time.t"
      fi
      if [ -z "$up" ] || awk -v a="$upr" -v b="$up" 'BEGIN { exit !(a < b) }'; then
        up="$upr"
        read -r ut um < "$tmp/time.u"
      fi
    done
    # Collectives of the per-device program: count and bytes sent per layer
    # (every comm op's local tensor, f32).
    comm="$(awk -v n="$n" '
      /comm\.(all_reduce|all_gather|all_to_all|reduce_scatter|permute) / {
        count++
        if (match($0, /tensor<[0-9x]+xf32>/)) {
          t = substr($0, RSTART + 7, RLENGTH - 12)
          k = split(t, d, "x"); e = 1
          for (i = 1; i <= k; i++) e *= d[i]
          bytes += 4 * e
        }
      }
      END { printf "%d collectives, %.2f per layer, %.0f B per layer", count, count / n, bytes / n }
    ' "$tmp/out.mlir")"
    ratio="$(awk -v a="$tp" -v b="$up" 'BEGIN { if (a > 0) printf "%.1fx", b / a; else print "-" }')"
    printf '%-12s %6s | %9s %9s %9.1f | %9s %9s %9.1f | %7s | %s\n' \
      "$model" "$n" "$tp" "$tt" "$(awk -v k="$tm" 'BEGIN{print k/1024}')" \
      "$up" "$ut" "$(awk -v k="$um" 'BEGIN{print k/1024}')" "$ratio" "$comm"
  done
done
