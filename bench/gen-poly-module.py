#!/usr/bin/env python3
#===- gen-poly-module.py - a large module for the poly-infer benchmark ----===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
#===------------------------------------------------------------------------===#
"""Writes a polymorphic module with about N operations for `--poly-infer`.

The module has F functions. Function i takes `x: f32[b, 8]` and
`y: f32[2*b, 8]` (with the constraint `b >= 2`) and calls function i - 1 on
a shape it solves as `a = b` (a nested export); its body repeats a block of
elementwise ops, dimension arithmetic, tensor.empty, concat, a slice proved
in bounds symbolically, a linalg op and a reshape of a -1, so that every
shape rule the pass checks is exercised on every block.

Usage: gen-poly-module.py [--ops N] [--functions F] [-o FILE]
"""

import argparse
import sys

# Operations emitted per repeated block (see `block`).
OPS_PER_BLOCK = 15


def block(k, prev):
    """One block of OPS_PER_BLOCK ops on %{prev} : tensor<?x8xf32> = (b, 8).

    Returns the text and the name of the block's result.
    """
    return f"""    %a{k} = arith.addf %{prev}, %x : tensor<?x8xf32>
    %e{k} = math.exp %a{k} : tensor<?x8xf32>
    %d{k} = tensor.dim %e{k}, %c0 : tensor<?x8xf32>
    %n{k} = arith.muli %d{k}, %c2 : index
    %t{k} = tensor.empty(%n{k}) : tensor<?x8xf32>
    %cc{k} = tensor.concat dim(0) %e{k}, %y : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    %s{k} = tensor.extract_slice %cc{k}[%d{k}, 0] [%n{k}, 8] [1, 1] : tensor<?x8xf32> to tensor<?x8xf32>
    %l{k} = linalg.add ins(%s{k}, %y : tensor<?x8xf32>, tensor<?x8xf32>) outs(%t{k} : tensor<?x8xf32>) -> tensor<?x8xf32>
    %h{k} = arith.floordivsi %n{k}, %c2 : index
    %sh{k} = tensor.from_elements %h{k}, %cm1 : tensor<2xindex>
    %r{k} = tensor.reshape %l{k}(%sh{k}) : (tensor<?x8xf32>, tensor<2xindex>) -> tensor<?x?xf32>
    %cs{k} = tensor.cast %r{k} : tensor<?x?xf32> to tensor<?x16xf32>
    %q{k} = tensor.collapse_shape %cs{k} [[0, 1]] : tensor<?x16xf32> into tensor<?xf32>
    %p{k} = tensor.expand_shape %q{k} [[0, 1]] output_shape [%n{k}, 8] : tensor<?xf32> into tensor<?x8xf32>
    %o{k} = tensor.extract_slice %p{k}[0, 0] [%d{k}, 8] [1, 1] : tensor<?x8xf32> to tensor<?x8xf32>
""", f"o{k}"


def function(i, blocks):
    lines = [
        f'  func.func @f{i}(%x: tensor<?x8xf32> {{poly.shape = #poly.shape<"b, 8">}},',
        f'                 %y: tensor<?x8xf32> {{poly.shape = #poly.shape<"2*b, 8">}})',
        '      -> tensor<?x8xf32> attributes {poly.constraints = ["b >= 2"]} {',
        "    %c0 = arith.constant 0 : index",
        "    %c2 = arith.constant 2 : index",
        "    %cm1 = arith.constant -1 : index",
    ]
    prev = "x"
    if i > 0:
        lines.append(f"    %call = func.call @f{i - 1}(%x, %y) : "
                     "(tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>")
        prev = "call"
    for k in range(blocks):
        text, prev = block(k, prev)
        lines.append(text.rstrip("\n"))
    lines.append(f"    return %{prev} : tensor<?x8xf32>")
    lines.append("  }")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ops", type=int, default=10000,
                        help="approximate number of operations (default 10000)")
    parser.add_argument("--functions", type=int, default=50,
                        help="number of functions (default 50)")
    parser.add_argument("-o", "--output", default="-",
                        help="output file (default stdout)")
    args = parser.parse_args()
    if args.ops < 1 or args.functions < 1:
        parser.error("--ops and --functions must be positive")
    # Per function: func.func, 3 constants, a call (not in the first one)
    # and a return, around the blocks; plus the module.
    overhead = 6
    per_function = -(-args.ops // args.functions)
    blocks = max(1, -(-(per_function - overhead) // OPS_PER_BLOCK))
    text = "module {\n" + "\n".join(
        function(i, blocks) for i in range(args.functions)) + "\n}\n"
    total = args.functions * (overhead + blocks * OPS_PER_BLOCK)
    out = sys.stdout if args.output == "-" else open(args.output, "w")
    out.write(text)
    if out is not sys.stdout:
        out.close()
    print(f"gen-poly-module.py: {args.functions} functions, {blocks} blocks "
          f"each, {total} operations", file=sys.stderr)


if __name__ == "__main__":
    main()
