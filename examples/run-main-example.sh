#!/usr/bin/env bash
# Runs Tessera's main example: parses and verifies the sharded MLP, prints
# it back in canonical form, then shows the JAX-style type of every value
# (`jax.typeof`) as computed by `tessera-opt --spmd-print-types`.
set -euo pipefail
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
OPT="$BUILD/bin/tessera-opt"
EXAMPLE="$HERE/mlp.mlir"

echo "== examples/mlp.mlir: parsed and verified global-view program"
"$OPT" "$EXAMPLE"

echo
echo "== examples/mlp.mlir: JAX-style types (tessera-opt --spmd-print-types)"
# Each remark reads `<file>:<line>:<col>: remark: <type>`, followed by the
# source line and a caret line; keep only the remark lines, and show the
# location, the type and the start of the op (`%x = dialect.op`) taken from
# the example itself.
if ! remarks=$("$OPT" --spmd-print-types "$EXAMPLE" -o /dev/null 2>&1); then
  printf '%s\n' "$remarks" >&2
  exit 1
fi
printf '%s\n' "$remarks" | awk -v src="$EXAMPLE" '
  BEGIN {
    n = 0
    while ((getline line < src) > 0)
      lines[++n] = line
    close(src)
    printf "  %-15s %-26s %s\n", "location", "type", "op"
    printf "  %-15s %-26s %s\n", "--------", "----", "--"
  }
  match($0, /:[0-9]+:[0-9]+: remark: /) {
    split(substr($0, RSTART + 1, RLENGTH - 1), pos, ":")
    type = substr($0, RSTART + RLENGTH)
    op = lines[pos[1] + 0]
    sub(/^[ \t]+/, "", op)
    if (match(op, /^(%[^ ]+ = )?[a-z_]+\.[a-z_.]+/))
      op = substr(op, RSTART, RLENGTH)
    printf "  %-15s %-26s %s\n", "mlp.mlir:" pos[1] ":" pos[2], type, op
    count++
  }
  END {
    if (count == 0) {
      print "tessera: no types were printed" > "/dev/stderr"
      exit 1
    }
  }'
