#!/bin/bash
#===- make-artifact-corpus.sh - seeds of the artifact reader's fuzz target -===#
#
# Usage: utils/fuzz/make-artifact-corpus.sh <build-dir>
#
# Exports a few programs with the build's tessera-export and writes the
# seeds of tessera-artifact-fuzzer to fuzz/corpus/artifact: each artifact
# as the fuzzer's file mode (a 0x00 byte, then the file) and its sections as
# the packing mode (a 0x01 byte, the metadata JSON, a 0x00 byte, the module
# bytecode). Files are named by the SHA-1 of their content, so re-running the
# script only adds files.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
build=${1:?usage: make-artifact-corpus.sh <build-dir>}
src=$(cd "$(dirname "$0")/../.." && pwd)
out="$src/fuzz/corpus/artifact"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
programs=(examples/poly/batched.mlir examples/run/mlp.mlir
          examples/run/explicit.mlir test/Integration/Kernel/add.mlir
          test/Integration/Run/manual/permute.mlir
          test/Integration/Export/Inputs/constrained.mlir)
add() { # <file>
  local name
  name=$(sha1sum "$1" | cut -d' ' -f1)
  [ -e "$out/$name" ] || cp "$1" "$out/$name"
}
for p in "${programs[@]}"; do
  base=$(basename "$p" .mlir)
  "$build/bin/tessera-export" "$src/$p" -o "$tmp/$base.tsx"
  "$build/bin/tessera-artifact-edit" "$tmp/$base.tsx" -o /dev/null \
    --dump-sections "$tmp/$base"
  { printf '\0'; cat "$tmp/$base.tsx"; } > "$tmp/$base.file"
  { printf '\1'; cat "$tmp/$base.json"; printf '\0'; cat "$tmp/$base.mlirbc"; } \
    > "$tmp/$base.pack"
  add "$tmp/$base.file"
  add "$tmp/$base.pack"
done
