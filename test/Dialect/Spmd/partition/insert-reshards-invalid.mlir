// RUN: tessera-opt %s --spmd-insert-reshards --split-input-file --verify-diagnostics

// A program runs on one set of devices: all non-maximal meshes have as
// many devices (as Shardy requires; a maximal mesh names one of them).
// expected-note @+1 {{mesh declared here}}
spmd.mesh @a = <["x"=2]>
// expected-error @+1 {{'spmd.mesh' op has 4 devices but mesh @a has 2; all non-maximal meshes of a module must have the same number of devices}}
spmd.mesh @b = <["x"=4]>
spmd.mesh @one = <[], device_ids=[1]>

func.func @two_meshes(
    %x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@a, [{"x"}]>},
    %y: tensor<8xf32> {spmd.sharding = #spmd.sharding<@b, [{"x"}]>}) -> tensor<8xf32> {
  %0 = arith.addf %x, %y : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>

// Tests that a region op whose results no region forwards (an scf.forall
// builds them with parallel inserts) is rejected when its tensors are
// sharded. (Ops whose results are forwarded, such as scf.execute_region,
// are data flow: see insert-reshards-control-flow.mlir.)
func.func @forall(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{'scf.forall' op carries sharded tensors through its regions, which spmd-insert-reshards does not support}}
  %0 = scf.forall (%i) in (8) shared_outs(%o = %x) -> tensor<8xf32> {
    %s = tensor.extract_slice %o[%i] [1] [1] : tensor<8xf32> to tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%i] [1] [1] : tensor<1xf32> into tensor<8xf32>
    }
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>}
  return %0 : tensor<8xf32>
}

// -----

// Inlined meshes are checked where an op meets them.
spmd.mesh @a = <["x"=2]>

func.func @inlined_mesh_of_other_count(
    %x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@a, [{"x"}]>},
    %y: tensor<8xf32> {spmd.sharding = #spmd.sharding<mesh<["q"=4]>, [{"q"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{'arith.addf' op has operands or results on meshes of 2 and 4 devices; all non-maximal meshes of a module must have the same number of devices}}
  %0 = arith.addf %x, %y : tensor<8xf32>
  return %0 : tensor<8xf32>
}
