#!/usr/bin/env python3
"""Generates the programs of bench/kernel-layout-bench.sh.

  gen-kernel-layout-bench.py mlp B D H BM [--check]
      A fused MLP y = gelu(x w1) w2 (GELU's tanh form) on f32 x (B, D),
      w1 (D, H), w2 (H, D): @kernel as one kernel.call over (BM, D) row
      blocks of x (grid [B / BM], parallel) with w1 and w2 whole in VMEM,
      its body two vector.contracts and the GELU on vectors (the vector
      layout passes tile them); @reference the same math with linalg on
      tensors outside a kernel.
  gen-kernel-layout-bench.py flash S D BQ BK [--check]
      Attention softmax(q k^T / sqrt(D)) v on f32 q, k, v (S, D): @kernel
      as Pallas's online-softmax flash attention, (BQ, D) query blocks
      over the first grid axis (parallel) and (BK, D) key/value blocks
      over the second (arbitrary), the running maximum and sum in
      lane-replicated (BQ, 128) VMEM scratch and the output accumulated in
      (BQ, D) scratch; @reference the same math with linalg on tensors.

  gen-kernel-layout-bench.py compile CASE kernel|reference
      One side of a compile-time case of issue 31, as a module whose only
      public function is @main: `kernel` a kernel.call whose body computes
      on whole blocks, `reference` the same math with linalg on tensors.
      CASE: dot ((8, 128) x (128, 128) f32), dot2x (jnp.dot(2 * x, y) on
      (128, 128) blocks), astype (jnp.dot(x.astype(f32), y.astype(f32)) on
      bf16 (128, 128) blocks), chained (jnp.dot(jnp.exp(jnp.dot(q, k)), v)
      on (128, 128) blocks), int8 (int8 x int8 into int32 on (128, 128)
      blocks, rescaled to f32), flash (the flash program above, S = 2048,
      D = 128, (128, 128) blocks), mlp (the MLP above, x (1024, 512),
      hidden 1024, (128, 512) row blocks).

Without --check, the mlp and flash programs have the two public functions
@kernel and @reference (run one with tessera-run --entry). With --check, @main
computes both and returns the number of elements that differ by more than
1e-4 (relative, plus 1e-4 absolute; NaN counts), as an i32 scalar.
"""
import sys

VMEM = "#kernel.space<vmem>"


def vec(*shape):
    return "vector<%sxf32>" % "x".join(map(str, shape))


def ref(*shape):
    return "memref<%sxf32, %s>" % ("x".join(map(str, shape)), VMEM)


def ten(*shape):
    return "tensor<%sxf32>" % "x".join(map(str, shape))


MISMATCHES = """\
  func.func private @mismatches(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<i32>) {
    ^bb0(%x: f32, %y: f32, %n: i32):
      %d = arith.subf %x, %y : f32
      %ad = math.absf %d : f32
      %ay = math.absf %y : f32
      %rel = arith.constant 1.0e-4 : f32
      %t = arith.mulf %ay, %rel : f32
      %tol = arith.addf %t, %rel : f32
      %isbad = arith.cmpf ugt, %ad, %tol : f32
      %inc = arith.extui %isbad : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }
"""

MATMUL_MAPS = ("[affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, "
               "affine_map<(i, j, k) -> (i, j)>]")
NT_MAPS = ("[affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, "
           "affine_map<(i, j, k) -> (i, j)>]")
ITERS = '["parallel", "parallel", "reduction"]'



