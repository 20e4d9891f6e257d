// Tests that --trace writes the trace of a failed run (a device finishes
// without the collective another waits in), ending with the
// failure event, and that the trace is valid JSON even when a source path
// holds bytes that are not UTF-8 (the locations of collectives are strings
// of the trace).
// RUN: not tessera-run %s --random-inputs --trace %t.json 2>&1 | FileCheck %s --check-prefix=RUN-OUT
// RUN: python3 -c "import json, sys; t = json.load(open(sys.argv[1], encoding='utf-8')); print([e['args']['error'][:30] for e in t['traceEvents'] if e.get('name') == 'mesh failed'])" %t.json | FileCheck %s --check-prefix=FAILED
// RUN: python3 -c "import shutil, sys; shutil.copy(sys.argv[1], sys.argv[2].encode() + b'.\xff\xfe.mlir')" %s %t
// RUN: python3 -c "import os, subprocess, sys; p = sys.argv[2].encode() + b'.\xff\xfe.mlir'; r = subprocess.run([sys.argv[1], p, b'--random-inputs', b'--trace', sys.argv[3].encode()]); print('exit', r.returncode)" %tessera_tools_dir/tessera-run %t %t.bad.json | FileCheck %s --check-prefix=EXIT
// RUN: python3 -c "import json, sys; t = json.load(open(sys.argv[1], encoding='utf-8')); print(sum(1 for e in t['traceEvents'] if e.get('name') == 'mesh failed'), 'failure event')" %t.bad.json | FileCheck %s --check-prefix=VALID

// RUN-OUT: tessera-run: error: the program failed on the emulated mesh
// FAILED: ['device 1 finished without reac']
// EXIT: exit 1
// VALID: 1 failure event
spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%l: tensor<2xf32>) {
    %i = comm.axis_index over @mesh {"x"} : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %c0 : index
    // Device 0 reduces over "x", device 1 returns at once: device 0 waits
    // for a partner that never comes.
    %r = scf.if %first -> tensor<2xf32> {
      %s = comm.all_reduce sum %l over @mesh {"x"} : tensor<2xf32>
      scf.yield %s : tensor<2xf32>
    } else {
      scf.yield %l : tensor<2xf32>
    }
    spmd.return %r : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
