#!/usr/bin/env python3
"""Generates the programs of bench/kernel-bench.sh.

  gen-kernel-bench.py add M N BM VR VC [--check]
      o = x + y on (M, N) f32 arrays as a kernel.call: (BM, N) blocks over a
      grid of M / BM row blocks (parallel); the body walks its block in
      (VR, VC) vectors with two scf.for loops.
  gen-kernel-bench.py kernel-matmul M N K BM BN BK linalg [--check]
  gen-kernel-bench.py kernel-matmul M N K BM BN BK vector MR NR [--check]
      C = A * B, (M, K) x (K, N) f32, as a kernel.call over the grid
      (M / BM, N / BN, K / BK) (parallel, parallel, arbitrary): the output
      block stays resident in VMEM along k and accumulates the products of
      the (BM, BK) and (BK, BN) blocks. Body `linalg`: the output block is
      zeroed on the first k step, then one linalg.matmul on the blocks
      accumulates into it (the straightforward kernel). Body `vector`: a
      register-blocked loop nest: for each (MR, NR) tile of the output block,
      an accumulator vector (zero on the first k step, else loaded) gets one
      vector.outerproduct of an (MR, 1) column of A and an NR-wide row of B
      per k, and is stored back.
  gen-kernel-bench.py linalg-matmul M N K
      the same C = A * B as a plain linalg.matmul (tessera-cpu pipeline).

With --check, @main also computes the result without the kernel (linalg on
the whole arrays) and returns only the number of elements that differ by
more than 1e-4 (relative, plus 1e-4 absolute; NaN counts), as an i32 scalar.

Kernel programs set vmem_limit_bytes when their double-buffered windows
need more than the default scoped VMEM of a v5e TensorCore (16 MiB).
"""
import sys

VMEM = "#kernel.space<vmem>"
TARGET = 'module attributes {kernel.target = #kernel.target<"v5e">} {'


def mref(shape):
    return "memref<%sxf32, %s>" % ("x".join(map(str, shape)), VMEM)


def tensor(shape):
    return "tensor<%sxf32>" % "x".join(map(str, shape))


def fail(msg):
    sys.exit("gen-kernel-bench.py: " + msg)


def vmem_clause(windows):
    """`vmem_limit_bytes = N` for double-buffered f32 (rows, cols) windows
    (plus 1 MiB of slack) when they exceed the 16 MiB default, else ''."""
    total = sum(2 * 4 * r * c for r, c in windows) + (1 << 20)
    if total > 128 << 20:
        fail("windows need %d bytes of VMEM, more than the 128 MiB of a v5e "
             "TensorCore" % total)
    if total <= 16 << 20:
        return ""
    return "\n        vmem_limit_bytes = %d" % total


def mismatches(shape):
    """A private function counting the elements that differ."""
    t = tensor(shape)
    return """  func.func private @mismatches(%%a: %(t)s, %%b: %(t)s) -> tensor<i32> {
    %%zero = arith.constant 0 : i32
    %%init = tensor.empty() : tensor<i32>
    %%acc = linalg.fill ins(%%zero : i32) outs(%%init : tensor<i32>) -> tensor<i32>
    %%bad = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
        ins(%%a, %%b : %(t)s, %(t)s) outs(%%acc : tensor<i32>) {
    ^bb0(%%x: f32, %%y: f32, %%n: i32):
      %%d = arith.subf %%x, %%y : f32
      %%ad = math.absf %%d : f32
      %%ay = math.absf %%y : f32
      %%rel = arith.constant 1.0e-4 : f32
      %%t = arith.mulf %%ay, %%rel : f32
      %%tol = arith.addf %%t, %%rel : f32
      %%isbad = arith.cmpf ugt, %%ad, %%tol : f32
      %%inc = arith.extui %%isbad : i1 to i32
      %%sum = arith.addi %%n, %%inc : i32
      linalg.yield %%sum : i32
    } -> tensor<i32>
    return %%bad : tensor<i32>
  }""" % dict(t=t)


