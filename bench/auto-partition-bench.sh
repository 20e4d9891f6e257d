#!/usr/bin/env bash
#===- auto-partition-bench.sh - spmd-auto-partition's plans vs baselines ---===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
# Usage: bench/auto-partition-bench.sh [build] [repeat] [auto-options]
#        (defaults: build 10 "")
#
# Programs without annotations on a 2x4 mesh ("data" x "model", Auto axes),
# each run with `tessera-run --repeat N --timing` three ways:
#
#   auto        `--auto` (spmd-auto-partition's plan, with `auto-options`,
#               e.g. "calibration=host.cal"), also run with `--check`;
#   dp          pure data parallelism along the largest axis ("model"): the
#               batch dimension of the batch inputs on "model", every other
#               argument replicated (the report's data-parallel baseline);
#   replicated  every argument replicated (every device computes
#               everything: the report's replicated baseline).
#
# The baselines' annotations are written here, on the same programs. Prints
# per program the three median run times, auto / min(dp, replicated) and the
# automatic plan's collectives. `--check` compares with `--atol 0.1`: the
# programs sum up to 4096 products, their values reach 1e4, and a
# partitioned program adds in another order. A run of the emulated mesh
# costs a few milliseconds whatever it computes (eight threads on the
# host's cores), so programs below about 5 ms compare noise.
#
#===------------------------------------------------------------------------===#

set -euo pipefail
build="${1:-build}"
repeat="${2:-10}"
auto_options="${3:-}"
run="$build/bin/tessera-run"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Writes <name>.{auto,dp,replicated}.mlir for every program into $tmp and
# lists the names.
python3 - "$tmp" <<'PY'
import sys

out = sys.argv[1]
MESH = 'spmd.mesh @mesh = <["data"=2, "model"=4]>'
ID2 = "#id2 = affine_map<(d0, d1) -> (d0, d1)>"


def t(shape, elem="f32"):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), elem)


