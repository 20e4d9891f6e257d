#!/usr/bin/env bash
#===- kernel-layout-bench.sh - kernel bodies on the vector layout path ----===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
# Usage: bench/kernel-layout-bench.sh [--quick] [<build-dir>]
#        (default build dir: build; see bench/README-kernel.md)
#
# Three measurements of Pallas-style kernel bodies, whose vector math the
# layout passes (kernel-infer-vector-layout, kernel-apply-vector-layout)
# rewrite onto native tiles:
#
#   (a) compile time and memory of the cases issue 31 lists (a dot of an
#       (8, 128) block with a (128, 128) block, jnp.dot(2 * x, y), a dot of
#       bf16 blocks after astype(f32), two chained dots
#       jnp.dot(jnp.exp(jnp.dot(q, k)), v), an int8 x int8 -> int32 dot
#       with a rescale, the flash attention and the fused MLP of (c)), each
#       as a kernel.call and as the same math in linalg on tensors outside
#       a kernel (`gen-kernel-layout-bench.py compile CASE kernel|reference`),
#       compiled alternately with `tessera-run FILE --emit=obj` (the
#       pipelined lowering, tessera-cpu and LLVM at -O3): the CPU time
#       (user + system; the compilation is single-threaded, and CPU time
#       does not count the time other processes take the processor) and
#       the peak resident memory (GNU time's maximum RSS) of the fastest
#       of COMPILE_REPEAT runs, and the ratio of the CPU times;
#   (b) compile time and memory, the same way, of each executable kernel
#       test in test/Integration/Kernel that exercises the layout path
#       (flash attention, fused MLP, small-batch matmuls, bf16/int8 dots,
#       layer norm and softmax, masks; each module also holds its linalg
#       reference), next to the target of 5 s;
#   (c) run time: an online-softmax flash attention (S = 2048, D = 128,
#       (128, 128) query and key blocks) and a fused MLP (y = gelu(x w1)
#       w2, x (1024, 512), w1 (512, 1024), w2 (1024, 512), (128, 512) row
#       blocks), each as a kernel.call (@kernel) and as the same math in
#       linalg on tensors outside a kernel (@reference) in one program
#       (bench/gen-kernel-layout-bench.py), timed with `tessera-run --entry
#       E --repeat N --timing` alternately (ROUNDS rounds of both, the
#       median of each's medians): the ratio kernel / reference, next to the
#       target of 1.5.
#
# Each program of (c) is first run once in its --check variant, which
# returns the number of elements where @kernel and @reference differ; the
# script stops if it is not 0. --quick uses smaller sizes in (c) (S = 512;
# x (256, 256), hidden 512) and fewer runs. Needs GNU time (/usr/bin/time,
# which `make bench` installs).
#
# Environment: REPEAT (runs per timing, default 10, quick 3), ROUNDS
# (default 3, quick 1), COMPILE_REPEAT (default 3, quick 1).
#
#===------------------------------------------------------------------------===#

set -euo pipefail

quick=0
build=build
for arg in "$@"; do
  case "$arg" in
  --quick) quick=1 ;;
  -h | --help)
    sed -n '/^# Usage/,/^#===-----/p' "$0" | sed 's/^# \{0,1\}//; /^===/d'
    exit 0
    ;;
  -*)
    echo "kernel-layout-bench.sh: unknown option '$arg'" >&2
    exit 1
    ;;
  *) build="$arg" ;;
  esac
done

run="$build/bin/tessera-run"
if [ ! -x "$run" ]; then
  echo "kernel-layout-bench.sh: no '$run' (build first)" >&2
  exit 1
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tests="$here/../test/Integration/Kernel"
gen="$here/gen-kernel-layout-bench.py"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ "$quick" = 1 ]; then
  repeat="${REPEAT:-3}" rounds="${ROUNDS:-1}" compile_repeat="${COMPILE_REPEAT:-1}"
  flash=(flash 512 128 128 128) mlp=(mlp 256 256 512 128)
else
  repeat="${REPEAT:-10}" rounds="${ROUNDS:-3}" compile_repeat="${COMPILE_REPEAT:-3}"
  flash=(flash 2048 128 128 128) mlp=(mlp 1024 512 1024 128)
fi

# The median of the numbers on stdin.
median_of() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)"
echo "tessera-run on ${cpu:-this CPU}, one device, --kernel-mode=pipelined"

#===--- (a), (b) compile time and memory --------------------------------===#

if [ ! -x /usr/bin/time ]; then
  echo "kernel-layout-bench.sh: needs GNU time (/usr/bin/time; apt-get install time)" >&2
  exit 1
fi

# compile_stats FILE [N]: "CPU-s wall-s RSS-MiB" of the fastest of N
# (default COMPILE_REPEAT) compilations of FILE (by CPU time).
compile_stats() {
  local best="" t n="${2:-$compile_repeat}"
  for ((r = 0; r < n; ++r)); do
    if ! /usr/bin/time -f "%U %S %e %M" -o "$work/time" \
      "$run" "$1" --emit=obj -o "$work/out.o" 2>"$work/err"; then
      cat "$work/err" >&2
      echo "kernel-layout-bench.sh: $1 does not compile" >&2
      exit 1
    fi
    t="$(tail -1 "$work/time" | awk '{ printf "%.3f %.3f %.1f", $1 + $2, $3, $4 / 1024 }')"
    best="$(printf '%s\n%s\n' "${best:-$t}" "$t" | sort -g | head -1)"
  done
  printf '%s\n' "$best"
}

