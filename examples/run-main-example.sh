#!/usr/bin/env bash
# Runs Tessera's main example: parses and verifies the sharded MLP, prints
# it back in canonical form.
set -euo pipefail
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
OPT="$BUILD/bin/tessera-opt"

echo "== examples/mlp.mlir: parsed and verified global-view program"
"$OPT" "$HERE/mlp.mlir"
