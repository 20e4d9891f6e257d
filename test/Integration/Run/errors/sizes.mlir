// Tests that sizes are checked with overflow-safe arithmetic before anything
// is allocated: a generated input larger than the host's memory, one whose
// byte count overflows, and an intermediate tensor the devices cannot
// allocate are each one error, never an abort or a corrupted heap.
// RUN: not tessera-run %s --entry dynamic --random-inputs --input-shape 0=1000000x1000000 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not tessera-run %s --entry dynamic --random-inputs --input-shape 0=4294967296x4294967296 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not tessera-run %s --entry dynamic --random-inputs --input-shape 0=4294967296x4294967297 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not tessera-run %s --entry big_type --random-inputs 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not tessera-run %s --entry intermediate --random-inputs 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not tessera-run %s --entry intermediate --random-inputs --mesh x=1073741824 2>&1 | FileCheck %s --check-prefix=MESH
// RUN: not tessera-run %s --entry intermediate --emit=mlir --mesh x=65537 2>&1 | FileCheck %s --check-prefix=MESH-EMIT

// HUGE: tessera-run: error: argument 0 (%d): an array of shape (1000000, 1000000) and dtype f32 needs 3.64 TiB, more than the {{.*}} of memory of this host
// OVERFLOW: tessera-run: error: argument 0 (%d): an array of shape ({{[0-9]+}}, {{[0-9]+}}) and dtype f32 overflows a 64-bit byte count
// TYPE: tessera-run: error: argument 0 (%t): an array of shape (100000, 1000000) and dtype f32 needs 373 GiB, more than the
// DEVICE: tessera-run: error: the program failed on the emulated mesh: device {{[01]}}: tessera_rt_{{(aligned_)?}}alloc: out of memory allocating {{[0-9]+}} bytes
// A mesh the parser accepts but the emulator cannot run is refused before
// anything is compiled.
// MESH: tessera-run: error: the mesh x=1073741824 has 1073741824 devices; the emulated mesh runs at most 65536 (one thread each)
// MESH-EMIT: tessera-run: error: the mesh x=65537 has 65537 devices; the emulated mesh runs at most 65536
spmd.mesh @mesh = <["x"=2]>
func.func @dynamic(%d: tensor<?x?xf32>) -> tensor<?x?xf32> {
  return %d : tensor<?x?xf32>
}
func.func @big_type(%t: tensor<100000x1000000xf32>) -> tensor<100000x1000000xf32> {
  return %t : tensor<100000x1000000xf32>
}
// Each device fills a 1024 x 1024 x 1024 x 1024 f32 tensor (4 TiB) and
// returns one element of it.
func.func @intermediate(%a: tensor<2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<2xf32> {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1024x1024x1024x1024xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<1024x1024x1024x1024xf32>) -> tensor<1024x1024x1024x1024xf32>
  %s = tensor.extract_slice %f[0, 0, 0, 0] [1, 1, 1, 2] [1, 1, 1, 1] : tensor<1024x1024x1024x1024xf32> to tensor<2xf32>
  %r = arith.addf %s, %a : tensor<2xf32>
  return %r : tensor<2xf32>
}
// An intermediate tensor whose byte count overflows 64 bits is an error at
// its op before anything is compiled, not a wrapped allocation.
// RUN: not tessera-run %s --entry wrapping --random-inputs 2>&1 | FileCheck %s --check-prefix=WRAP
// WRAP: sizes.mlir:[[@LINE+3]]:8: error: a value of type 'tensor<4611686018427387904x4xf32>' has more bytes than a 64-bit count holds; tessera-run cannot allocate it
func.func @wrapping(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4611686018427387904x4xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32>
  %s = tensor.extract_slice %f[0, 0] [1, 4] [1, 1] : tensor<4611686018427387904x4xf32> to tensor<4xf32>
  %r = arith.addf %s, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}
