#!/usr/bin/env python3
"""Checks that the examples in Tessera's Markdown docs are true.

Two kinds of marked blocks are checked:

  <!-- example: examples/mlp.mlir -->
  ```mlir
  ...                      the block must equal the file's contents
  ```

  <!-- command: tessera-opt --spmd-print-types examples/mlp.mlir -->
  ```
  ...                      the block must equal the command's output
  ```

Commands run from the repository root with the build's bin directory first
on PATH; their stdout and stderr are combined. A command marked
`<!-- command(exit=N): ... -->` must exit with status N (default 0).
Trailing whitespace is ignored; everything else must match exactly.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys

MARKER = re.compile(r"^<!--\s*(example|command(?:\(exit=(\d+)\))?):\s*(.*?)\s*-->\s*$")


def blocks(lines):
    """Yields (line number, kind, argument, exit code, block text)."""
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        kind = "example" if m.group(1) == "example" else "command"
        exit_code = int(m.group(2) or 0)
        arg = m.group(3)
        start = i
        i += 1
        if i >= len(lines) or not lines[i].startswith("```"):
            yield start + 1, kind, arg, exit_code, None
            continue
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        yield start + 1, kind, arg, exit_code, "\n".join(body)


def normalize(text):
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True, help="repository root")
    parser.add_argument("--bin", required=True, help="build bin directory")
    parser.add_argument("docs", nargs="+",
                        help="Markdown files or directories (searched for *.md)")
    args = parser.parse_args()
    docs = []
    for doc in args.docs:
        full = os.path.join(args.root, doc)
        if os.path.isdir(full):
            for dirpath, _, files in sorted(os.walk(full)):
                for name in sorted(files):
                    if name.endswith(".md"):
                        docs.append(os.path.relpath(os.path.join(dirpath, name),
                                                    args.root))
        else:
            docs.append(doc)

    env = dict(os.environ)
    env["PATH"] = args.bin + os.pathsep + "/usr/lib/llvm-22/bin" + os.pathsep + env.get("PATH", "")
    failures = 0
    checked = 0
    for doc in docs:
        path = os.path.join(args.root, doc)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        for line, kind, arg, exit_code, body in blocks(lines):
            where = f"{doc}:{line}"
            if body is None:
                print(f"{where}: marker not followed by a fenced block")
                failures += 1
                continue
            checked += 1
            if kind == "example":
                with open(os.path.join(args.root, arg), encoding="utf-8") as f:
                    expected = f.read()
                if normalize(body) != normalize(expected):
                    print(f"{where}: block differs from {arg}")
                    failures += 1
                continue
            proc = subprocess.run(shlex.split(arg), cwd=args.root, env=env,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
            if proc.returncode != exit_code:
                print(f"{where}: `{arg}` exited {proc.returncode}, "
                      f"expected {exit_code}\n{proc.stdout}")
                failures += 1
            elif normalize(proc.stdout) != normalize(body):
                print(f"{where}: output of `{arg}` differs from the block;"
                      f" actual output:\n{proc.stdout}")
                failures += 1
    print(f"checked {checked} blocks, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