def assemble(parts, params, result, check, only):
    """The module of a program from its parts (the body, @kernel and
    @reference) and the parameters (name, type) and result type of the two
    functions: both public; with --check both private and a @main that
    returns the number of elements where they differ; or with `only`
    ("kernel" or "reference") that side alone, renamed @main."""
    body, kernel, reference = parts
    out = ['module attributes {kernel.target = #kernel.target<"v5e">} {']
    if only == "kernel":
        out += [body, kernel.replace("@kernel(", "@main(", 1)]
    elif only == "reference":
        out += [reference.replace("@reference(", "@main(", 1)]
    else:
        out += [body, kernel, reference]
    if check:
        decl = ", ".join(f"%{n}: {t}" for n, t in params)
        args = ", ".join(f"%{n}" for n, _ in params)
        types = ", ".join(t for _, t in params)
        out += [MISMATCHES, f"""\
  func.func @main({decl}) -> tensor<i32> {{
    %kernel_r = func.call @kernel({args}) : ({types}) -> {result}
    %reference_r = func.call @reference({args}) : ({types}) -> {result}
    %kc = tensor.cast %kernel_r : {result} to tensor<?x?xf32>
    %rc = tensor.cast %reference_r : {result} to tensor<?x?xf32>
    %bad = func.call @mismatches(%kc, %rc) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    return %bad : tensor<i32>
  }}"""]
    out.append("}")
    return "\n".join(out)


def gelu_vector(h, shape, out):
    """The GELU of the vector %h (tanh form), into %out."""
    t = vec(*shape)
    return f"""\
    %g_half = arith.constant dense<0.5> : {t}
    %g_one = arith.constant dense<1.0> : {t}
    %g_c = arith.constant dense<0.7978845608> : {t}
    %g_k = arith.constant dense<0.044715> : {t}
    %g_x2 = arith.mulf {h}, {h} : {t}
    %g_x3 = arith.mulf %g_x2, {h} : {t}
    %g_kx3 = arith.mulf %g_k, %g_x3 : {t}
    %g_in = arith.addf {h}, %g_kx3 : {t}
    %g_arg = arith.mulf %g_c, %g_in : {t}
    %g_th = math.tanh %g_arg : {t}
    %g_1p = arith.addf %g_one, %g_th : {t}
    %g_hx = arith.mulf %g_half, {h} : {t}
    {out} = arith.mulf %g_hx, %g_1p : {t}
"""


def linalg_matmul(name, a, b, shape_a, shape_b, maps=MATMUL_MAPS):
    m = shape_a[0]
    n = shape_b[0] if maps == NT_MAPS else shape_b[1]
    return f"""\
    %{name}_e = tensor.empty() : {ten(m, n)}
    %{name}_z = arith.constant 0.0 : f32
    %{name}_f = linalg.fill ins(%{name}_z : f32) outs(%{name}_e : {ten(m, n)}) -> {ten(m, n)}
    %{name} = linalg.generic {{indexing_maps = {maps}, iterator_types = {ITERS}}}
        ins({a}, {b} : {ten(*shape_a)}, {ten(*shape_b)}) outs(%{name}_f : {ten(m, n)}) {{
    ^bb0(%lhs: f32, %rhs: f32, %acc: f32):
      %prod = arith.mulf %lhs, %rhs : f32
      %sum = arith.addf %acc, %prod : f32
      linalg.yield %sum : f32
    }} -> {ten(m, n)}
"""