def add(m, n, bm, vr, vc, check):
    if m % bm or bm % vr or n % vc:
        fail("BM must divide M, VR divide BM and VC divide N")
    blk, vec = mref([bm, n]), "vector<%dx%dxf32>" % (vr, vc)
    t = tensor([m, n])
    print(TARGET)
    print("""  func.func @add_body(%%x: %(blk)s, %%y: %(blk)s, %%o: %(blk)s) {
    %%c0 = arith.constant 0 : index
    %%bm = arith.constant %(bm)d : index
    %%n = arith.constant %(n)d : index
    %%vr = arith.constant %(vr)d : index
    %%vc = arith.constant %(vc)d : index
    scf.for %%r = %%c0 to %%bm step %%vr {
      scf.for %%c = %%c0 to %%n step %%vc {
        %%a = kernel.load %%x[%%r, %%c] : %(blk)s, %(vec)s
        %%b = kernel.load %%y[%%r, %%c] : %(blk)s, %(vec)s
        %%s = arith.addf %%a, %%b : %(vec)s
        kernel.store %%s, %%o[%%r, %%c] : %(vec)s, %(blk)s
      }
    }
    return
  }""" % dict(blk=blk, vec=vec, bm=bm, n=n, vr=vr, vc=vc))
    if check:
        print(mismatches([m, n]))
    print("""  func.func @main(%%x: %(t)s, %%y: %(t)s) -> %(res)s {
    %%0 = kernel.call @add_body(%%x, %%y) grid = [%(grid)d]
        in_specs = [#kernel.block<[%(bm)d, %(n)d], (i) -> (i, 0)>,
                    #kernel.block<[%(bm)d, %(n)d], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[%(bm)d, %(n)d], (i) -> (i, 0)>]
        dimension_semantics = [parallel]%(vmem)s
        : (%(t)s, %(t)s) -> %(t)s""" % dict(
        t=t, bm=bm, n=n, grid=m // bm, vmem=vmem_clause([(bm, n)] * 3),
        res="tensor<i32>" if check else t))
    if check:
        print("""    %%ref = arith.addf %%x, %%y : %(t)s
    %%bad = func.call @mismatches(%%0, %%ref) : (%(t)s, %(t)s) -> tensor<i32>
    return %%bad : tensor<i32>""" % dict(t=t))
    else:
        print("    return %%0 : %s" % t)
    print("  }\n}")


LINALG_BODY = """  func.func @matmul_body(%%a: %(xa)s, %%b: %(xb)s, %%o: %(xo)s) {
    %%c0 = arith.constant 0 : index
    %%c8 = arith.constant 8 : index
    %%c128 = arith.constant 128 : index
    %%rows = arith.constant %(bm)d : index
    %%cols = arith.constant %(bn)d : index
    %%kk = kernel.program_id 2
    %%first = arith.cmpi eq, %%kk, %%c0 : index
    scf.if %%first {
      %%zero = arith.constant dense<0.0> : vector<8x128xf32>
      scf.for %%i = %%c0 to %%rows step %%c8 {
        scf.for %%j = %%c0 to %%cols step %%c128 {
          kernel.store %%zero, %%o[%%i, %%j] : vector<8x128xf32>, %(xo)s
        }
      }
    }
    linalg.matmul ins(%%a, %%b : %(xa)s, %(xb)s) outs(%%o : %(xo)s)
    return
  }"""

VECTOR_BODY = """  func.func @matmul_body(%%a: %(xa)s, %%b: %(xb)s, %%o: %(xo)s) {
    %%c0 = arith.constant 0 : index
    %%c1 = arith.constant 1 : index
    %%rows = arith.constant %(bm)d : index
    %%cols = arith.constant %(bn)d : index
    %%depth = arith.constant %(bk)d : index
    %%mr = arith.constant %(mr)d : index
    %%nr = arith.constant %(nr)d : index
    %%kk = kernel.program_id 2
    %%first = arith.cmpi eq, %%kk, %%c0 : index
    scf.for %%i = %%c0 to %%rows step %%mr {
      scf.for %%j = %%c0 to %%cols step %%nr {
        %%init = scf.if %%first -> (%(acc)s) {
          %%zero = arith.constant dense<0.0> : %(acc)s
          scf.yield %%zero : %(acc)s
        } else {
          %%old = kernel.load %%o[%%i, %%j] : %(xo)s, %(acc)s
          scf.yield %%old : %(acc)s
        }
        %%sum = scf.for %%p = %%c0 to %%depth step %%c1 iter_args(%%s = %%init) -> (%(acc)s) {
          %%col = kernel.load %%a[%%i, %%p] : %(xa)s, vector<%(mr)dx1xf32>
          %%av = vector.shape_cast %%col : vector<%(mr)dx1xf32> to vector<%(mr)dxf32>
          %%bv = kernel.load %%b[%%p, %%j] : %(xb)s, vector<%(nr)dxf32>
          %%t = vector.outerproduct %%av, %%bv, %%s : vector<%(mr)dxf32>, vector<%(nr)dxf32>
          scf.yield %%t : %(acc)s
        }
        kernel.store %%sum, %%o[%%i, %%j] : %(acc)s, %(xo)s
      }
    }
    return
  }"""


