#!/usr/bin/env bash
#===- run.sh - f32 matmul: tessera-run vs single-threaded OpenBLAS ---------===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
# Usage: bench/matmul/run.sh [<build-dir>]   (default: build)
#
# For each shape MxNxK (256^3, 1024^3, 2048^3 and 512x2048x1024), generates
# a linalg.matmul program, runs it with `tessera-run --repeat N --timing`
# (the tessera-cpu pipeline, tiled and vectorized for the host) and, in the
# same run, times OpenBLAS's cblas_sgemm on the same shape single-threaded
# (sgemm.c, compiled here; OPENBLAS_CORETYPE=SkylakeX when the host has
# AVX-512). Prints the median GFLOP/s of both and their ratio. Needs
# libopenblas-dev (`make bench` installs it). REPEAT=N overrides the 10 runs;
# SHAPES="MxNxK ..." the shapes.
#
#===------------------------------------------------------------------------===#

set -euo pipefail

build="${1:-build}"
run="$build/bin/tessera-run"
if [ ! -x "$run" ]; then
  echo "bench/matmul/run.sh: no '$run' (build first)" >&2
  exit 1
fi
repeat="${REPEAT:-10}"
shapes="${SHAPES:-256x256x256 1024x1024x1024 2048x2048x2048 512x2048x1024}"
clang="${CLANG:-/usr/lib/llvm-22/bin/clang}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if ! "$clang" -O2 -o "$work/sgemm" "$here/sgemm.c" -lopenblas 2>"$work/cc.log"; then
  cat "$work/cc.log" >&2
  echo "bench/matmul/run.sh: cannot build the OpenBLAS reference (install" \
    "libopenblas-dev, e.g. 'make bench')" >&2
  exit 1
fi
export OPENBLAS_NUM_THREADS=1
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
  export OPENBLAS_CORETYPE=SkylakeX
fi

# The median of a "run: median X ms, ..." line.
median() { sed -n 's/^run: median \([0-9.]*\) ms.*/\1/p'; }

cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null |
  head -1)"
echo "f32 matmul C = A * B, median of $repeat runs; OpenBLAS single-threaded" \
  "(OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-auto}) on ${cpu:-this CPU}"
printf "%-16s %12s %12s %12s %12s %8s\n" "MxNxK" "tessera ms" "GFLOP/s" \
  "OpenBLAS ms" "GFLOP/s" "ratio"
for shape in $shapes; do
  IFS=x read -r m n k <<<"$shape"
  file="$work/matmul_$shape.mlir"
  cat >"$file" <<EOF
func.func @main(%a: tensor<${m}x${k}xf32>, %b: tensor<${k}x${n}xf32>) -> tensor<${m}x${n}xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<${m}x${n}xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<${m}x${n}xf32>) -> tensor<${m}x${n}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<${m}x${k}xf32>, tensor<${k}x${n}xf32>) outs(%c : tensor<${m}x${n}xf32>) -> tensor<${m}x${n}xf32>
  return %r : tensor<${m}x${n}xf32>
}
EOF
  ours="$("$run" "$file" --random-inputs --repeat "$repeat" --timing | median)"
  blas="$("$work/sgemm" "$m" "$n" "$k" "$repeat" | median)"
  awk -v shape="$shape" -v m="$m" -v n="$n" -v k="$k" -v ours="$ours" \
    -v blas="$blas" 'BEGIN {
      flop = 2 * m * n * k
      printf "%-16s %12.3f %12.1f %12.3f %12.1f %7.0f%%\n", shape, ours,
             flop / ours / 1e6, blas, flop / blas / 1e6, 100 * blas / ours
    }'
done