def mlp(b, d, h, bm, check, only=None):
    out = []
    # The windows: x and y double-buffered, w1 and w2 whole (one buffer).
    vmem = 4 * (2 * 2 * bm * d + 2 * d * h) + 4 * bm * h * 2 + (8 << 20)
    out.append(f"""\
  func.func @mlp_body(%x: {ref(bm, d)}, %w1: {ref(d, h)}, %w2: {ref(h, d)}, %o: {ref(bm, d)}) {{
    %c0 = arith.constant 0 : index
    %xb = kernel.load %x[%c0, %c0] : {ref(bm, d)}, {vec(bm, d)}
    %w1b = kernel.load %w1[%c0, %c0] : {ref(d, h)}, {vec(d, h)}
    %w2b = kernel.load %w2[%c0, %c0] : {ref(h, d)}, {vec(h, d)}
    %zh = arith.constant dense<0.0> : {vec(bm, h)}
    %hb = vector.contract {{indexing_maps = {MATMUL_MAPS}, iterator_types = {ITERS}, kind = #vector.kind<add>}}
        %xb, %w1b, %zh : {vec(bm, d)}, {vec(d, h)} into {vec(bm, h)}
{gelu_vector("%hb", (bm, h), "%gb")}
    %zd = arith.constant dense<0.0> : {vec(bm, d)}
    %yb = vector.contract {{indexing_maps = {MATMUL_MAPS}, iterator_types = {ITERS}, kind = #vector.kind<add>}}
        %gb, %w2b, %zd : {vec(bm, h)}, {vec(h, d)} into {vec(bm, d)}
    kernel.store %yb, %o[%c0, %c0] : {vec(bm, d)}, {ref(bm, d)}
    return
  }}""")
    vis = "private " if check else ""
    out.append(f"""\
  func.func {vis}@kernel(%x: {ten(b, d)}, %w1: {ten(d, h)}, %w2: {ten(h, d)}) -> {ten(b, d)} {{
    %0 = kernel.call @mlp_body(%x, %w1, %w2) grid = [{b // bm}]
        in_specs = [#kernel.block<[{bm}, {d}], (i) -> (i, 0)>, #kernel.block<full>, #kernel.block<full>]
        out_specs = [#kernel.block<[{bm}, {d}], (i) -> (i, 0)>]
        dimension_semantics = [parallel] vmem_limit_bytes = {vmem}
        : ({ten(b, d)}, {ten(d, h)}, {ten(h, d)}) -> {ten(b, d)}
    return %0 : {ten(b, d)}
  }}""")
    gelu_t = f"""\
    %ge = tensor.empty() : {ten(b, h)}
    %g = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}}
        ins(%hm : {ten(b, h)}) outs(%ge : {ten(b, h)}) {{
    ^bb0(%v: f32, %unused: f32):
      %half = arith.constant 0.5 : f32
      %one = arith.constant 1.0 : f32
      %c = arith.constant 0.7978845608 : f32
      %k = arith.constant 0.044715 : f32
      %v2 = arith.mulf %v, %v : f32
      %v3 = arith.mulf %v2, %v : f32
      %kv3 = arith.mulf %k, %v3 : f32
      %in = arith.addf %v, %kv3 : f32
      %arg = arith.mulf %c, %in : f32
      %th = math.tanh %arg : f32
      %p1 = arith.addf %one, %th : f32
      %hv = arith.mulf %half, %v : f32
      %r = arith.mulf %hv, %p1 : f32
      linalg.yield %r : f32
    }} -> {ten(b, h)}
"""
    out.append(f"""\
  func.func {vis}@reference(%x: {ten(b, d)}, %w1: {ten(d, h)}, %w2: {ten(h, d)}) -> {ten(b, d)} {{
{linalg_matmul("hm", "%x", "%w1", (b, d), (d, h))}{gelu_t}{linalg_matmul("ym", "%g", "%w2", (b, h), (h, d))}
    return %ym : {ten(b, d)}
  }}""")
    return assemble(out, [("x", ten(b, d)), ("w1", ten(d, h)), ("w2", ten(h, d))],
                    ten(b, d), check, only)


