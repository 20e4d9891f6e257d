#!/usr/bin/env bash
# Runs Tessera's main example: the two-layer MLP with data and tensor
# parallelism, compiled and run on an emulated 4x2 mesh and checked against
# a single-device run (tessera-run --check --show-sharding --stats); then
# the explicit-mode MLP run and checked the same way and typed (`jax.typeof`
# of every value with `tessera-opt --spmd-print-types`), and a
# shape-polymorphic function: its symbolic types and its specialization.
set -euo pipefail
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
OPT="$BUILD/bin/tessera-opt"
RUN="$BUILD/bin/tessera-run"
EXAMPLE="$HERE/mlp.mlir"

echo "== examples/run/mlp.mlir on the emulated 4x2 mesh"
echo "   (tessera-run --random-inputs --check --show-sharding --stats)"
"$RUN" "$HERE/run/mlp.mlir" --random-inputs --seed 0 --check --show-sharding --stats
echo

echo "== examples/mlp.mlir: the explicit-mode MLP, typed by spmd-infer-explicit"
echo "   and run on the emulated 4x2 mesh (tessera-run --random-inputs --check)"
"$RUN" "$EXAMPLE" --random-inputs --seed 0 --check

# Prints the JAX-style type of every value of <file> as a table: runs
# `tessera-opt <passes> --spmd-print-types`, whose remarks read
# `<file>:<line>:<col>: remark: <type>` (followed by the source line and a
# caret line); keeps the remark lines and shows the location, the type and
# the start of the op (`%x = dialect.op`) taken from the file itself.
print_types() {
  local file="$1"; shift
  local name; name=$(basename "$file")
  local remarks
  if ! remarks=$("$OPT" "$@" --spmd-print-types "$file" -o /dev/null 2>&1); then
    printf '%s\n' "$remarks" >&2
    exit 1
  fi
  printf '%s\n' "$remarks" | awk -v src="$file" -v name="$name" '
    BEGIN {
      n = 0
      while ((getline line < src) > 0)
        lines[++n] = line
      close(src)
      printf "  %-19s %-26s %s\n", "location", "type", "op"
      printf "  %-19s %-26s %s\n", "--------", "----", "--"
    }
    match($0, /:[0-9]+:[0-9]+: remark: /) {
      split(substr($0, RSTART + 1, RLENGTH - 1), pos, ":")
      type = substr($0, RSTART + RLENGTH)
      op = lines[pos[1] + 0]
      sub(/^[ \t]+/, "", op)
      if (match(op, /^(%[^ ]+ = )?[a-z_]+\.[a-z_.]+/))
        op = substr(op, RSTART, RLENGTH)
      printf "  %-19s %-26s %s\n", name ":" pos[1] ":" pos[2], type, op
      count++
    }
    END {
      if (count == 0) {
        print "tessera: no types were printed" > "/dev/stderr"
        exit 1
      }
    }'
}

echo
echo "== examples/mlp.mlir: JAX-style types (tessera-opt --spmd-print-types)"
print_types "$EXAMPLE"

POLY="$HERE/poly/batched.mlir"
echo
echo "== examples/poly/batched.mlir: exported for every batch size b"
echo "   (tessera-opt --poly-infer --spmd-print-types)"
print_types "$POLY" --poly-infer

echo
echo "== examples/poly/batched.mlir specialized to b=4, d=3 (--poly-specialize)"
"$OPT" "--poly-specialize=bindings=b=4,d=3" "$POLY"
