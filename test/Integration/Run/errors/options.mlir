// Tests that tessera-run's options are validated before anything runs: each
// bad value or combination is one error naming the option, and exit 1.
// RUN: not tessera-run %s --random-inputs --mesh x=2,x=4 2>&1 | FileCheck %s --check-prefix=MESH-TWICE
// RUN: not tessera-run %s --random-inputs --mesh ,,, 2>&1 | FileCheck %s --check-prefix=MESH-EMPTY
// RUN: not tessera-run %s --random-inputs --mesh x=4294967296 2>&1 | FileCheck %s --check-prefix=MESH-HUGE
// RUN: python3 %S/../Inputs/npy.py iota 8 f32 %t.a.npy
// RUN: not tessera-run %s --input 0=%t.a.npy --input a=%t.a.npy 2>&1 | FileCheck %s --check-prefix=INPUT-TWICE
// RUN: not tessera-run %s --random-inputs --input-shape 0=8 2>&1 | FileCheck %s --check-prefix=SHAPE-STATIC
// RUN: not tessera-run %s --entry dynamic --random-inputs --input-shape 0=4 --input-shape 0=5 2>&1 | FileCheck %s --check-prefix=SHAPE-TWICE
// RUN: not tessera-run %s --entry dynamic --input 0=%t.a.npy --input-shape 0=4 2>&1 | FileCheck %s --check-prefix=SHAPE-AND-FILE
// RUN: not tessera-run %s --random-inputs --check --rtol nan 2>&1 | FileCheck %s --check-prefix=RTOL-NAN
// RUN: not tessera-run %s --random-inputs --check --rtol -1 2>&1 | FileCheck %s --check-prefix=RTOL-NEG
// RUN: not tessera-run %s --random-inputs --check --atol inf 2>&1 | FileCheck %s --check-prefix=ATOL-INF
// RUN: not tessera-run %s --random-inputs --watchdog-seconds nan 2>&1 | FileCheck %s --check-prefix=WATCHDOG
// RUN: not tessera-run %s --random-inputs --kernel-mode=fast 2>&1 | FileCheck %s --check-prefix=KERNEL-MODE
// RUN: not tessera-run %s --emit=mlir --check 2>&1 | FileCheck %s --check-prefix=EMIT-CHECK
// RUN: not tessera-run %s --emit=llvm --output-dir %t.out 2>&1 | FileCheck %s --check-prefix=EMIT-OUT
// RUN: not tessera-run %s --emit=obj --trace %t.json -o %t.o 2>&1 | FileCheck %s --check-prefix=EMIT-TRACE
// RUN: not tessera-run %s --random-inputs --save-inputs /proc/no/such/dir 2>&1 | FileCheck %s --check-prefix=SAVE
// RUN: rm -rf %t.ro && mkdir -p %t.ro/result1.npy && not tessera-run %s --random-inputs --output-dir %t.ro 2>&1 | FileCheck %s --check-prefix=OUTDIR
// RUN: not ls %t.ro/result0.npy

// MESH-TWICE: tessera-run: error: --mesh gives the size of axis 'x' twice
// MESH-EMPTY: tessera-run: error: bad --mesh ',,,': an empty item (expected name=size,...)
// MESH-HUGE: tessera-run: error: --mesh 'x=4294967296': the mesh has too many devices
// INPUT-TWICE: tessera-run: error: --input gives argument 0 (%a) twice
// SHAPE-STATIC: tessera-run: error: --input-shape gives the shape of argument 0 (%a), whose type tensor<8xf32> is static
// SHAPE-TWICE: tessera-run: error: --input-shape gives the shape of argument 0 (%d) twice
// SHAPE-AND-FILE: tessera-run: error: --input-shape gives the shape of argument 0 (%d), which --input reads from
// RTOL-NAN: tessera-run: error: --rtol must be a finite number >= 0, got 'nan'
// RTOL-NEG: tessera-run: error: --rtol must be a finite number >= 0, got '-1'
// ATOL-INF: tessera-run: error: --atol must be a finite number >= 0, got 'inf'
// WATCHDOG: tessera-run: error: --watchdog-seconds must be a finite number >= 0, got 'nan'
// KERNEL-MODE: tessera-run: error: --kernel-mode must be pipelined or interpret, got 'fast'
// EMIT-CHECK: tessera-run: error: --check applies to a run, not to --emit=mlir
// EMIT-OUT: tessera-run: error: --output-dir applies to a run, not to --emit=llvm
// EMIT-TRACE: tessera-run: error: --trace applies to a run, not to --emit=obj
// SAVE: tessera-run: error: --save-inputs: cannot create the directory '/proc/no/such/dir'
// Every result file is created before any is written: result1.npy is a
// directory, so nothing is written.
// OUTDIR: tessera-run: error: --output-dir: cannot create '{{.*}}result1.npy': it is a directory
spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  return %a, %a : tensor<8xf32>, tensor<8xf32>
}
func.func @dynamic(%d: tensor<?xf32>) -> tensor<?xf32> {
  return %d : tensor<?xf32>
}
