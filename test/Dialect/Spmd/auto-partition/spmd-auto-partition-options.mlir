// Tests the errors of bad options: each is reported on the module and the
// pass fails.
// RUN: not tessera-opt %s --spmd-auto-partition="memory-limit=lots" 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not tessera-opt %s --spmd-auto-partition="machine=v9" 2>&1 | FileCheck %s --check-prefix=MACHINE
// RUN: not tessera-opt %s --spmd-auto-partition="calibration=%t.missing" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: printf 'tessera-calibration 1\nmatmul_gflops fast\n' > %t.bad
// RUN: not tessera-opt %s --spmd-auto-partition="calibration=%t.bad" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tessera-opt %s --spmd-auto-partition="mesh=other" 2>&1 | FileCheck %s --check-prefix=MESH
// LIMIT: error: invalid memory-limit 'lots': expected a number of bytes with an optional suffix KiB, MiB, GiB, KB, MB or GB
// MACHINE: error: unknown machine 'v9'; expected one of cpu, v4, v5e, v5p, v6e
// MISSING: error: cannot read calibration file '{{.*}}.missing': {{.*}}
// BAD: error: invalid calibration file '{{.*}}.bad': line 2: expected 'matmul_gflops <positive number>'
// MESH: error: no mesh named 'other'

spmd.mesh @mesh = <["x"=2]>
func.func @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  return %x : tensor<8x8xf32>
}
