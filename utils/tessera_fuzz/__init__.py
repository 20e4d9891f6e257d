"""tessera-fuzz-partition: a randomized differential tester for tessera-run.

Generates random, well-typed global-view programs (elementwise arith/math,
broadcasts, matmuls and generic contractions, reductions, reshapes,
transposes, slices, pads, concatenations, index-dependent generics, scf.for
and scf.while loops, sharding constraints) on
random meshes (1-8 devices, 1-D/2-D, sometimes a shuffled device order, and
sometimes a second mesh over the same devices in another order that results
are declared on) with random shardings (sub-axes, open dimensions, priorities, explicitly
replicated axes, sometimes non-divisible dimensions), verifies each with
tessera-opt, runs it with

    tessera-run FILE --mesh ... --random-inputs --seed N --check

and classifies the outcome:

  pass      the run matched the single-device reference
  rejected  a clear diagnostic ("error: ...") and exit status 1: a case the
            tools do not handle; counted, not a failure
  mismatch  exit 1 with a failed check (or devices that disagree)
  crash     a signal, an assertion, a timeout, a runtime failure of the
            emulated mesh or an unexpected exit status / output

Mismatches and crashes are shrunk (delta debugging over the program: drop
results and ops, replace values by operands or fresh arguments, drop
shardings and loop trips, shrink the mesh and the dimensions) to a minimal
program that fails the same way, written to --out-dir.

The package, by concern (no module imports one that imports it back):

  ir        the program model (plain dicts), op tables, traversals, type
            inference and the sharding invariants
  render    printing a program as MLIR text
  generate  random meshes, shardings and ops (Gen, generate)
  run       running tessera-opt and tessera-run, classifying outcomes
  shrink    delta debugging: smaller candidate programs, the greedy loop
  fuzzer    the driver: chunks, parallel runs, failures, the summary
  cli       argparse and main()

utils/tessera-fuzz-partition is the executable entry point. See
docs/Tools/tessera-fuzz-partition.md. Python 3 standard library only.
"""
