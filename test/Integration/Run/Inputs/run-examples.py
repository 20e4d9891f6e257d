#!/usr/bin/env python3
"""Runs every public function of every example with tessera-run --check.

Usage: run-examples.py TESSERA_RUN FILE.mlir...

Each public `func.func` of each file is an entry: it is run with random
inputs and compared with its single-device reference. Prints one line per
entry and a summary; exits 1 if any entry fails.
"""

import re
import subprocess
import sys


def entries(path):
    text = open(path, encoding="utf-8").read()
    return re.findall(r"^\s*func\.func\s+@([\w$.]+)", text, re.MULTILINE)


def main():
    tool, files = sys.argv[1], sys.argv[2:]
    failed = 0
    count = 0
    for path in files:
        for entry in entries(path):
            count += 1
            run = subprocess.run(
                [tool, path, "--entry", entry, "--random-inputs", "--check"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            name = path.split("examples/")[-1]
            if run.returncode == 0 and "check: all" in run.stdout:
                print(f"ok {name} @{entry}")
            else:
                failed += 1
                print(f"FAILED {name} @{entry} (exit {run.returncode}):")
                print(run.stdout)
    print(f"{count} entries, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
