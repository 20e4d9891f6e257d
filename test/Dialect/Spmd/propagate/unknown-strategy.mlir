// RUN: not tessera-opt %s --spmd-propagate=strategy=greedy 2>&1 | FileCheck %s

// Tests that an unknown strategy is a clear error and a non-zero exit.
// CHECK: error: unknown propagation strategy 'greedy', expected 'basic' or 'aggressive'
spmd.mesh @mesh = <["a"=2]>