def flash(s, d, bq, bk, check, only=None):
    scale = 1.0 / d ** 0.5
    lanes = 128
    rep = bk // lanes
    out = []
    qk = vec(bq, bk)
    ml = vec(bq, lanes)
    # m and l are lane-replicated (BQ, 128); with BK > 128 they are
    # broadcast along the key block by a shape cast (Pallas's
    # pltpu.repeat).
    if rep == 1:
        widen = lambda name, v: f"    {name} = arith.addf {v}, %zero_qk : {qk}\n"
    else:
        def widen(name, v):
            return (f"    {name}_3 = vector.broadcast {v} : {ml} to vector<{rep}x{bq}x{lanes}xf32>\n"
                    f"    {name}_t = vector.transpose {name}_3, [1, 0, 2] : vector<{rep}x{bq}x{lanes}xf32> to vector<{bq}x{rep}x{lanes}xf32>\n"
                    f"    {name} = vector.shape_cast {name}_t : vector<{bq}x{rep}x{lanes}xf32> to {qk}\n")
    out.append(f"""\
  func.func @flash_body(%q: {ref(bq, d)}, %k: {ref(bk, d)}, %v: {ref(bk, d)}, %o: {ref(bq, d)},
                        %m_ref: {ref(bq, lanes)}, %l_ref: {ref(bq, lanes)}, %acc_ref: {ref(bq, d)}) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %j = kernel.program_id 1
    %nj = kernel.num_programs 1
    %first = arith.cmpi eq, %j, %c0 : index
    scf.if %first {{
      %ninf = arith.constant dense<0xFF800000> : {ml}
      %zml = arith.constant dense<0.0> : {ml}
      %zacc = arith.constant dense<0.0> : {vec(bq, d)}
      kernel.store %ninf, %m_ref[%c0, %c0] : {ml}, {ref(bq, lanes)}
      kernel.store %zml, %l_ref[%c0, %c0] : {ml}, {ref(bq, lanes)}
      kernel.store %zacc, %acc_ref[%c0, %c0] : {vec(bq, d)}, {ref(bq, d)}
    }}
    %zero_qk = arith.constant dense<0.0> : {qk}
    %qb = kernel.load %q[%c0, %c0] : {ref(bq, d)}, {vec(bq, d)}
    %kb = kernel.load %k[%c0, %c0] : {ref(bk, d)}, {vec(bk, d)}
    %vb = kernel.load %v[%c0, %c0] : {ref(bk, d)}, {vec(bk, d)}
    %s0 = vector.contract {{indexing_maps = {NT_MAPS}, iterator_types = {ITERS}, kind = #vector.kind<add>}}
        %qb, %kb, %zero_qk : {vec(bq, d)}, {vec(bk, d)} into {qk}
    %scale = arith.constant dense<{scale:.10f}> : {qk}
    %s = arith.mulf %s0, %scale : {qk}
    %m_prev = kernel.load %m_ref[%c0, %c0] : {ref(bq, lanes)}, {ml}
    %l_prev = kernel.load %l_ref[%c0, %c0] : {ref(bq, lanes)}, {ml}
    %low = arith.constant dense<0xFF800000> : vector<{bq}xf32>
    %rowmax = vector.multi_reduction <maximumf>, %s, %low [1] : {qk} to vector<{bq}xf32>
    %rowmax2 = vector.shape_cast %rowmax : vector<{bq}xf32> to vector<{bq}x1xf32>
    %m_curr = vector.broadcast %rowmax2 : vector<{bq}x1xf32> to {ml}
    %m_next = arith.maximumf %m_prev, %m_curr : {ml}
{widen("%m_wide", "%m_next")}    %centered = arith.subf %s, %m_wide : {qk}
    %p = math.exp %centered : {qk}
    %dm = arith.subf %m_prev, %m_next : {ml}
    %alpha = math.exp %dm : {ml}
    %zl = arith.constant dense<0.0> : vector<{bq}xf32>
    %rowsum = vector.multi_reduction <add>, %p, %zl [1] : {qk} to vector<{bq}xf32>
    %rowsum2 = vector.shape_cast %rowsum : vector<{bq}xf32> to vector<{bq}x1xf32>
    %l_curr = vector.broadcast %rowsum2 : vector<{bq}x1xf32> to {ml}
    %l_corr = arith.mulf %alpha, %l_prev : {ml}
    %l_next = arith.addf %l_corr, %l_curr : {ml}
    kernel.store %m_next, %m_ref[%c0, %c0] : {ml}, {ref(bq, lanes)}
    kernel.store %l_next, %l_ref[%c0, %c0] : {ml}, {ref(bq, lanes)}
    %acc = kernel.load %acc_ref[%c0, %c0] : {ref(bq, d)}, {vec(bq, d)}
    %alpha_col = vector.extract_strided_slice %alpha {{offsets = [0, 0], sizes = [{bq}, 1], strides = [1, 1]}} : {ml} to vector<{bq}x1xf32>
    %alpha_d = vector.broadcast %alpha_col : vector<{bq}x1xf32> to {vec(bq, d)}
    %scaled = arith.mulf %acc, %alpha_d : {vec(bq, d)}
    %pv = vector.contract {{indexing_maps = {MATMUL_MAPS}, iterator_types = {ITERS}, kind = #vector.kind<add>}}
        %p, %vb, %scaled : {qk}, {vec(bk, d)} into {vec(bq, d)}
    kernel.store %pv, %acc_ref[%c0, %c0] : {vec(bq, d)}, {ref(bq, d)}
    %lastj = arith.subi %nj, %c1 : index
    %last = arith.cmpi eq, %j, %lastj : index
    scf.if %last {{
      %a = kernel.load %acc_ref[%c0, %c0] : {ref(bq, d)}, {vec(bq, d)}
      %l = kernel.load %l_ref[%c0, %c0] : {ref(bq, lanes)}, {ml}
      %l_col = vector.extract_strided_slice %l {{offsets = [0, 0], sizes = [{bq}, 1], strides = [1, 1]}} : {ml} to vector<{bq}x1xf32>
      %l_d = vector.broadcast %l_col : vector<{bq}x1xf32> to {vec(bq, d)}
      %res = arith.divf %a, %l_d : {vec(bq, d)}
      kernel.store %res, %o[%c0, %c0] : {vec(bq, d)}, {ref(bq, d)}
    }}
    return
  }}""")
    vis = "private " if check else ""
    out.append(f"""\
  func.func {vis}@kernel(%q: {ten(s, d)}, %k: {ten(s, d)}, %v: {ten(s, d)}) -> {ten(s, d)} {{
    %0 = kernel.call @flash_body(%q, %k, %v) grid = [{s // bq}, {s // bk}]
        in_specs = [#kernel.block<[{bq}, {d}], (i, j) -> (i, 0)>, #kernel.block<[{bk}, {d}], (i, j) -> (j, 0)>,
                    #kernel.block<[{bk}, {d}], (i, j) -> (j, 0)>]
        out_specs = [#kernel.block<[{bq}, {d}], (i, j) -> (i, 0)>]
        scratch = [{ref(bq, lanes)}, {ref(bq, lanes)}, {ref(bq, d)}]
        dimension_semantics = [parallel, arbitrary]
        : ({ten(s, d)}, {ten(s, d)}, {ten(s, d)}) -> {ten(s, d)}
    return %0 : {ten(s, d)}
  }}""")
    row = "affine_map<(i, j) -> (i)>"
    full = "affine_map<(i, j) -> (i, j)>"
    out.append(f"""\
  func.func {vis}@reference(%q: {ten(s, d)}, %k: {ten(s, d)}, %v: {ten(s, d)}) -> {ten(s, d)} {{
{linalg_matmul("sm", "%q", "%k", (s, d), (s, d), NT_MAPS)}
    %ninf = arith.constant 0xFF800000 : f32
    %zf = arith.constant 0.0 : f32
    %scale = arith.constant {scale:.10f} : f32
    %e1 = tensor.empty() : tensor<{s}xf32>
    %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<{s}xf32>) -> tensor<{s}xf32>
    %mx = linalg.generic {{indexing_maps = [{full}, {row}], iterator_types = ["parallel", "reduction"]}}
        ins(%sm : {ten(s, s)}) outs(%f1 : tensor<{s}xf32>) {{
    ^bb0(%a: f32, %c: f32):
      %sa = arith.mulf %a, %scale : f32
      %r = arith.maximumf %c, %sa : f32
      linalg.yield %r : f32
    }} -> tensor<{s}xf32>
    %e0 = tensor.empty() : {ten(s, s)}
    %p = linalg.generic {{indexing_maps = [{full}, {row}, {full}], iterator_types = ["parallel", "parallel"]}}
        ins(%sm, %mx : {ten(s, s)}, tensor<{s}xf32>) outs(%e0 : {ten(s, s)}) {{
    ^bb0(%a: f32, %m: f32, %c: f32):
      %sa = arith.mulf %a, %scale : f32
      %dd = arith.subf %sa, %m : f32
      %r = math.exp %dd : f32
      linalg.yield %r : f32
    }} -> {ten(s, s)}
    %f2 = linalg.fill ins(%zf : f32) outs(%e1 : tensor<{s}xf32>) -> tensor<{s}xf32>
    %l = linalg.generic {{indexing_maps = [{full}, {row}], iterator_types = ["parallel", "reduction"]}}
        ins(%p : {ten(s, s)}) outs(%f2 : tensor<{s}xf32>) {{
    ^bb0(%a: f32, %c: f32):
      %r = arith.addf %c, %a : f32
      linalg.yield %r : f32
    }} -> tensor<{s}xf32>
{linalg_matmul("pv", "%p", "%v", (s, s), (s, d))}
    %e3 = tensor.empty() : {ten(s, d)}
    %res = linalg.generic {{indexing_maps = [{full}, {row}, {full}], iterator_types = ["parallel", "parallel"]}}
        ins(%pv, %l : {ten(s, d)}, tensor<{s}xf32>) outs(%e3 : {ten(s, d)}) {{
    ^bb0(%a: f32, %b: f32, %c: f32):
      %r = arith.divf %a, %b : f32
      linalg.yield %r : f32
    }} -> {ten(s, d)}
    return %res : {ten(s, d)}
  }}""")
    return assemble(out, [("q", ten(s, d)), ("k", ten(s, d)), ("v", ten(s, d))],
                    ten(s, d), check, only)



