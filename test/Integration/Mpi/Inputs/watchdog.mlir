// Processes that wait in different collectives (for errors.test): the
// devices with x = 0 (rank 0 of 2) sum over "x", the others over both axes.
spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%a: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x", "y"}, {}]>]
      out_shardings=[<@mesh, [{"x", "y"}, {}]>] manual_axes={"x", "y"} (%l: tensor<1x2xf32>) {
    %i = comm.axis_index over @mesh {"x"} : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %c0 : index
    %r = scf.if %first -> tensor<1x2xf32> {
      %s = comm.all_reduce sum %l over @mesh {"x"} : tensor<1x2xf32>
      scf.yield %s : tensor<1x2xf32>
    } else {
      %s = comm.all_reduce sum %l over @mesh {"x", "y"} : tensor<1x2xf32>
      scf.yield %s : tensor<1x2xf32>
    }
    spmd.return %r : tensor<1x2xf32>
  } : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
