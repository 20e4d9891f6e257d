"""Prints a function whose poly.constraints are the chain
v1 >= v0 + 1, ..., vN >= v(N-1) + 1 (N from the command line), with a slice
whose bound check needs the whole chain (vN >= v0)."""
import sys

n = int(sys.argv[1])
# JAX wants every constrained variable in some argument's shape.
all_vars = ", ".join("v%d" % i for i in range(n + 1))
all_type = "tensor<" + "?x" * (n + 1) + "f32>"
constraints = ", ".join('"v%d >= v%d + 1"' % (i, i - 1) for i in range(1, n + 1))
print('''func.func @chain(%%x: tensor<?xf32> {poly.shape = #poly.shape<"v%d">},
                  %%y: tensor<?xf32> {poly.shape = #poly.shape<"v0">},
                  %%z: %s {poly.shape = #poly.shape<"%s">}) -> tensor<?xf32>
    attributes {poly.constraints = [%s]} {
  %%c0 = arith.constant 0 : index
  %%d = tensor.dim %%y, %%c0 : tensor<?xf32>
  %%s = tensor.extract_slice %%x[0] [%%d] [1] : tensor<?xf32> to tensor<?xf32>
  %%r = arith.addf %%s, %%y : tensor<?xf32>
  return %%r : tensor<?xf32>
}''' % (n, all_type, all_vars, constraints))
