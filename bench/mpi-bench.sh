#!/usr/bin/env bash
#===- mpi-bench.sh - one mesh as several MPI processes vs one --------------===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
# Usage: bench/mpi-bench.sh [build] [rounds]   (defaults: build 5)
#
# Three comparisons, each side by side in one run (the machine is shared
# and noisy: only the ratios within one run mean something):
#
#   all_reduce  64 MiB of f32 over 8 devices (mpi-collectives-bench) as
#               1 process of 8 devices (shared memory only, the threads
#               backend's path), 2 processes of 4 and 4 of 2 (reduced
#               inside each process, one buffer per process across);
#   MLP         the scaled MLP of mlp-bench.sh (batch 1024, hidden 4096,
#               4 layers, data=4 x model=2, partitioned by tessera-run) with
#               the threads backend (1 x 8) and as 2 processes of 4
#               (--backend=mpi), `tessera-run --repeat N --timing`;
#   loading     a 1 GiB f32 input sharded over 8 devices (data parallel),
#               loaded by 1, 2 and 4 processes: the bytes each process read
#               and its loading time (--stats, --timing). The file is in the
#               page cache after its first read: the times are of reading
#               from memory, not from a disk.
#
# Runs on this host: mpirun with --oversubscribe --bind-to none (and as root
# if need be). Smaller sizes for a quick run (the defaults are above):
#   ALLREDUCE_MIB=16 MLP_SIZES="256 1024 4" LOAD_ROWS=16384 bench/mpi-bench.sh
# (LOAD_ROWS rows of 4096 f32, a multiple of 64).
#
#===------------------------------------------------------------------------===#

set -euo pipefail
build="${1:-build}"
rounds="${2:-5}"
mib="${ALLREDUCE_MIB:-64}"
read -r mlpBatch mlpHidden mlpLayers <<<"${MLP_SIZES:-1024 4096 4}"
rows="${LOAD_ROWS:-65536}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
run="$build/bin/tessera-run"
bench="$build/bin/mpi-collectives-bench"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader
mpi() { mpirun --oversubscribe --bind-to none "$@"; }
ms() { sed -n "s/.*median \([0-9.]*\) ms.*/\1/p"; }
ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }

echo "== all_reduce: $mib MiB of f32 over 8 devices, median of $rounds runs;"
echo "   three trials alternating, the best median of each counts"
best() { python3 -c "import sys; print(min(float(x) for x in sys.argv[1:]))" "$@"; }
a1=() a2=() a4=()
for trial in 1 2 3; do
  a1+=("$(mpi -n 1 "$bench" "$mib" 8 "$rounds" | tee /dev/stderr | ms)")
  a2+=("$(mpi -n 2 "$bench" "$mib" 8 "$rounds" | tee /dev/stderr | ms)")
  a4+=("$(mpi -n 4 "$bench" "$mib" 8 "$rounds" | tee /dev/stderr | ms)")
done
b1=$(best "${a1[@]}") b2=$(best "${a2[@]}") b4=$(best "${a4[@]}")
echo "best: 1x8 $b1 ms, 2x4 $b2 ms, 4x2 $b4 ms"
echo "ratio 2x4 / 1x8: $(ratio "$b2" "$b1"), 4x2 / 1x8: $(ratio "$b4" "$b1")"

echo "== MLP: batch $mlpBatch, hidden $mlpHidden, $mlpLayers layers on data=4, model=2, $rounds runs"
python3 "$here/gen-mlp-run.py" "$mlpBatch" "$mlpHidden" "$mlpLayers" global >"$tmp/mlp.mlir"
m1=() m2=()
for trial in 1 2; do
  m1+=("$("$run" "$tmp/mlp.mlir" --random-inputs --repeat "$rounds" --timing |
          grep '^run:' | tee /dev/stderr | ms)")
  m2+=("$(mpi -n 2 "$run" "$tmp/mlp.mlir" --backend=mpi --random-inputs \
            --repeat "$rounds" --timing | grep '^run:' | tee /dev/stderr | ms)")
done
b1=$(best "${m1[@]}") b2=$(best "${m2[@]}")
echo "best: 1x8 (threads) $b1 ms, 2x4 (mpi) $b2 ms"
echo "ratio 2x4 (mpi) / 1x8 (threads): $(ratio "$b2" "$b1")"

echo "== loading: $((rows * 4096 * 4 >> 20)) MiB of f32 ($rows x 4096) over 8 devices, data parallel"
python3 - "$tmp/big.npy" "$rows" <<'PY'
import struct, sys
rows, cols = int(sys.argv[2]), 4096
text = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
text += " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
chunk = struct.pack("<%df" % (256 * 1024), *[float(i % 97) for i in range(256 * 1024)])
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode())
    for _ in range(rows * cols // (256 * 1024)):
        f.write(chunk)
PY
cat >"$tmp/sum.mlir" <<MLIR
spmd.mesh @mesh = <["data"=8]>
func.func @main(%x: tensor<${rows}x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<${rows}xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<${rows}xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<${rows}xf32>) -> tensor<${rows}xf32>
  %s = linalg.reduce ins(%x : tensor<${rows}x4096xf32>) outs(%f : tensor<${rows}xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %s : tensor<${rows}xf32>
}
MLIR
# A first read brings the file into the page cache for every run alike.
cat "$tmp/big.npy" >/dev/null
for p in 1 2 4; do
  echo "-- $p process(es)"
  mpi -n "$p" "$run" "$tmp/sum.mlir" --backend=mpi --input "x=$tmp/big.npy" \
    --stats --timing | grep '^load:\|read .* data bytes'
done