def kernel_matmul(m, n, k, bm, bn, bk, body, mr, nr, check):
    if m % bm or n % bn or k % bk:
        fail("BM, BN, BK must divide M, N, K")
    if body == "vector" and (bm % mr or bn % nr):
        fail("MR must divide BM and NR divide BN")
    if body == "linalg" and (bm % 8 or bn % 128):
        fail("the linalg body zeroes its block in (8, 128) tiles")
    xa, xb, xo = mref([bm, bk]), mref([bk, bn]), mref([bm, bn])
    ta, tb, tc = tensor([m, k]), tensor([k, n]), tensor([m, n])
    acc = "vector<%dx%dxf32>" % (mr, nr)
    flops = 2 * m * n * k
    nbytes = 4 * (m * k * (n // bn) + k * n * (m // bm) + m * n)
    print(TARGET)
    print((LINALG_BODY if body == "linalg" else VECTOR_BODY) %
          dict(xa=xa, xb=xb, xo=xo, bm=bm, bn=bn, bk=bk, mr=mr, nr=nr,
               acc=acc))
    if check:
        print(mismatches([m, n]))
    print("""  func.func @main(%%x: %(ta)s, %%y: %(tb)s) -> %(res)s {
    %%0 = kernel.call @matmul_body(%%x, %%y) grid = [%(gm)d, %(gn)d, %(gk)d]
        cost_estimate = #kernel.cost<flops = %(flops)d, transcendentals = 0, bytes_accessed = %(nbytes)d>
        in_specs = [#kernel.block<[%(bm)d, %(bk)d], (i, j, k) -> (i, k)>,
                    #kernel.block<[%(bk)d, %(bn)d], (i, j, k) -> (k, j)>]
        out_specs = [#kernel.block<[%(bm)d, %(bn)d], (i, j, k) -> (i, j)>]
        dimension_semantics = [parallel, parallel, arbitrary]%(vmem)s
        : (%(ta)s, %(tb)s) -> %(tc)s""" % dict(
        ta=ta, tb=tb, tc=tc, bm=bm, bn=bn, bk=bk, gm=m // bm, gn=n // bn,
        gk=k // bk, flops=flops, nbytes=nbytes,
        vmem=vmem_clause([(bm, bk), (bk, bn), (bm, bn)]),
        res="tensor<i32>" if check else tc))
    if check:
        print("""    %%zero = arith.constant 0.0 : f32
    %%empty = tensor.empty() : %(tc)s
    %%c = linalg.fill ins(%%zero : f32) outs(%%empty : %(tc)s) -> %(tc)s
    %%ref = linalg.matmul ins(%%x, %%y : %(ta)s, %(tb)s) outs(%%c : %(tc)s) -> %(tc)s
    %%bad = func.call @mismatches(%%0, %%ref) : (%(tc)s, %(tc)s) -> tensor<i32>
    return %%bad : tensor<i32>""" % dict(ta=ta, tb=tb, tc=tc))
    else:
        print("    return %%0 : %s" % tc)
    print("  }\n}")


def linalg_matmul(m, n, k):
    ta, tb, tc = tensor([m, k]), tensor([k, n]), tensor([m, n])
    print("""func.func @main(%%x: %(ta)s, %%y: %(tb)s) -> %(tc)s {
  %%zero = arith.constant 0.0 : f32
  %%empty = tensor.empty() : %(tc)s
  %%c = linalg.fill ins(%%zero : f32) outs(%%empty : %(tc)s) -> %(tc)s
  %%r = linalg.matmul ins(%%x, %%y : %(ta)s, %(tb)s) outs(%%c : %(tc)s) -> %(tc)s
  return %%r : %(tc)s
}""" % dict(ta=ta, tb=tb, tc=tc))


def main():
    argv = sys.argv[1:]
    check = "--check" in argv
    argv = [a for a in argv if a != "--check"]
    if not argv:
        fail("usage:\n" + __doc__)
    kind, rest = argv[0], argv[1:]
    try:
        if kind == "add" and len(rest) == 5:
            return add(*map(int, rest), check)
        if kind == "kernel-matmul" and len(rest) == 7 and rest[6] == "linalg":
            return kernel_matmul(*map(int, rest[:6]), "linalg", 1, 1, check)
        if kind == "kernel-matmul" and len(rest) == 9 and rest[6] == "vector":
            return kernel_matmul(*map(int, rest[:6]), "vector",
                                 int(rest[7]), int(rest[8]), check)
        if kind == "linalg-matmul" and len(rest) == 3 and not check:
            return linalg_matmul(*map(int, rest))
    except ValueError:
        pass
    fail("bad arguments\n" + __doc__)


if __name__ == "__main__":
    main()
