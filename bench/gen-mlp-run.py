#!/usr/bin/env python3
"""Generates the MLP programs of bench/mlp-bench.sh.

  gen-mlp-run.py BATCH HIDDEN LAYERS single|global|shard_map

Layer l computes tanh(x @ w_l). `single` is the global-view program;
`global` the same program on a 4x2 mesh ("data" x "model") with only the
arguments annotated: x sharded over "data", weights of even layers
column-parallel and of odd layers row-parallel over "model" (propagation
and the partitioner derive everything else); `shard_map` the per-device
program written by hand as a manual computation, with a psum over "model"
after each row-parallel layer.
"""
import sys


def main():
    batch, hidden, layers, kind = (int(sys.argv[1]), int(sys.argv[2]),
                                   int(sys.argv[3]), sys.argv[4])
    act = "tensor<%dx%dxf32>" % (batch, hidden)
    wt = "tensor<%dx%dxf32>" % (hidden, hidden)
    args = ", ".join(["%%x: %s" % act] +
                     ["%%w%d: %s" % (l, wt) for l in range(layers)])
    out = []
    if kind not in ("single", "global", "shard_map"):
        sys.exit("gen-mlp-run.py: unknown kind '%s'" % kind)
    if kind == "global":
        print('spmd.mesh @mesh = <["data"=4, "model"=2]>')
        sh = lambda dims: ' {spmd.sharding = #spmd.sharding<@mesh, [%s]>}' % dims
        args = ", ".join(["%%x: %s%s" % (act, sh('{"data"}, {}'))] +
                         ["%%w%d: %s%s" % (l, wt, sh('{}, {"model"}' if l % 2 == 0
                                                     else '{"model"}, {}'))
                          for l in range(layers)])
    if kind in ("single", "global"):
        out.append("func.func @main(%s) -> %s {" % (args, act))
        out.append("  %zero = arith.constant 0.0 : f32")
        cur = "%x"
        for l in range(layers):
            out.append("  %%e%d = tensor.empty() : %s" % (l, act))
            out.append("  %%f%d = linalg.fill ins(%%zero : f32) outs(%%e%d : %s) -> %s"
                       % (l, l, act, act))
            out.append("  %%m%d = linalg.matmul ins(%s, %%w%d : %s, %s) outs(%%f%d : %s) -> %s"
                       % (l, cur, l, act, wt, l, act, act))
            out.append("  %%t%d = math.tanh %%m%d : %s" % (l, l, act))
            cur = "%%t%d" % l
        out.append("  return %s : %s" % (cur, act))
        out.append("}")
        print("\n".join(out))
        return
    data, model = 4, 2
    lb, lh = batch // data, hidden // model
    lact = "tensor<%dx%dxf32>" % (lb, hidden)
    lhalf = "tensor<%dx%dxf32>" % (lb, lh)
    col = "tensor<%dx%dxf32>" % (hidden, lh)
    row = "tensor<%dx%dxf32>" % (lh, hidden)
    print('spmd.mesh @mesh = <["data"=%d, "model"=%d]>' % (data, model))
    out.append("func.func @main(%s) -> %s {" % (args, act))
    ins = ["<@mesh, [{\"data\"}, {}]>"]
    locals_ = ["%%lx: %s" % lact]
    for l in range(layers):
        if l % 2 == 0:
            ins.append("<@mesh, [{}, {\"model\"}]>")
            locals_.append("%%lw%d: %s" % (l, col))
        else:
            ins.append("<@mesh, [{\"model\"}, {}]>")
            locals_.append("%%lw%d: %s" % (l, row))
    operands = ", ".join(["%x"] + ["%%w%d" % l for l in range(layers)])
    types = ", ".join([act] + [wt] * layers)
    final_sharded = layers % 2 == 1
    out_sh = ("<@mesh, [{\"data\"}, {\"model\"}]>" if final_sharded
              else "<@mesh, [{\"data\"}, {}]>")
    out.append("  %%0 = spmd.manual_computation(%s) in_shardings=[%s]"
               % (operands, ", ".join(ins)))
    out.append("      out_shardings=[%s] manual_axes={\"data\", \"model\"} (%s) {"
               % (out_sh, ", ".join(locals_)))
    out.append("    %zero = arith.constant 0.0 : f32")
    cur, cur_t = "%lx", lact
    for l in range(layers):
        res_t = lhalf if l % 2 == 0 else lact
        w_t = col if l % 2 == 0 else row
        out.append("    %%e%d = tensor.empty() : %s" % (l, res_t))
        out.append("    %%f%d = linalg.fill ins(%%zero : f32) outs(%%e%d : %s) -> %s"
                   % (l, l, res_t, res_t))
        out.append("    %%m%d = linalg.matmul ins(%s, %%lw%d : %s, %s) outs(%%f%d : %s) -> %s"
                   % (l, cur, l, cur_t, w_t, l, res_t, res_t))
        val = "%%m%d" % l
        if l % 2 == 1:
            out.append("    %%s%d = comm.all_reduce sum %%m%d over @mesh {\"model\"} : %s"
                       % (l, l, res_t))
            val = "%%s%d" % l
        out.append("    %%t%d = math.tanh %s : %s" % (l, val, res_t))
        cur, cur_t = "%%t%d" % l, res_t
    out.append("    spmd.return %s : %s" % (cur, cur_t))
    out.append("  } : (%s) -> %s" % (types, act))
    out.append("  return %%0 : %s" % act)
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