def typed(kind, dtype, shape):
    dims = "x".join(map(str, shape))
    if kind == "memref":
        return f"memref<{dims}x{dtype}, {VMEM}>"
    return f"{kind}<{dims}x{dtype}>"


def contraction(case):
    """The parts (body, @kernel, @reference) of the compile-time case CASE
    (not flash or mlp): one kernel.call on whole (128, 128) blocks (the
    left operand of `dot` (8, 128)), and the same math in linalg."""
    n = 128
    m = 8 if case == "dot" else n
    a_t = "bf16" if case == "astype" else "i8" if case == "int8" else "f32"
    ops = 3 if case == "chained" else 2
    shapes = [(m, n)] + [(n, n)] * (ops - 1)
    body, refm = [], []

    def mm(res, a, b, shape_a, k_t, acc_t, body_k_t=None, body_suffix=""):
        """A contraction %res = %a %b of k_t operands into acc_t, in the
        body (of vectors; of the vectors %a<body_suffix>, %b<body_suffix>
        of body_k_t if given) and in the reference."""
        zero = "0" if acc_t == "i32" else "0.0"
        bk_t = body_k_t or k_t
        va, vb, vr = (typed("vector", bk_t, shape_a),
                      typed("vector", bk_t, (n, n)),
                      typed("vector", acc_t, (shape_a[0], n)))
        body.append(f"""\
    %{res}_z = arith.constant dense<{zero}> : {vr}
    %{res} = vector.contract {{indexing_maps = {MATMUL_MAPS}, iterator_types = {ITERS}, kind = #vector.kind<add>}}
        %{a}{body_suffix}, %{b}{body_suffix}, %{res}_z : {va}, {vb} into {vr}""")
        ta, tb, tr = (typed("tensor", k_t, shape_a), typed("tensor", k_t, (n, n)),
                      typed("tensor", acc_t, (shape_a[0], n)))
        if k_t == acc_t:
            ext = ""
            la, lb = "%l", "%r"
        else:
            op = "arith.extsi" if acc_t == "i32" else "arith.extf"
            ext = (f"      %le = {op} %l : {k_t} to {acc_t}\n"
                   f"      %re = {op} %r : {k_t} to {acc_t}\n")
            la, lb = "%le", "%re"
        mul, add = ("arith.muli", "arith.addi") if acc_t == "i32" else ("arith.mulf", "arith.addf")
        refm.append(f"""\
    %{res}_e = tensor.empty() : {tr}
    %{res}_c = arith.constant {zero} : {acc_t}
    %{res}_f = linalg.fill ins(%{res}_c : {acc_t}) outs(%{res}_e : {tr}) -> {tr}
    %{res} = linalg.generic {{indexing_maps = {MATMUL_MAPS}, iterator_types = {ITERS}}}
        ins(%{a}, %{b} : {ta}, {tb}) outs(%{res}_f : {tr}) {{
    ^bb0(%l: {k_t}, %r: {k_t}, %acc: {acc_t}):
{ext}      %prod = {mul} {la}, {lb} : {acc_t}
      %sum = {add} %acc, %prod : {acc_t}
      linalg.yield %sum : {acc_t}
    }} -> {tr}""")

    def elementwise(res, x, shape, dtype, body_ops, scalar_ops):
        """An elementwise function of %x: body_ops(v, t) on vectors,
        scalar_ops(v, t) in a linalg.generic."""
        vt, tt = typed("vector", dtype, shape), typed("tensor", dtype, shape)
        body.append(body_ops(f"%{x}", vt, f"%{res}"))
        ident = "affine_map<(i, j) -> (i, j)>"
        refm.append(f"""\
    %{res}_e = tensor.empty() : {tt}
    %{res} = linalg.generic {{indexing_maps = [{ident}, {ident}], iterator_types = ["parallel", "parallel"]}}
        ins(%{x} : {tt}) outs(%{res}_e : {tt}) {{
    ^bb0(%v: {dtype}, %unused: {dtype}):
{scalar_ops("%v", dtype, "%w")}
      linalg.yield %w : {dtype}
    }} -> {tt}""")

    names = ["a0", "a1", "a2"][:ops]
    if case == "dot":
        mm("r", "a0", "a1", shapes[0], "f32", "f32")
        out_t, res = "f32", "r"
    elif case == "astype":
        # The body contracts x.astype(f32) and y.astype(f32) (%a0f, %a1f);
        # the reference extends in the contraction's region.
        mm("r", "a0", "a1", shapes[0], "bf16", "f32", body_k_t="f32",
           body_suffix="f")
        out_t, res = "f32", "r"
    elif case == "dot2x":
        elementwise("x2", "a0", (n, n), "f32",
                    lambda v, t, r: f"    {r}_two = arith.constant dense<2.0> : {t}\n"
                                    f"    {r} = arith.mulf {v}, {r}_two : {t}",
                    lambda v, t, r: f"      %two = arith.constant 2.0 : {t}\n"
                                    f"      {r} = arith.mulf {v}, %two : {t}")
        mm("r", "x2", "a1", (n, n), "f32", "f32")
        out_t, res = "f32", "r"
    elif case == "chained":
        mm("s", "a0", "a1", (n, n), "f32", "f32")
        elementwise("p", "s", (n, n), "f32",
                    lambda v, t, r: f"    {r} = math.exp {v} : {t}",
                    lambda v, t, r: f"      {r} = math.exp {v} : {t}")
        mm("r", "p", "a2", (n, n), "f32", "f32")
        out_t, res = "f32", "r"
    else:  # int8
        mm("q", "a0", "a1", (n, n), "i8", "i32")
        vt_i, vt_f = typed("vector", "i32", (n, n)), typed("vector", "f32", (n, n))
        body.append(f"""\
    %qf = arith.sitofp %q : {vt_i} to {vt_f}
    %qs = arith.constant dense<0.0078125> : {vt_f}
    %r = arith.mulf %qf, %qs : {vt_f}""")
        ti, tf = typed("tensor", "i32", (n, n)), typed("tensor", "f32", (n, n))
        ident = "affine_map<(i, j) -> (i, j)>"
        refm.append(f"""\
    %r_e = tensor.empty() : {tf}
    %r = linalg.generic {{indexing_maps = [{ident}, {ident}], iterator_types = ["parallel", "parallel"]}}
        ins(%q : {ti}) outs(%r_e : {tf}) {{
    ^bb0(%v: i32, %unused: f32):
      %vf = arith.sitofp %v : i32 to f32
      %sc = arith.constant 0.0078125 : f32
      %w = arith.mulf %vf, %sc : f32
      linalg.yield %w : f32
    }} -> {tf}""")
        out_t, res = "f32", "r"
    out_shape = (m, n)
    loads = "\n".join(
        f"    %{nm} = kernel.load %m{nm}[%c0, %c0] : {typed('memref', a_t, sh)}, {typed('vector', a_t, sh)}"
        for nm, sh in zip(names, shapes))
    if case == "astype":
        loads += "\n" + "\n".join(
            f"    %{nm}f = arith.extf %{nm} : {typed('vector', 'bf16', sh)} to {typed('vector', 'f32', sh)}"
            for nm, sh in zip(names, shapes))
    args = ", ".join(f"%m{nm}: {typed('memref', a_t, sh)}" for nm, sh in zip(names, shapes))
    out_ref, out_vec = typed("memref", out_t, out_shape), typed("vector", out_t, out_shape)
    kernel_body = f"""\
  func.func @body({args}, %mo: {out_ref}) {{
    %c0 = arith.constant 0 : index
{loads}
{chr(10).join(body)}
    kernel.store %{res}, %mo[%c0, %c0] : {out_vec}, {out_ref}
    return
  }}"""
    targs = ", ".join(f"%{nm}: {typed('tensor', a_t, sh)}" for nm, sh in zip(names, shapes))
    ttypes = ", ".join(typed("tensor", a_t, sh) for sh in shapes)
    tout = typed("tensor", out_t, out_shape)
    full = ", ".join(["#kernel.block<full>"] * ops)
    kernel = f"""\
  func.func @kernel({targs}) -> {tout} {{
    %0 = kernel.call @body({", ".join("%" + nm for nm in names)}) grid = []
        in_specs = [{full}] out_specs = [#kernel.block<full>]
        : ({ttypes}) -> {tout}
    return %0 : {tout}
  }}"""
    reference = f"""\
  func.func @reference({targs}) -> {tout} {{
{chr(10).join(refm)}
    return %{res} : {tout}
  }}"""
    return kernel_body, kernel, reference


CASES = ("dot", "dot2x", "astype", "chained", "int8", "flash", "mlp")


def compile_case(case, only):
    if case == "flash":
        return flash(2048, 128, 128, 128, False, only)
    if case == "mlp":
        return mlp(1024, 512, 1024, 128, False, only)
    return assemble(contraction(case), [], "", False, only)

def main(argv):
    check = "--check" in argv
    args = [a for a in argv[1:] if a != "--check"]
    if len(args) == 5 and args[0] == "mlp":
        b, d, h, bm = map(int, args[1:])
        if b % bm:
            sys.exit("gen-kernel-layout-bench.py: BM must divide B")
        print(mlp(b, d, h, bm, check))
    elif len(args) == 5 and args[0] == "flash":
        s, d, bq, bk = map(int, args[1:])
        if s % bq or s % bk or bk % 128:
            sys.exit("gen-kernel-layout-bench.py: BQ and BK must divide S, "
                     "BK be a multiple of 128")
        print(flash(s, d, bq, bk, check))
    elif (len(args) == 3 and args[0] == "compile" and args[1] in CASES
          and args[2] in ("kernel", "reference") and not check):
        print(compile_case(args[1], args[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
