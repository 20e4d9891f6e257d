#!/usr/bin/env python3
#===- check-propagation-plan.py - judge a propagated MLP/transformer ------===#
#
# Part of the Tessera project, under the Apache License v2.0.
#
#===------------------------------------------------------------------------===#
"""Reads `tessera-opt --spmd-propagate` output of a module from
gen-propagation-module.py on stdin and prints one line:

  batch-on-data=<matmul and generic results whose dim 0 is on "data">/<all>
  unsharded=<tensor results without a sharding>
  all-reduces=<matmuls whose contracting dim is sharded on both sides>
"""

import re
import sys

SHARD = re.compile(r'spmd\.sharding_per_value<\[<@mesh, \[(.*?)\]>\]>')
ARG = re.compile(r'%(\w+): tensor<[^>]*> \{spmd\.sharding = #spmd\.sharding<@mesh, \[(.*?)\]>\}')
DEF = re.compile(r'^\s*%(\w+) = ([\w.]+)')


def dims(text):
    return [d.strip() for d in re.findall(r'\{([^}]*)\}', text)]


def main():
    shardings = {}
    batch, total, unsharded, reduces = 0, 0, 0, 0
    matmuls = []
    for line in sys.stdin:
        for name, body in ARG.findall(line):
            shardings[name] = dims(body)
        m = DEF.match(line)
        if not m or "tensor<" not in line:
            continue
        name, op = m.groups()
        s = SHARD.search(line)
        if not s:
            if op not in ("arith.constant",):
                unsharded += 1
            continue
        d = dims(s.group(1))
        shardings[name] = d
        if op in ("linalg.matmul", "linalg.generic"):
            total += 1
            if d and d[0].startswith('"data"'):
                batch += 1
        if op == "linalg.matmul":
            ins = re.search(r'ins\(%(\w+), %(\w+)', line)
            matmuls.append(ins.groups())
    for lhs, rhs in matmuls:
        l, r = shardings.get(lhs), shardings.get(rhs)
        if l and r and '"model"' in l[1] and '"model"' in r[0]:
            reduces += 1
    print("batch-on-data=%d/%d unsharded=%d all-reduces=%d" %
          (batch, total, unsharded, reduces))


if __name__ == "__main__":
    main()
