#!/usr/bin/env bash
#===- mlp-bench.sh - an MLP on 8 emulated devices vs one device ------------===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
# Usage: bench/mlp-bench.sh [build] [batch] [hidden] [layers] [repeat]
#        (defaults: build 1024 4096 4 5)
#
# The seed MLP scaled up: `layers` layers of matmul + tanh on a
# [batch, hidden] activation with [hidden, hidden] weights. Three programs,
# timed side by side in one run with `tessera-run --repeat N --timing`:
#
#   single   the global-view program on one device;
#   8-dev    the same program on a 4x2 mesh ("data" x "model") with only the
#            arguments annotated: batch over "data", each layer's weight
#            column-parallel then row-parallel over "model" (Megatron);
#            tessera-run propagates, partitions (one all-reduce over
#            "model" per pair of layers) and runs it on 8 emulated devices;
#   shard_map the per-device program of 8-dev written by hand as a manual
#            computation (a psum over "model" after every row-parallel
#            layer), for comparison with the partitioner's output.
#
# Prints the median run times, the ratios to the single-device run, and the
# partitioned run's collective time from --stats (the mean and the largest
# over the devices, last run); `--check`-style agreement of the programs is
# checked on a small size by test/Integration/Run.
#
#===------------------------------------------------------------------------===#

set -euo pipefail
build="${1:-build}"
batch="${2:-1024}"
hidden="${3:-4096}"
layers="${4:-4}"
repeat="${5:-5}"
run="$build/bin/tessera-run"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

for kind in single global shard_map; do
  python3 "$here/gen-mlp-run.py" "$batch" "$hidden" "$layers" "$kind" >"$tmp/$kind.mlir"
done

median() { sed -n 's/^run: median \([0-9.]*\) ms.*/\1/p'; }
echo "MLP: batch $batch, hidden $hidden, $layers layers (f32), $repeat runs each"
single=$("$run" "$tmp/single.mlir" --random-inputs --repeat "$repeat" --timing | median)
global_out=$("$run" "$tmp/global.mlir" --random-inputs --repeat "$repeat" --timing --stats)
global=$(printf '%s\n' "$global_out" | median)
manual=$("$run" "$tmp/shard_map.mlir" --random-inputs --repeat "$repeat" --timing | median)
printf '%-40s %10s ms\n' "single device" "$single"
printf '%-40s %10s ms\n' "8 devices (data=4, model=2), partitioned" "$global"
printf '%-40s %10s ms\n' "8 devices, hand-written shard_map" "$manual"
python3 -c "print('ratio 8-dev / single: %.2f partitioned, %.2f shard_map' % ($global / $single, $manual / $single))"
printf '%s\n' "$global_out" | grep '^stats:' | head -3
# The share of the partitioned run spent in collectives (last run): in
# total, and after every member of each call had arrived (moving and
# reducing data; the rest is waiting, which on 2 cores is mostly the other
# devices computing).
printf '%s\n' "$global_out" | awk -v total="$global" '
  /^stats: [0-9]+ / {
    t = $(NF - 3); d = $(NF - 1); n++
    sum += t; if (t > max) max = t
    dsum += d; if (d > dmax) dmax = d
  }
  END {
    printf "collectives: mean %.3f ms (%.0f%%), largest %.3f ms (%.0f%%) of %.3f ms over %d devices\n",
           sum / n, 100 * sum / n / total, max, 100 * max / total, total, n
    printf "  of which data movement: mean %.3f ms (%.0f%%), largest %.3f ms (%.0f%%)\n",
           dsum / n, 100 * dsum / n / total, dmax, 100 * dmax / total
  }'