class Prog:
    """args: (name, shape, batch) with batch True for a batch input."""

    def __init__(self, name):
        self.name = name
        self.args = []
        self.body = []
        self.n = 0
        self.maps = set()

    def arg(self, name, shape, batch=False):
        self.args.append((name, shape, batch))
        return "%" + name

    def v(self):
        self.n += 1
        return "%%v%d" % self.n

    def emit(self, line):
        self.body.append("  " + line)

    def zeros(self, shape):
        e, f = self.v(), self.v()
        self.emit("%s = tensor.empty() : %s" % (e, t(shape)))
        self.emit("%s = linalg.fill ins(%%zero : f32) outs(%s : %s) -> %s"
                  % (f, e, t(shape), t(shape)))
        return f

    def matmul(self, a, b, m, k, n):
        f, r = self.zeros((m, n)), self.v()
        self.emit("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                  % (r, a, b, t((m, k)), t((k, n)), f, t((m, n)), t((m, n))))
        return r

    def generic(self, ins, out_shape, maps, iters, body, init=None):
        """ins: (value, shape); maps: affine map strings (ins, then out)."""
        o = init or self.zeros(out_shape)
        r = self.v()
        names = ["%%in%d" % i for i in range(len(ins))]
        self.emit("%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} "
                  "ins(%s : %s) outs(%s : %s) {"
                  % (r, ", ".join(maps), ", ".join('"%s"' % i for i in iters),
                     ", ".join(v for v, _ in ins),
                     ", ".join(t(s) for _, s in ins), o, t(out_shape)))
        self.emit("^bb0(%s, %%acc: f32):" % ", ".join(n + ": f32" for n in names))
        for line in body:
            self.emit("  " + line)
        self.emit("} -> %s" % t(out_shape))
        return r

    def unary(self, x, shape, op):
        rank = len(shape)
        m = "affine_map<(%s) -> (%s)>" % (
            ", ".join("d%d" % i for i in range(rank)),
            ", ".join("d%d" % i for i in range(rank)))
        return self.generic([(x, shape)], shape, [m, m], ["parallel"] * rank,
                            ["%%y = %s" % op, "linalg.yield %y : f32"])

    def relu(self, x, shape):
        return self.unary(x, shape, "arith.maximumf %in0, %zero : f32")

    def exp(self, x, shape):
        return self.unary(x, shape, "math.exp %in0 : f32")

    def tanh(self, x, shape):
        return self.unary(x, shape, "math.tanh %in0 : f32")

    def add(self, a, b, shape):
        e, r = self.v(), self.v()
        self.emit("%s = tensor.empty() : %s" % (e, t(shape)))
        self.emit("%s = linalg.add ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                  % (r, a, b, t(shape), t(shape), e, t(shape), t(shape)))
        return r

    def text(self, mode, result, result_shape):
        sig = []
        for name, shape, batch in self.args:
            attr = ""
            if mode != "auto":
                dims = ['{"model"}' if (mode == "dp" and batch and d == 0)
                        else "{}" for d in range(len(shape))]
                attr = " {spmd.sharding = #spmd.sharding<@mesh, [%s]>}" % ", ".join(dims)
            sig.append("%%%s: %s%s" % (name, t(shape), attr))
        lines = [MESH,
                 "func.func @main(%s) -> %s {" % (", ".join(sig), t(result_shape)),
                 "  %zero = arith.constant 0.0 : f32"]
        lines += self.body
        lines.append("  return %s : %s" % (result, t(result_shape)))
        lines.append("}")
        return "\n".join(lines) + "\n"


programs = []


def mlp(name, batch, dims):
    p = Prog(name)
    x = p.arg("x", (batch, dims[0]), batch=True)
    for i in range(len(dims) - 1):
        w = p.arg("w%d" % i, (dims[i], dims[i + 1]))
        x = p.relu(p.matmul(x, w, batch, dims[i], dims[i + 1]), (batch, dims[i + 1]))
    programs.append((p, x, (batch, dims[-1])))


mlp("mlp-128x2048-2l", 128, [2048, 2048, 2048])
mlp("mlp-256x512-2048", 256, [512, 2048, 512])
mlp("mlp-1024x256-4l", 1024, [256, 256, 256, 256, 256])
mlp("mlp-16x1024-4096", 16, [1024, 4096, 1024])


def attention(name, b, s, d, h):
    p = Prog(name)
    x = p.arg("x", (b, s, d), batch=True)
    proj = "affine_map<(b, s, h, d) -> (b, s, d)>", "affine_map<(b, s, h, d) -> (d, h)>", \
        "affine_map<(b, s, h, d) -> (b, s, h)>"
    mul_add = ["%m = arith.mulf %in0, %in1 : f32", "%y = arith.addf %acc, %m : f32",
               "linalg.yield %y : f32"]
    red = ["parallel", "parallel", "parallel", "reduction"]
    qkv = []
    for n in ("wq", "wk", "wv"):
        w = p.arg(n, (d, h))
        qkv.append(p.generic([(x, (b, s, d)), (w, (d, h))], (b, s, h), proj, red, mul_add))
    q, k, v = qkv
    scores = p.generic([(q, (b, s, h)), (k, (b, s, h))], (b, s, s),
                       ["affine_map<(b, i, j, c) -> (b, i, c)>",
                        "affine_map<(b, i, j, c) -> (b, j, c)>",
                        "affine_map<(b, i, j, c) -> (b, i, j)>"], red, mul_add)
    # tanh where a softmax would normalize: the values stay in f32's range
    # (an exp of unnormalized scores overflows).
    probs = p.tanh(scores, (b, s, s))
    o = p.generic([(probs, (b, s, s)), (v, (b, s, h))], (b, s, h),
                  ["affine_map<(b, i, c, j) -> (b, i, j)>",
                   "affine_map<(b, i, c, j) -> (b, j, c)>",
                   "affine_map<(b, i, c, j) -> (b, i, c)>"], red, mul_add)
    wo = p.arg("wo", (h, d))
    y = p.generic([(o, (b, s, h)), (wo, (h, d))], (b, s, d),
                  ["affine_map<(b, s, d, c) -> (b, s, c)>",
                   "affine_map<(b, s, d, c) -> (c, d)>",
                   "affine_map<(b, s, d, c) -> (b, s, d)>"], red, mul_add)
    programs.append((p, y, (b, s, d)))


attention("attention-32x64x128", 32, 64, 128, 128)


def conv(name, n, hw, c, f, k):
    # A convolution written as the contraction it is: out[n, y, x, f] =
    # sum over (ky, kx, c) of in[n, y + ky, x + kx, c] * w[ky, kx, c, f].
    p = Prog(name)
    x = p.arg("x", (n, hw, hw, c), batch=True)
    w = p.arg("w", (k, k, c, f))
    o = hw - k + 1
    f0 = p.zeros((n, o, o, f))
    r = p.v()
    p.emit("%s = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, "
           "strides = dense<1> : tensor<2xi64>} ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
           % (r, x, w, t((n, hw, hw, c)), t((k, k, c, f)), f0, t((n, o, o, f)),
              t((n, o, o, f))))
    y = p.relu(r, (n, o, o, f))
    programs.append((p, y, (n, o, o, f)))


conv("conv-32x18x18x32", 32, 18, 32, 64, 3)


def embedding(name, vocab, d, batch, h):
    # Rows of a table picked by indices the program computes (i * 7 mod
    # vocab): a gather written as a linalg.generic whose body extracts from
    # the table (tensor.gather has no CPU lowering), plus a batch input,
    # then a projection.
    p = Prog(name)
    table = p.arg("table", (vocab, d))
    x = p.arg("x", (batch, d), batch=True)
    w = p.arg("w", (d, h))
    e, ids = p.v(), p.v()
    p.emit("%s = tensor.empty() : %s" % (e, t((batch,), "index")))
    p.emit("%s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], "
           "iterator_types = [\"parallel\"]} outs(%s : %s) {" %
           (ids, e, t((batch,), "index")))
    p.emit("^bb0(%out: index):")
    p.emit("  %i = linalg.index 0 : index")
    p.emit("  %c7 = arith.constant 7 : index")
    p.emit("  %%cv = arith.constant %d : index" % vocab)
    p.emit("  %m = arith.muli %i, %c7 : index")
    p.emit("  %r = arith.remui %m, %cv : index")
    p.emit("  linalg.yield %r : index")
    p.emit("} -> %s" % t((batch,), "index"))
    ge, g = p.v(), p.v()
    p.emit("%s = tensor.empty() : %s" % (ge, t((batch, d))))
    p.emit("%s = linalg.generic {indexing_maps = [affine_map<(b, c) -> (b)>, "
           "affine_map<(b, c) -> (b, c)>], iterator_types = [\"parallel\", \"parallel\"]} "
           "ins(%s : %s) outs(%s : %s) {" % (g, ids, t((batch,), "index"), ge, t((batch, d))))
    p.emit("^bb0(%id: index, %out: f32):")
    p.emit("  %c = linalg.index 1 : index")
    p.emit("  %%row = tensor.extract %s[%%id, %%c] : %s" % (table, t((vocab, d))))
    p.emit("  linalg.yield %row : f32")
    p.emit("} -> %s" % t((batch, d)))
    s = p.add(g, x, (batch, d))
    y = p.relu(p.matmul(s, w, batch, d, h), (batch, h))
    programs.append((p, y, (batch, h)))


embedding("embedding-8192x256", 8192, 256, 2048, 512)


def reshapes(name, batch, d, heads, hd):
    # A projection split into heads (expand_shape), a per-head elementwise
    # op, merged back (collapse_shape) and projected.
    p = Prog(name)
    x = p.arg("x", (batch, d), batch=True)
    w0 = p.arg("w0", (d, heads * hd))
    w1 = p.arg("w1", (heads * hd, d))
    h = p.matmul(x, w0, batch, d, heads * hd)
    e = p.v()
    p.emit("%s = tensor.expand_shape %s [[0], [1, 2]] output_shape [%d, %d, %d] : %s into %s"
           % (e, h, batch, heads, hd, t((batch, heads * hd)), t((batch, heads, hd))))
    a = p.exp(e, (batch, heads, hd))
    c = p.v()
    p.emit("%s = tensor.collapse_shape %s [[0], [1, 2]] : %s into %s"
           % (c, a, t((batch, heads, hd)), t((batch, heads * hd))))
    y = p.matmul(c, w1, batch, heads * hd, d)
    programs.append((p, y, (batch, d)))


reshapes("reshapes-128x256-8h", 128, 256, 8, 64)


def transformer(name, layers, b, d, h):
    # bench/gen-propagation-module.py's block: attention projection, an
    # elementwise op (tanh here, exp there: exp overflows f32 at these
    # widths), output projection, residual; MLP pair, residual.
    p = Prog(name)
    x = p.arg("x", (b, d), batch=True)
    for i in range(layers):
        wq = p.arg("wq%d" % i, (d, h))
        wo = p.arg("wo%d" % i, (h, d))
        w1 = p.arg("w1%d" % i, (d, h))
        w2 = p.arg("w2%d" % i, (h, d))
        q = p.tanh(p.matmul(x, wq, b, d, h), (b, h))
        r = p.add(x, p.matmul(q, wo, b, h, d), (b, d))
        m = p.relu(p.matmul(r, w1, b, d, h), (b, h))
        x = p.add(r, p.matmul(m, w2, b, h, d), (b, d))
    programs.append((p, x, (b, d)))


transformer("transformer-256x256-2l", 2, 256, 256, 1024)
transformer("transformer-32x512-1l", 1, 32, 512, 2048)


def softmax_rows(name, batch, d):
    # exp, a row sum (a reduction), the division by it, then a projection.
    p = Prog(name)
    x = p.arg("x", (batch, d), batch=True)
    w = p.arg("w", (d, d))
    ex = p.exp(x, (batch, d))
    init = p.zeros((batch,))
    s = p.generic([(ex, (batch, d))], (batch,),
                  ["affine_map<(i, j) -> (i, j)>", "affine_map<(i, j) -> (i)>"],
                  ["parallel", "reduction"],
                  ["%y = arith.addf %acc, %in0 : f32", "linalg.yield %y : f32"],
                  init=init)
    n = p.generic([(ex, (batch, d)), (s, (batch,))], (batch, d),
                  ["affine_map<(i, j) -> (i, j)>", "affine_map<(i, j) -> (i)>",
                   "affine_map<(i, j) -> (i, j)>"], ["parallel", "parallel"],
                  ["%y = arith.divf %in0, %in1 : f32", "linalg.yield %y : f32"])
    y = p.matmul(n, w, batch, d, d)
    programs.append((p, y, (batch, d)))


softmax_rows("softmax-2048x512", 2048, 512)

for p, result, shape in programs:
    for mode in ("auto", "dp", "replicated"):
        with open("%s/%s.%s.mlir" % (out, p.name, mode), "w") as f:
            f.write(p.text(mode, result, shape))

PY

names=$(ls "$tmp"/*.auto.mlir | sed 's|.*/||; s|\.auto\.mlir$||')
median() { sed -n 's/^run: median \([0-9.]*\) ms.*/\1/p'; }
# Device 0's collective calls and the bytes it sent.
collectives() { awk '/^stats: 0 /{print $5 " / " $6 " " $7; exit}'; }

echo "spmd-auto-partition: 2x4 mesh (data=2, model=4), $repeat runs each, median ms"
[ -n "$auto_options" ] && echo "auto options: $auto_options"
printf '%-26s %10s %10s %12s %10s  %s\n' program auto dp replicated auto/best "auto: collectives / bytes (device 0)"
fail=0
for name in $names; do
  auto_out=$("$run" "$tmp/$name.auto.mlir" --auto --auto-options="$auto_options" \
    --random-inputs --repeat "$repeat" --timing --stats --check --atol 0.1 2>&1) || {
    echo "$name: the automatic plan failed:" >&2
    printf '%s\n' "$auto_out" >&2
    fail=1
    continue
  }
  auto=$(printf '%s\n' "$auto_out" | median)
  calls=$(printf '%s\n' "$auto_out" | collectives)
  dp=$("$run" "$tmp/$name.dp.mlir" --random-inputs --repeat "$repeat" --timing | median)
  rep=$("$run" "$tmp/$name.replicated.mlir" --random-inputs --repeat "$repeat" --timing | median)
  ratio=$(python3 -c "print('%.2f' % ($auto / min($dp, $rep)))")
  printf '%-26s %10s %10s %12s %10s  %s\n' "$name" "$auto" "$dp" "$rep" "$ratio" "$calls"
done
exit $fail
