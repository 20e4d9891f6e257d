#!/usr/bin/env bash
#===- kernel-bench.sh - kernel.call vs memcpy and vs linalg.matmul ---------===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
# Usage: bench/kernel-bench.sh [--quick] [--fresh-pages] [<build-dir>]
#        (default build dir: build; see bench/README-kernel.md)
#
# Two measurements of `kernel.call`s run by `tessera-run
# --kernel-mode=pipelined --repeat N --timing`, each next to a baseline
# timed in the same run:
#
#   (a) a memory-bound elementwise add o = x + y on two (8192, 8192) f32
#       inputs (256 MiB each; output 256 MiB; 768 MiB read + written per
#       run) with (8, 8192) blocks, for TPU v5e (one TensorCore) and v5p
#       (the grid split across a megacore's two TensorCores); on v5e once
#       with the DMA engine on a thread of its own (TESSERA_KERNEL_DMA=
#       threads) and once with the core performing the copies when it
#       waits (TESSERA_KERNEL_DMA=inline): effective
#       bandwidth (bytes read + written / median time) next to a C memcpy
#       (clang -O2, built here)
#       moving the same number of bytes (a 384 MiB copy), next to the
#       same add as arith.addf on tensors through the tessera-cpu pipeline,
#       and next to a C model of the copies the emulation must make (each
#       block copied into a VMEM buffer, added there, copied back: the
#       floor of a faithful emulation on one core);
#   (b) a 2048^3 f32 matmul as a kernel.call over (256, 256, 256) blocks
#       (grid (8, 8, 8), [parallel, parallel, arbitrary], the output block
#       resident along k) with two bodies (a register-blocked
#       vector.outerproduct loop nest, and one linalg.matmul on the blocks)
#       next to a plain linalg.matmul through the tessera-cpu pipeline:
#       GFLOP/s of each and the ratio to linalg.matmul.
#
# --quick uses (1024, 8192) for the add and 512^3 for the matmul (a smoke
# run of a few seconds). Every kernel program is first run once in a
# variant that compares it with the linalg computation of the same values
# (bench/gen-kernel-bench.py --check); a kernel that computes a wrong
# result stops the script.
#
# tessera-run allocates every output afresh in each run; the runtime keeps
# freed large blocks for reuse (see docs/Runtime.md), so the runs after the
# first write into mapped pages, like the memcpy into a reused buffer, and
# the times measure the kernels rather than page faults (which are
# expensive in VMs). --fresh-pages turns that cache off
# (TESSERA_RT_CACHE_BYTES=0) and times the memcpy into a freshly allocated
# buffer in every run.
#
# Environment: REPEAT (default 10, quick 5) runs per program, SLOW_REPEAT
# (default 3) for the linalg.matmul-body kernel, ADD_BLOCK_ROWS (default
# 8), MM_BLOCK (default 256), MM_TILE (MRxNR, the vector body's
# accumulator tile; default 8x32 with AVX-512, else 4x16), CLANG (default
# clang-22).
#
#===------------------------------------------------------------------------===#

set -euo pipefail

quick=0
fresh=0
build=build
for arg in "$@"; do
  case "$arg" in
  --quick) quick=1 ;;
  --fresh-pages) fresh=1 ;;
  -h | --help)
    sed -n '/^# Usage/,/^#===-----/p' "$0" | sed 's/^# \{0,1\}//; /^===/d'
    exit 0
    ;;
  -*)
    echo "kernel-bench.sh: unknown option '$arg'" >&2
    exit 1
    ;;
  *) build="$arg" ;;
  esac
done

run="$build/bin/tessera-run"
if [ ! -x "$run" ]; then
  echo "kernel-bench.sh: no '$run' (build first)" >&2
  exit 1
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
gen="$here/gen-kernel-bench.py"
clang="${CLANG:-}"
if [ -z "$clang" ]; then
  clang="$(command -v clang-22 || echo /usr/lib/llvm-22/bin/clang)"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ "$quick" = 1 ]; then
  add_m=1024 add_n=8192 mm=512 repeat="${REPEAT:-5}"
else
  add_m=8192 add_n=8192 mm=2048 repeat="${REPEAT:-10}"
fi
slow_repeat="${SLOW_REPEAT:-3}"
add_bm="${ADD_BLOCK_ROWS:-8}"
mb="${MM_BLOCK:-256}"
# The body's vectors: (1, 1024) rows for the add; accumulator tiles for the
# vector matmul body that fit the host's vector registers: (8, 32) with
# AVX-512 (32 registers of 16 floats), else (4, 16) (16 registers of 8
# floats); MM_TILE=MRxNR overrides.
add_vr=1 add_vc=1024 mr=4 nr=16
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
  mr=8 nr=32
