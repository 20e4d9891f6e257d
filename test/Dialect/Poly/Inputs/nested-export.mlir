// A function exported for every batch size b, and a caller whose argument
// has 2*c rows: the call solves b = 2*c.
func.func @double(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, _">})
    -> tensor<?x4xf32> {
  %0 = math.tanh %x : tensor<?x4xf32>
  %1 = tensor.concat dim(0) %0, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

func.func @caller(%y: tensor<?x4xf32> {poly.shape = #poly.shape<"2*c, 4">})
    -> tensor<?x2xf32> {
  %0 = func.call @double(%y) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %shape = arith.constant dense<[-1, 2]> : tensor<2xindex>
  %1 = tensor.reshape %0(%shape) : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x2xf32>
  return %1 : tensor<?x2xf32>
}
