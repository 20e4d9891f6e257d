#!/usr/bin/env bash
#===- run.sh - run every Tessera benchmark ---------------------------------===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
# Usage: bench/run.sh [<build-dir>]   (default: build)
#
# Builds nothing: runs every executable <build-dir>/bin/*Bench (Google
# Benchmark binaries) and prints their tables, then every bench/*-bench.sh
# script (e.g. poly-infer on generated 1k/10k/100k-op modules). `make bench`
# builds first and then calls `./bench/run.sh build`.
#
#===------------------------------------------------------------------------===#

set -euo pipefail

build="${1:-build}"
bin="$build/bin"
if [ ! -d "$bin" ]; then
  echo "bench/run.sh: no directory '$bin' (build first, e.g. 'make bench')" >&2
  exit 1
fi

shopt -s nullglob
benches=("$bin"/*Bench)
if [ ${#benches[@]} -eq 0 ]; then
  echo "bench/run.sh: no *Bench binaries in '$bin'" >&2
  exit 1
fi

status=0
for b in "${benches[@]}"; do
  [ -x "$b" ] || continue
  echo "=== $(basename "$b")"
  "$b" --benchmark_counters_tabular=true || status=1
  echo
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for script in "$here"/*-bench.sh "$here"/matmul/run.sh; do
  echo "=== $(basename "$script")"
  "$script" "$build" || status=1
  echo
done
exit $status