fi
if [ -n "${MM_TILE:-}" ]; then
  mr="${MM_TILE%x*}" nr="${MM_TILE#*x}"
fi

if [ "$fresh" = 0 ]; then
  pages="output buffers reused across runs (the runtime's block cache)"
else
  export TESSERA_RT_CACHE_BYTES=0
  pages="fresh output pages in every run (TESSERA_RT_CACHE_BYTES=0)"
fi

# The baselines, one C program timed like tessera-run (the median of REPEAT
# runs in tessera-run's format):
#   baselines memcpy BYTES REPEAT [fresh]: copies BYTES from one buffer to
#     another (into a new buffer in every run with `fresh`);
#   baselines model M N BM REPEAT: the C model of the add kernel's copies:
#     for each (BM, N) block of the (M, N) f32 inputs, copies the two input
#     blocks row by row (like the DMA engine) into one of two sets of block
#     buffers, adds them into a third, and copies that back to the output
#     with non-temporal stores (as the runtime writes large blocks back).
cat >"$work/baselines.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double nowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Copies n floats (n a multiple of 4, both 16-byte aligned) with
   non-temporal stores. */
typedef float Vec4 __attribute__((vector_size(16)));
static void streamCopy(float *dst, const float *src, size_t n) {
  for (size_t i = 0; i < n; i += 4)
    __builtin_nontemporal_store(*(const Vec4 *)(src + i), (Vec4 *)(dst + i));
}

static int byValue(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Copies bytes from src to a buffer, repeat times; returns a byte read
   back so that the copies are kept. */
static unsigned runMemcpy(size_t bytes, int repeat, int fresh, double *ms) {
  unsigned char *src = malloc(bytes);
  unsigned char *dst = fresh ? NULL : malloc(bytes);
  if (!src || (!fresh && !dst))
    exit(1);
  for (size_t i = 0; i < bytes; ++i)
    src[i] = (unsigned char)(i * 131);
  if (dst)
    memset(dst, 0, bytes);
  unsigned sum = 0;
  for (int r = 0; r < repeat; ++r) {
    double start = nowMs();
    unsigned char *to = fresh ? malloc(bytes) : dst;
    if (!to)
      exit(1);
    memcpy(to, src, bytes);
    sum += to[(size_t)r * 4099 % bytes];
    if (fresh)
      free(to);
    ms[r] = nowMs() - start;
  }
  return sum;
}

/* The add kernel's copies; returns a sum of output values so that the
   copies are kept. */
static unsigned runModel(size_t m, size_t n, size_t bm, int repeat,
                         double *ms) {
  float *x = aligned_alloc(128, m * n * 4), *y = aligned_alloc(128, m * n * 4),
        *o = aligned_alloc(128, m * n * 4);
  float *buffers = aligned_alloc(128, 6 * bm * n * 4);
  if (!x || !y || !o || !buffers || bm == 0 || m % bm || n % 32)
    exit(1);
  for (size_t i = 0; i < m * n; ++i) {
    x[i] = (float)(i % 1000);
    y[i] = (float)(i % 7);
    o[i] = 0;
  }
  for (int r = 0; r < repeat; ++r) {
    double start = nowMs();
    for (size_t b = 0; b < m / bm; ++b) {
      float *bx = buffers + (b % 2) * 3 * bm * n, *by = bx + bm * n,
            *bo = by + bm * n;
      for (size_t i = 0; i < bm; ++i) {
        memcpy(bx + i * n, x + (b * bm + i) * n, n * 4);
        memcpy(by + i * n, y + (b * bm + i) * n, n * 4);
      }
      for (size_t i = 0; i < bm * n; ++i)
        bo[i] = bx[i] + by[i];
      for (size_t i = 0; i < bm; ++i)
        streamCopy(o + (b * bm + i) * n, bo + i * n, n);
    }
#if defined(__x86_64__)
    __builtin_ia32_sfence();
#endif
    ms[r] = nowMs() - start;
  }
  double sum = 0;
  for (size_t i = 0; i < m * n; i += 4099)
    sum += o[i];
  return (unsigned)sum;
}

int main(int argc, char **argv) {
  int isMemcpy = argc >= 4 && strcmp(argv[1], "memcpy") == 0;
  int isModel = argc >= 6 && strcmp(argv[1], "model") == 0;
  if (!isMemcpy && !isModel) {
    fprintf(stderr, "usage: baselines memcpy BYTES REPEAT [fresh]\n"
                    "       baselines model M N BM REPEAT\n");
    return 1;
  }
  int repeat = atoi(argv[isMemcpy ? 3 : 5]);
  double *ms = malloc((repeat > 0 ? repeat : 1) * sizeof(double));
  if (!ms || repeat <= 0)
    return 1;
  unsigned kept =
      isMemcpy ? runMemcpy(strtoull(argv[2], NULL, 10), repeat,
                           argc > 4 && strcmp(argv[4], "fresh") == 0, ms)
               : runModel(strtoull(argv[2], NULL, 10),
                          strtoull(argv[3], NULL, 10),
                          strtoull(argv[4], NULL, 10), repeat, ms);
  qsort(ms, repeat, sizeof(double), byValue);
  double median = repeat % 2 ? ms[repeat / 2]
                             : (ms[repeat / 2 - 1] + ms[repeat / 2]) / 2;
  printf("run: median %.3f ms, min %.3f ms, max %.3f ms over %d runs\n",
         median, ms[0], ms[repeat - 1], repeat);
  return kept == 0xdeadbeef;
}
EOF
if ! "$clang" -O2 -march=native -o "$work/baselines" "$work/baselines.c" 2>"$work/cc.log"; then
  cat "$work/cc.log" >&2
  echo "kernel-bench.sh: cannot compile the baselines with '$clang'" >&2
  exit 1
fi

# The median of a "run: median X ms, ..." line.
median() { sed -n 's/^run: median \([0-9.]*\) ms.*/\1/p'; }

# timed NAME REPEAT ARGS...: runs tessera-run on $work/NAME.mlir and prints
# the median time in ms.
timed() {
  local name="$1" n="$2"
  shift 2
  local out
  if ! out="$("$run" "$work/$name.mlir" --random-inputs --repeat "$n" --timing "$@" 2>&1)"; then
    printf '%s\n' "$out" >&2
    echo "kernel-bench.sh: tessera-run failed on $name" >&2
    exit 1
  fi
  local ms
  ms="$(printf '%s\n' "$out" | median)"
  if [ -z "$ms" ]; then
    printf '%s\n' "$out" >&2
    echo "kernel-bench.sh: no timing from tessera-run on $name" >&2
    exit 1
  fi
  echo "$ms"
}

# validate NAME GEN-ARGS...: generates the --check variant of a kernel
# program and requires its mismatch count to be 0.
validate() {
  local name="$1"
  shift
  python3 "$gen" "$@" --check >"$work/$name-check.mlir"
  local out
  if ! out="$("$run" "$work/$name-check.mlir" --random-inputs --kernel-mode=pipelined 2>&1)" ||
    ! printf '%s\n' "$out" | grep -q '^result0: i32\[\] = \[0\]'; then
    printf '%s\n' "$out" >&2
    echo "kernel-bench.sh: $name computes a wrong result (result0 is the" \
      "number of elements that differ from the linalg reference)" >&2
    exit 1
  fi
}

cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)"
echo "tessera-run --kernel-mode=pipelined on ${cpu:-this CPU}, one device;" \
  "median of $repeat runs; $pages"

