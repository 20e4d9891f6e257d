// Tests tessera-run --calibrate's errors: each is one line naming the
// option or the file, exit 1, and nothing is measured or written.
// RUN: not tessera-run %s --calibrate=/proc/no/such/dir/host.cal 2>&1 | FileCheck %s --check-prefix=NODIR
// RUN: rm -rf %t.dir && mkdir -p %t.dir && not tessera-run %s --calibrate=%t.dir 2>&1 | FileCheck %s --check-prefix=ISDIR
// RUN: not tessera-run %s --calibrate --calibrate-sizes=abc 2>&1 | FileCheck %s --check-prefix=SIZES
// RUN: not tessera-run %s --calibrate --calibrate-sizes=0,4K 2>&1 | FileCheck %s --check-prefix=SIZES-ZERO
// RUN: not tessera-run %s --calibrate --calibrate-sizes=4K,4096 2>&1 | FileCheck %s --check-prefix=SIZES-ONE
// RUN: not tessera-run %s --calibrate --calibrate-repeats=0 2>&1 | FileCheck %s --check-prefix=REPEATS
// RUN: not tessera-run %s --calibrate --calibrate-matmul=0 2>&1 | FileCheck %s --check-prefix=MATMUL
// RUN: not tessera-run --calibrate 2>&1 | FileCheck %s --check-prefix=NOMESH
// RUN: not tessera-run --calibrate --mesh "x=2,x=4" 2>&1 | FileCheck %s --check-prefix=MESH-TWICE
// RUN: not tessera-run --calibrate --mesh "x" 2>&1 | FileCheck %s --check-prefix=MESH-ITEM
// RUN: not tessera-run --calibrate --mesh "a-b=2" 2>&1 | FileCheck %s --check-prefix=MESH-NAME
// RUN: not tessera-run --calibrate --mesh "=2" 2>&1 | FileCheck %s --check-prefix=MESH-NONAME
// RUN: not tessera-run --calibrate --mesh "x=65536,y=2" 2>&1 | FileCheck %s --check-prefix=MESH-HUGE
// RUN: not tessera-run %s --calibrate --mesh "z=2" 2>&1 | FileCheck %s --check-prefix=MESH-AXIS
// RUN: not tessera-run %s --calibrate --backend=mpi 2>&1 | FileCheck %s --check-prefix=MPI
// RUN: not tessera-run 2>&1 | FileCheck %s --check-prefix=NOINPUT

// NODIR: tessera-run: error: cannot write calibration file '/proc/no/such/dir/host.cal': no directory '/proc/no/such/dir'
// ISDIR: tessera-run: error: cannot write calibration file '{{.*}}.dir': it is a directory
// SIZES: tessera-run: error: bad --calibrate-sizes item 'abc': expected a number of bytes from 1 to 1 TiB with an optional suffix KiB or MiB
// SIZES-ZERO: tessera-run: error: bad --calibrate-sizes item '0': expected a number of bytes
// SIZES-ONE: tessera-run: error: --calibrate-sizes needs at least two different sizes, got '4K,4096'
// REPEATS: tessera-run: error: --calibrate-repeats must be at least 1
// MATMUL: tessera-run: error: --calibrate-matmul must be from 1 to 8192, got '0'
// NOMESH: tessera-run: error: --calibrate needs a program (its mesh) or --mesh "name=size,..."
// MESH-TWICE: tessera-run: error: --mesh gives the size of axis 'x' twice
// MESH-ITEM: tessera-run: error: bad --mesh item 'x': expected name=size with size >= 1
// MESH-NAME: tessera-run: error: bad --mesh item 'a-b=2': expected name=size with size >= 1
// MESH-NONAME: tessera-run: error: bad --mesh item '=2': expected name=size with size >= 1
// MESH-HUGE: tessera-run: error: --mesh 'x=65536,y=2': the mesh has too many devices (the emulated mesh runs at most 65536, one thread each)
// MESH-AXIS: tessera-run: error: --mesh names axis 'z', which the mesh does not have (its axes are x)
// MPI: tessera-run: error: --calibrate runs on the threads backend
// NOINPUT: tessera-run: error: no input file (expected <input.mlir or artifact.tsx>, or --calibrate)

spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}
