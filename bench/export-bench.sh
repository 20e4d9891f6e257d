#!/usr/bin/env bash
#===- export-bench.sh - artifacts: sizes, warm starts, export time ---------===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
# Usage: bench/export-bench.sh [build] [repeats] [batch] [hidden] [layers]
#                              [big-layers] [run-layers]
#        (defaults: build 3 1024 4096 4 10000 1000)
#
# Exported artifacts (tessera-export) on these programs:
#
#   mlp      the scaled MLP of bench/mlp-bench.sh (gen-mlp-run.py: batch x
#            hidden, `layers` layers, on 8 emulated devices, 4 x 2, only the
#            arguments annotated): (a), (b), (c);
#   mlp-10k  the 10,000-layer MLP module of bench/propagation-bench.sh
#            (gen-propagation-module.py --model mlp: 64 x 128 activations,
#            128 x 512 weights, 2 x 4 mesh; `big-layers` layers): (a), (c);
#   mlp-1k   the same module with `run-layers` layers: (b), compiled at
#            --opt-level=0 and timed once (0: skipped). A cold compile of
#            these modules grows faster than linearly with the layers (at
#            -O0: 5 s for 100 layers, 24 s for 300, 500 s for 1,000, half of
#            it in one-shot bufferization), so the 10,000-layer module's cold
#            compile (hours) is not timed.
#
# For each it prints, in one run:
#
#   (a) sizes: the .mlir text, the exported module as text (the source
#       after the export's passes, as tessera-opt prints it), the module as
#       MLIR bytecode (uncompressed, as the artifact holds it), and the
#       artifact at zstd levels 3 (the default) and 19, with the ratios;
#   (b) time to first result: a fresh `tessera-run FILE.mlir --no-cache`
#       (parse, propagate, partition, compile, run) next to a fresh
#       `tessera-run FILE.tsx` whose compiled code is in the cache (read the
#       artifact, check the call, load the object code, run), alternating,
#       `repeats` times each, the fastest of each counting; the same inputs
#       (--random-inputs, seed 0) and the same run; plus the compile step
#       alone as --timing reports it (compiling vs loading from the cache);
#   (c) export time: `tessera-export` (the fastest of `repeats`), at level 3
#       and 19.
#
#===------------------------------------------------------------------------===#

set -euo pipefail
build="${1:-build}"
repeats="${2:-3}"
batch="${3:-1024}"
hidden="${4:-4096}"
layers="${5:-4}"
big_layers="${6:-10000}"
run_layers="${7:-1000}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
run="$build/bin/tessera-run"
export_tool="$build/bin/tessera-export"
opt="$build/bin/tessera-opt"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export TESSERA_CACHE_DIR="$tmp/cache"

python3 "$here/gen-mlp-run.py" "$batch" "$hidden" "$layers" global > "$tmp/mlp.mlir"
python3 "$here/gen-propagation-module.py" --model mlp --layers "$big_layers" \
  -o "$tmp/mlp-10k.mlir"
python3 "$here/gen-propagation-module.py" --model mlp --layers "$run_layers" \
  -o "$tmp/mlp-1k.mlir"

now() { date +%s.%N; }
# The seconds between two `now`s.
seconds() { python3 -c "print('%.3f' % ($2 - $1))"; }
ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }
percent() { python3 -c "print('%.1f%%' % (100.0 * $1 / $2))"; }
min() { python3 -c "import sys; print(min(float(x) for x in sys.argv[1:]))" "$@"; }
# The milliseconds of `compile: X ms (...)` in --timing output.
compile_ms() { sed -n 's/^compile: \([0-9.]*\) ms.*/\1/p'; }

bench() { # <name> <file.mlir> <what: all|static|run> <repeats> [run options]
  local name="$1" file="$2" what="$3" repeats="$4"
  shift 4
  local options=("$@")
  local tsx="$tmp/$name.tsx"
  echo "== $name ($(basename "$file"), $(grep -c linalg.matmul "$file") matmuls)"
  if [ "$what" != run ]; then
    static "$name" "$file"
  else
    "$export_tool" "$file" -o "$tsx"
  fi
  if [ "$what" != static ]; then
    timed "$name" "$file" "${options[@]}"
  fi
}