#===--- (a) elementwise add ----------------------------------------------===#

add_bytes=$((3 * add_m * add_n * 4))
copy_bytes=$((add_bytes / 2))
add_args=(add "$add_m" "$add_n" "$add_bm" "$add_vr" "$add_vc")
validate add "${add_args[@]}"
python3 "$gen" "${add_args[@]}" >"$work/add.mlir"
cat >"$work/plain-add.mlir" <<EOF
func.func @main(%x: tensor<${add_m}x${add_n}xf32>, %y: tensor<${add_m}x${add_n}xf32>) -> tensor<${add_m}x${add_n}xf32> {
  %0 = arith.addf %x, %y : tensor<${add_m}x${add_n}xf32>
  return %0 : tensor<${add_m}x${add_n}xf32>
}
EOF
add_ms="$(TESSERA_KERNEL_DMA=threads timed add "$repeat" --kernel-mode=pipelined)"
# The same with the copies performed by the core when it waits for them.
inline_ms="$(TESSERA_KERNEL_DMA=inline timed add "$repeat" --kernel-mode=pipelined)"
# The same kernel for TPU v5p, whose two TensorCores form one device
# (megacore): the parallel grid axis is split across them, two threads.
sed 's/#kernel.target<"v5e">/#kernel.target<"v5p">/' "$work/add.mlir" >"$work/add-v5p.mlir"
add2_ms="$(timed add-v5p "$repeat" --kernel-mode=pipelined)"
plain_ms="$(timed plain-add "$repeat")"
copy_mode=""
[ "$fresh" = 1 ] && copy_mode=fresh
copy_ms="$("$work/baselines" memcpy "$copy_bytes" "$repeat" $copy_mode | median)"
model_ms="$("$work/baselines" model "$add_m" "$add_n" "$add_bm" "$repeat" | median)"