echo
echo "(a) compile time and peak memory of issue 31's cases (tessera-run --emit=obj, -O3; fastest of $compile_repeat, alternating)"
printf '    %-40s %9s %10s %9s %10s %8s\n' "" "kernel s" "kernel MiB" "linalg s" "linalg MiB" "ratio"
for case in dot dot2x astype chained int8 flash mlp; do
  for side in kernel reference; do
    python3 "$gen" compile "$case" "$side" >"$work/$case-$side.mlir"
  done
  k=() r=()
  for ((i = 0; i < compile_repeat; ++i)); do
    k+=("$(compile_stats "$work/$case-kernel.mlir" 1)")
    r+=("$(compile_stats "$work/$case-reference.mlir" 1)")
  done
  kb="$(printf '%s\n' "${k[@]}" | sort -g | head -1)"
  rb="$(printf '%s\n' "${r[@]}" | sort -g | head -1)"
  case "$case" in
  dot) label="dot (8, 128) x (128, 128) f32" ;;
  dot2x) label="dot(2 * x, y), (128, 128) f32" ;;
  astype) label="dot(x.astype(f32), y.astype(f32)) bf16" ;;
  chained) label="dot(exp(dot(q, k)), v), (128, 128)" ;;
  int8) label="int8 x int8 -> int32, rescaled" ;;
  flash) label="flash attention S=2048 (128, 128)" ;;
  mlp) label="fused MLP (1024, 512), hidden 1024" ;;
  esac
  awk -v l="$label" -v k="$kb" -v r="$rb" 'BEGIN {
    split(k, a, " "); split(r, b, " ")
    printf "    %-40s %9.2f %10.0f %9.2f %10.0f %8.2f\n", l, a[1], a[3], b[1], b[3], a[1] / b[1]
  }'
done

echo
echo "(b) compile time and peak memory of the executable kernel tests (kernel and linalg reference in one module; fastest of $compile_repeat)"
printf '    %-28s %10s %10s %10s %8s\n' "" "CPU s" "wall s" "MiB" "target"
for name in flash-attention mlp small-matmul bf16-int8-dot layernorm-softmax masks; do
  read -r c w m < <(compile_stats "$tests/$name.mlir")
  printf '    %-28s %10.2f %10.2f %10.0f %8s\n' "$name.mlir" "$c" "$w" "$m" "< 5"
done

#===--- (c) run time -----------------------------------------------------===#

# validate NAME GEN-ARGS...: the --check variant must return 0 mismatches.
validate() {
  local name="$1"
  shift
  python3 "$gen" "$@" --check >"$work/$name-check.mlir"
  local out
  if ! out="$("$run" "$work/$name-check.mlir" --random-inputs 2>&1)" ||
    ! printf '%s\n' "$out" | grep -q '^result0: i32\[\] = \[0\]'; then
    printf '%s\n' "$out" >&2
    echo "kernel-layout-bench.sh: $name: @kernel and @reference differ" \
      "(result0 is the number of elements that differ)" >&2
    exit 1
  fi
}

# timed NAME ENTRY: the median time in ms of REPEAT runs of @ENTRY.
timed() {
  local out
  if ! out="$("$run" "$work/$1.mlir" --entry "$2" --random-inputs --repeat "$repeat" --timing 2>&1)"; then
    printf '%s\n' "$out" >&2
    echo "kernel-layout-bench.sh: tessera-run failed on $1 @$2" >&2
    exit 1
  fi
  printf '%s\n' "$out" | sed -n 's/^run: median \([0-9.]*\) ms.*/\1/p'
}

# compare NAME LABEL GEN-ARGS...: alternates @kernel and @reference.
compare() {
  local name="$1" label="$2"
  shift 2
  validate "$name" "$@"
  python3 "$gen" "$@" >"$work/$name.mlir"
  local k=() r=()
  for ((i = 0; i < rounds; ++i)); do
    k+=("$(timed "$name" kernel)")
    r+=("$(timed "$name" reference)")
  done
  local km rm
  km="$(printf '%s\n' "${k[@]}" | median_of)"
  rm="$(printf '%s\n' "${r[@]}" | median_of)"
  awk -v l="$label" -v k="$km" -v r="$rm" 'BEGIN {
    printf "    %-44s %12.3f %12.3f %8.2f %8s\n", l, k, r, k / r, "<= 1.5"
  }'
}

echo
echo "(c) run time, kernel.call vs the same math in linalg on tensors (median of $rounds x $repeat runs, alternating)"
printf '    %-44s %12s %12s %8s %8s\n' "" "kernel ms" "linalg ms" "ratio" "target"
compare flash "flash attention S=${flash[1]} D=${flash[2]} (${flash[3]}, ${flash[4]})" "${flash[@]}"
compare mlp "fused MLP x (${mlp[1]}, ${mlp[2]}), hidden ${mlp[3]}" "${mlp[@]}"
