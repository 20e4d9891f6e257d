#!/usr/bin/env bash
#===- mlp-bench.sh - an MLP on 8 emulated devices vs one device ------------===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
# Usage: bench/mlp-bench.sh [build] [batch] [hidden] [layers] [repeat]
#        (defaults: build 1024 4096 4 5)
#
# The seed MLP scaled up: `layers` layers of matmul + tanh on a
# [batch, hidden] activation with [hidden, hidden] weights. Two programs,
# timed side by side in one run with `tessera-run --repeat N --timing`:
#
#   single   the global-view program on one device;
#   8-dev    the same computation on a 4x2 mesh ("data" x "model") as a
#            shard_map: batch over "data", each layer's weight column-
#            parallel then row-parallel over "model" (Megatron), with a psum
#            over "model" after every row-parallel layer. (spmd-partition
#            would produce this from the global view; until it lands the
#            shard_map is written out.)
#
# Prints the median run times, their ratio, and the 8-device run's
# collective time from --stats; `--check`-style agreement of the two
# programs is checked on a small size by test/Integration/Run.
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

python3 "$here/gen-mlp-run.py" "$batch" "$hidden" "$layers" single > "$tmp/single.mlir"
python3 "$here/gen-mlp-run.py" "$batch" "$hidden" "$layers" shard_map > "$tmp/sharded.mlir"

median() { sed -n 's/^run: median \([0-9.]*\) ms.*/\1/p'; }
echo "MLP: batch $batch, hidden $hidden, $layers layers (f32), $repeat runs each"
single=$("$run" "$tmp/single.mlir" --random-inputs --repeat "$repeat" --timing | median)
sharded_out=$("$run" "$tmp/sharded.mlir" --random-inputs --repeat "$repeat" --timing --stats)
sharded=$(printf '%s\n' "$sharded_out" | median)
printf '%-28s %10s ms\n' "single device" "$single"
printf '%-28s %10s ms\n' "8 devices (data=4, model=2)" "$sharded"
python3 -c "print('ratio 8-dev / single: %.2f' % ($sharded / $single))"
printf '%s\n' "$sharded_out" | grep '^stats:' | head -3
# The share of the 8-device run spent in collectives (device 0, last run).
coll=$(printf '%s\n' "$sharded_out" | awk '/^stats: 0 / {print $(NF-1)}')
python3 -c "print('collectives on device 0: %.3f ms of %.3f ms (%.0f%%)' % ($coll, $sharded, 100 * $coll / $sharded))"
