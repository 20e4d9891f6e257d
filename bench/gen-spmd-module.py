#!/usr/bin/env python3
#===- gen-spmd-module.py - a large module for the spmd verifier benchmark -===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
#===------------------------------------------------------------------------===#
"""Writes a module of F functions with K sharded ops each, to time verification.

Every function takes a sharded `tensor<8x8xf32>` argument, returns a sharded
result and chains K ops on it, each with a sharding: elementwise arith/math
ops carrying the discardable `spmd.sharding`, with every fifth op an
`spmd.sharding_constraint` or `spmd.reshard`. The mesh `@mesh` is declared
before all functions (`--mesh first`), after them (`--mesh last`), or the
module has no mesh and no shardings at all (`--mesh none`, the same ops: the
baseline that verification of shardings is measured against).

Usage: gen-spmd-module.py [--functions F] [--ops K] [--mesh first|last|none]
                          [-o FILE]
"""

import argparse
import sys

MESH = 'spmd.mesh @mesh = <["x"=2, "y"=4]>'
# Shardings cycled through by the ops (all valid for tensor<8x8xf32>).
SHARDINGS = [
    '<@mesh, [{"x"}, {"y"}]>',
    '<@mesh, [{"y"}, {}]>',
    '<@mesh, [{"x", ?}, {?}]>',
    '<@mesh, [{}, {"x", "y"}]>',
    '<@mesh, [{"y":(1)2}, {"x"}], replicated={"y":(2)2}>',
]
ELEMENTWISE = ["arith.negf", "math.exp", "math.tanh", "arith.negf"]


def op(k, prev, sharded):
    """The k-th op of a function, applied to %{prev}."""
    sharding = SHARDINGS[k % len(SHARDINGS)]
    if k % 5 == 4:
        name = "spmd.sharding_constraint" if k % 10 == 4 else "spmd.reshard"
        if not sharded:
            return f"    %v{k} = arith.negf %{prev} : tensor<8x8xf32>"
        return f"    %v{k} = {name} %{prev} {sharding} : tensor<8x8xf32>"
    name = ELEMENTWISE[k % len(ELEMENTWISE)]
    attr = ""
    if sharded:
        attr = (" {spmd.sharding = #spmd.sharding_per_value<[" + sharding +
                "]>}")
    return f"    %v{k} = {name} %{prev}{attr} : tensor<8x8xf32>"


def function(i, ops, sharded):
    arg = ' {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}' if sharded else ""
    lines = [f"  func.func @f{i}(%arg0: tensor<8x8xf32>{arg})"
             f" -> (tensor<8x8xf32>{arg}) {{"]
    prev = "arg0"
    for k in range(ops):
        lines.append(op(k, prev, sharded))
        prev = f"v{k}"
    lines.append(f"    return %{prev} : tensor<8x8xf32>")
    lines.append("  }")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--functions", type=int, default=10000,
                        help="number of functions (default 10000)")
    parser.add_argument("--ops", type=int, default=10,
                        help="sharded ops per function (default 10)")
    parser.add_argument("--mesh", choices=["first", "last", "none"],
                        default="first",
                        help="where the mesh is declared; none: no shardings")
    parser.add_argument("-o", "--output", default="-",
                        help="output file (default stdout)")
    args = parser.parse_args()
    if args.functions < 1 or args.ops < 1:
        parser.error("--functions and --ops must be positive")
    sharded = args.mesh != "none"
    body = [function(i, args.ops, sharded) for i in range(args.functions)]
    if args.mesh == "first":
        body.insert(0, "  " + MESH)
    elif args.mesh == "last":
        body.append("  " + MESH)
    out = sys.stdout if args.output == "-" else open(args.output, "w")
    out.write("module {\n" + "\n".join(body) + "\n}\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