echo
awk -v m="$add_m" -v n="$add_n" -v bytes="$add_bytes" 'BEGIN {
  mib = 1048576
  printf "(a) o = x + y, f32 (%d, %d): %.0f MiB read (2 inputs) + %.0f MiB written (output) = %.0f MiB per run\n",
         m, n, 2 * m * n * 4 / mib, m * n * 4 / mib, bytes / mib
}'
awk -v bm="$add_bm" -v n="$add_n" -v grid=$((add_m / add_bm)) \
  -v bytes="$add_bytes" -v copy="$copy_bytes" -v k="$add_ms" \
  -v p="$plain_ms" -v c="$copy_ms" -v k2="$add2_ms" -v cm="$model_ms" \
  -v ki="$inline_ms" 'BEGIN {
  printf "    %-52s %10s %12s\n", "", "median ms", "GB/s (r+w)"
  printf "    %-52s %10.3f %12.2f\n", sprintf("kernel.call, (%d, %d) blocks, grid [%d]", bm, n, grid), k, bytes / k / 1e6
  printf "    %-52s %10.3f %12.2f\n", "  the same, copies performed by the core (inline)", ki, bytes / ki / 1e6
  printf "    %-52s %10.3f %12.2f\n", "  the same on v5p (2 TensorCores: 2 threads)", k2, bytes / k2 / 1e6
  printf "    %-52s %10.3f %12.2f\n", "arith.addf on tensors (tessera-cpu)", p, bytes / p / 1e6
  printf "    %-52s %10.3f %12.2f\n", sprintf("memcpy of %.0f MiB (same bytes read + written)", copy / 1048576), c, 2 * copy / c / 1e6
  printf "    %-52s %10.3f %12.2f\n", "C model of the copies (in, add, out; one thread)", cm, bytes / cm / 1e6
  printf "    bandwidth ratio kernel / memcpy: %.2f on v5e (%.2f inline), %.2f on v5p (arith.addf / memcpy: %.2f, C model / memcpy: %.2f)\n", c / k, c / ki, c / k2, c / p, c / cm
}'

#===--- (b) matmul -------------------------------------------------------===#

vec_args=(kernel-matmul "$mm" "$mm" "$mm" "$mb" "$mb" "$mb" vector "$mr" "$nr")
lin_args=(kernel-matmul "$mm" "$mm" "$mm" "$mb" "$mb" "$mb" linalg)
validate kernel-vector "${vec_args[@]}"
validate kernel-linalg "${lin_args[@]}"
python3 "$gen" "${vec_args[@]}" >"$work/kernel-vector.mlir"
python3 "$gen" "${lin_args[@]}" >"$work/kernel-linalg.mlir"
python3 "$gen" linalg-matmul "$mm" "$mm" "$mm" >"$work/linalg.mlir"
linalg_ms="$(timed linalg "$repeat")"
vector_ms="$(timed kernel-vector "$repeat" --kernel-mode=pipelined)"
body_ms="$(timed kernel-linalg "$slow_repeat" --kernel-mode=pipelined)"

echo
g=$((mm / mb))
awk -v s="$mm" -v b="$mb" -v g="$g" -v mr="$mr" -v nr="$nr" \
  -v l="$linalg_ms" -v v="$vector_ms" -v k="$body_ms" -v sr="$slow_repeat" 'BEGIN {
  flop = 2 * s * s * s
  printf "(b) C = A * B, f32 %dx%dx%d: %.2f GFLOP per run; kernels over (%d, %d, %d) blocks, grid [%d, %d, %d]\n",
         s, s, s, flop / 1e9, b, b, b, g, g, g
  printf "    %-52s %10s %10s %8s\n", "", "median ms", "GFLOP/s", "ratio"
  printf "    %-52s %10.3f %10.1f %8.2f\n", "linalg.matmul (tessera-cpu)", l, flop / l / 1e6, 1
  printf "    %-52s %10.3f %10.1f %8.2f\n", sprintf("kernel.call, vector.outerproduct body (%dx%d tiles)", mr, nr), v, flop / v / 1e6, l / v
  printf "    %-52s %10.3f %10.1f %8.2f\n", sprintf("kernel.call, linalg.matmul body (%d runs)", sr), k, flop / k / 1e6, l / k
  printf "    (ratio: linalg.matmul time / kernel time, i.e. kernel GFLOP/s / linalg.matmul GFLOP/s)\n"
}'
