// Bad inputs: each is a clear error and exit code 1, never a crash.
// RUN: python3 %S/../Inputs/npy.py iota 2x3 i32 %t.i32.npy
// RUN: python3 %S/../Inputs/npy.py iota 3x2 f32 %t.f32.npy
// RUN: python3 %S/../Inputs/npy.py raw '<f4' 2x3 %t.short.npy 20
// RUN: python3 %S/../Inputs/npy.py raw '<c8' 2x3 %t.complex.npy 48
// RUN: python3 %S/../Inputs/npy.py header-only %t.header.npy
// RUN: printf 'not a numpy file' > %t.text.npy
// RUN: not tessera-run %s --input 0=%t.i32.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not tessera-run %s --input a=%t.f32.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not tessera-run %s --input 0=%t.short.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not tessera-run %s --input 0=%t.complex.npy 2>&1 | FileCheck %s --check-prefix=COMPLEX
// RUN: not tessera-run %s --input 0=%t.header.npy 2>&1 | FileCheck %s --check-prefix=HEADER
// RUN: not tessera-run %s --input 0=%t.text.npy 2>&1 | FileCheck %s --check-prefix=MAGIC
// RUN: not tessera-run %s --input 0=%t.missing.npy 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not tessera-run %s 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not tessera-run %s --input b=%t.f32.npy 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not tessera-run %s --input 0 2>&1 | FileCheck %s --check-prefix=SYNTAX

// DTYPE: tessera-run: error: {{.*}}.i32.npy: dtype i32 does not match argument 0 of type tensor<2x3xf32> (f32)
// SHAPE: tessera-run: error: {{.*}}.f32.npy: shape (3, 2) does not match argument 0 of type tensor<2x3xf32>
// SHORT: tessera-run: error: {{.*}}.short.npy: has 20 bytes of data, expected 24 for f32 of shape (2, 3)
// COMPLEX: tessera-run: error: {{.*}}.complex.npy: unsupported dtype '<c8'
// HEADER: tessera-run: error: {{.*}}.header.npy: truncated .npy header
// MAGIC: tessera-run: error: {{.*}}.text.npy: not a .npy file (bad magic string)
// NOFILE: tessera-run: error: {{.*}}.missing.npy: cannot open file
// MISSING: tessera-run: error: missing input for argument 0 (%a) of type tensor<2x3xf32>: give --input 0=file.npy or --random-inputs
// NAME: tessera-run: error: --input names argument 'b', which the entry does not have (arguments: 0 (%a))
// SYNTAX: tessera-run: error: bad --input '0': expected NAME_OR_INDEX=path.npy
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %a : tensor<2x3xf32>
}