static() { # <name> <file.mlir>: (a) and (c)
  local name="$1" file="$2"
  local tsx="$tmp/$name.tsx" tsx19="$tmp/$name-19.tsx"
  # (c) export time.
  local times=() times19=() t0 t1
  for _ in $(seq "$repeats"); do
    t0=$(now); "$export_tool" "$file" -o "$tsx"; t1=$(now)
    times+=("$(seconds "$t0" "$t1")")
    t0=$(now); "$export_tool" "$file" --compression-level 19 -o "$tsx19"; t1=$(now)
    times19+=("$(seconds "$t0" "$t1")")
  done
  printf '(c) export time: %s s (zstd level 3), %s s (level 19), fastest of %s\n' \
    "$(min "${times[@]}")" "$(min "${times19[@]}")" "$repeats"

  # (a) sizes.
  local text exported bytecode artifact artifact19
  text=$(wc -c < "$file")
  exported=$("$opt" "$file" --spmd-lift-inlined-meshes --tessera-propagate | wc -c)
  bytecode=$("$export_tool" inspect --json "$tsx" |
             python3 -c "import json, sys; print(json.load(sys.stdin)['sections']['bytecode'])")
  artifact=$(wc -c < "$tsx")
  artifact19=$(wc -c < "$tsx19")
  printf '(a) sizes (bytes):\n'
  printf '    %-44s %12s\n' ".mlir text (source)" "$text"
  printf '    %-44s %12s\n' "exported module as text" "$exported"
  printf '    %-44s %12s\n' "module bytecode (uncompressed)" "$bytecode"
  printf '    %-44s %12s\n' "artifact, zstd level 3" "$artifact"
  printf '    %-44s %12s\n' "artifact, zstd level 19" "$artifact19"
  printf '    artifact / .mlir text: %s (level 3), %s (level 19); artifact / exported text: %s; artifact / bytecode: %s (level 3), %s (level 19)\n' \
    "$(ratio "$artifact" "$text")" "$(ratio "$artifact19" "$text")" \
    "$(ratio "$artifact" "$exported")" \
    "$(ratio "$artifact" "$bytecode")" "$(ratio "$artifact19" "$bytecode")"
}

timed() { # <name> <file.mlir> [run options]: (b)
  local name="$1" file="$2"
  shift 2
  local tsx="$tmp/$name.tsx" t0 t1
  # (b) time to first result. The cache gets the artifact's code first.
  "$run" "$tsx" --random-inputs "$@" > /dev/null
  local cold=() warm=() cold_compile=() warm_compile=() out
  for _ in $(seq "$repeats"); do
    t0=$(now); out=$("$run" "$file" --random-inputs --no-cache --timing "$@"); t1=$(now)
    cold+=("$(seconds "$t0" "$t1")")
    cold_compile+=("$(printf '%s\n' "$out" | compile_ms)")
    t0=$(now); out=$("$run" "$tsx" --random-inputs --timing "$@"); t1=$(now)
    warm+=("$(seconds "$t0" "$t1")")
    warm_compile+=("$(printf '%s\n' "$out" | compile_ms)")
    printf '%s\n' "$out" | grep -q '(cache hit)' ||
      { echo "export-bench: the artifact's run missed the cache" >&2; exit 1; }
  done
  local c w cc wc
  c=$(min "${cold[@]}"); w=$(min "${warm[@]}")
  cc=$(min "${cold_compile[@]}"); wc=$(min "${warm_compile[@]}")
  printf '(b) time to first result (process wall time, fastest of %s%s):\n' \
    "$repeats" "${1:+, $*}"
  printf '    cold: tessera-run %s --no-cache   %8s s\n' "$(basename "$file")" "$c"
  printf '    warm: tessera-run %s (cache hit)  %8s s\n' "$(basename "$tsx")" "$w"
  printf '    warm / cold: %s\n' "$(percent "$w" "$c")"
  printf '    the compile step alone: %s ms compiling vs %s ms loading from the cache (%s)\n' \
    "$cc" "$wc" "$(percent "$wc" "$cc")"
}

bench mlp "$tmp/mlp.mlir" all "$repeats"
bench mlp-10k "$tmp/mlp-10k.mlir" static "$repeats"
if [ "$run_layers" -gt 0 ]; then
  bench mlp-1k "$tmp/mlp-1k.mlir" run 1 --opt-level=0
fi
