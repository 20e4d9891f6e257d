#!/usr/bin/env python3
#===- gen-propagation-module.py - modules for the propagation bench -------===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
#===------------------------------------------------------------------------===#
"""Generates an N-layer MLP or transformer-block module for sharding
propagation, in Tessera's form (spmd.sharding on the function arguments) or
upstream MLIR's `shard` dialect form (shard.shard annotate_for_users on the
arguments), on a 2x4 mesh "data" x "model".

MLP layer i: matmul + fill + relu (linalg.generic maximumf); weight i is
column-parallel (model on dim 1) for even i, row-parallel (model on dim 0)
for odd i. Transformer block: attention projection (column-parallel), an
elementwise exp, output projection (row-parallel), residual add, then the
same MLP pair and a second residual add. Only function arguments are
annotated; the batch of the input is on "data".
"""

import argparse
import sys

B, D, H = 64, 128, 512


def sharding(form, dims):
    """dims: one axis name or None per tensor dim."""
    if form == "tessera":
        body = ", ".join("{\"%s\"}" % a if a else "{}" for a in dims)
        return "#spmd.sharding<@mesh, [%s]>" % body
    index = {"data": 0, "model": 1}
    body = ", ".join("[%d]" % index[a] if a else "[]" for a in dims)
    return "[%s]" % body


class Gen:
    def __init__(self, form):
        self.form = form
        self.lines = []
        self.n = 0

    def val(self):
        self.n += 1
        return "%%v%d" % self.n

    def emit(self, line):
        self.lines.append("  " + line)

    def matmul(self, a, b, m, k, n):
        e, f, r = self.val(), self.val(), self.val()
        self.emit("%s = tensor.empty() : tensor<%dx%dxf32>" % (e, m, n))
        self.emit("%s = linalg.fill ins(%%zero : f32) outs(%s : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>"
                  % (f, e, m, n, m, n))
        self.emit("%s = linalg.matmul ins(%s, %s : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%s : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>"
                  % (r, a, b, m, k, k, n, f, m, n, m, n))
        return r

    def unary(self, x, m, n, body):
        e, r = self.val(), self.val()
        self.emit("%s = tensor.empty() : tensor<%dx%dxf32>" % (e, m, n))
        self.emit("%s = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\"]} "
                  "ins(%s : tensor<%dx%dxf32>) outs(%s : tensor<%dx%dxf32>) {" % (r, x, m, n, e, m, n))
        self.emit("^bb0(%in: f32, %out: f32):")
        self.emit("  %t = " + body)
        self.emit("  linalg.yield %t : f32")
        self.emit("} -> tensor<%dx%dxf32>" % (m, n))
        return r

    def relu(self, x, m, n):
        return self.unary(x, m, n, "arith.maximumf %in, %zero : f32")

    def exp(self, x, m, n):
        return self.unary(x, m, n, "math.exp %in : f32")

    def add(self, a, b, m, n):
        # linalg.add: upstream's sharding interface has no model for
        # arith ops on tensors.
        e, r = self.val(), self.val()
        self.emit("%s = tensor.empty() : tensor<%dx%dxf32>" % (e, m, n))
        self.emit("%s = linalg.add ins(%s, %s : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%s : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>"
                  % (r, a, b, m, n, m, n, e, m, n, m, n))
        return r


def generate(model, layers, form):
    g = Gen(form)
    args = [("x", (B, D), ("data", None))]
    weights = []
    if model == "mlp":
        for i in range(layers):
            shape = (D, H) if i % 2 == 0 else (H, D)
            dims = (None, "model") if i % 2 == 0 else ("model", None)
            weights.append(("w%d" % i, shape, dims))
    else:
        for i in range(layers):
            weights += [("wq%d" % i, (D, H), (None, "model")),
                        ("wo%d" % i, (H, D), ("model", None)),
                        ("w1%d" % i, (D, H), (None, "model")),
                        ("w2%d" % i, (H, D), ("model", None))]
    args += weights
    out = []
    if form == "tessera":
        out.append('spmd.mesh @mesh = <["data"=2, "model"=4]>')
    else:
        out.append("shard.grid @mesh(shape = 2x4)")
    out.append("#id = affine_map<(d0, d1) -> (d0, d1)>")
    sig = []
    for name, shape, dims in args:
        t = "tensor<%dx%dxf32>" % shape
        if form == "tessera":
            sig.append("%%%s: %s {spmd.sharding = %s}" % (name, t, sharding(form, dims)))
        else:
            sig.append("%%%s: %s" % (name, t))
    out.append("func.func @main(%s) -> tensor<%dx%dxf32> {" % (", ".join(sig), B, D))
    names = {}
    for name, shape, dims in args:
        if form == "tessera":
            names[name] = "%" + name
        else:
            s, a = "%%s_%s" % name, "%%a_%s" % name
            g.emit("%s = shard.sharding @mesh split_axes = %s : !shard.sharding" % (s, sharding(form, dims)))
            g.emit("%s = shard.shard %%%s to %s annotate_for_users : tensor<%dx%dxf32>" % (a, name, s, shape[0], shape[1]))
            names[name] = a
    g.emit("%zero = arith.constant 0.0 : f32")
    x = names["x"]
    for i in range(layers):
        if model == "mlp":
            if i % 2 == 0:
                x = g.relu(g.matmul(x, names["w%d" % i], B, D, H), B, H)
            else:
                x = g.relu(g.matmul(x, names["w%d" % i], B, H, D), B, D)
        else:
            q = g.exp(g.matmul(x, names["wq%d" % i], B, D, H), B, H)
            r = g.add(x, g.matmul(q, names["wo%d" % i], B, H, D), B, D)
            h = g.relu(g.matmul(r, names["w1%d" % i], B, D, H), B, H)
            x = g.add(r, g.matmul(h, names["w2%d" % i], B, H, D), B, D)
    out += g.lines
    out.append("  return %s : tensor<%dx%dxf32>" % (x, B, D))
    out.append("}")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", choices=["mlp", "transformer"], default="mlp")
    p.add_argument("--layers", type=int, default=10)
    p.add_argument("--form", choices=["tessera", "upstream"], default="tessera")
    p.add_argument("-o", "--output", default="-")
    a = p.parse_args()
    if a.model == "mlp" and a.layers % 2:
        sys.exit("gen-propagation-module.py: --layers must be even for the MLP")
    text = generate(a.model, a.layers, a.form)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
