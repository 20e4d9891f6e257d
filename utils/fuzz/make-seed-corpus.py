#!/usr/bin/env python3
"""Writes the seed corpora of Tessera's fuzz targets from the test files.

    utils/fuzz/make-seed-corpus.py [--src ROOT] [--out ROOT/fuzz/corpus]

module/          every split (`// -----`) of test/Dialect/**/*.mlir and the
                 examples, as whole modules
attr/            every #spmd.* and #poly.* attribute in those files, after the
                 first mesh of its split (the attribute fuzzer's input format)
symbolic-shape/  the tessera-poly invocations of test/tools/tessera-poly as
                 the symbolic-shape fuzzer's line format

Files are named by the SHA-1 of their content, as libFuzzer names the inputs
it adds, so re-running the script only adds files; inputs that once crashed
are kept next to the seeds (fuzz/corpus/*/crash-*) and are never removed.
"""

import argparse
import hashlib
import os
import re
import shlex


def write(out_dir, content):
    os.makedirs(out_dir, exist_ok=True)
    name = hashlib.sha1(content.encode()).hexdigest()
    path = os.path.join(out_dir, name)
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(content)


def mlir_files(src):
    for top in ("test/Dialect", "examples"):
        for root, _, files in os.walk(os.path.join(src, top)):
            for name in sorted(files):
                if name.endswith(".mlir"):
                    yield os.path.join(root, name)


def balanced(text, start):
    """The end of the <...> group that opens at text[start]."""
    depth = 0
    in_string = False
    for i in range(start, len(text)):
        c = text[i]
        if in_string:
            if c == "\\":
                continue
            if c == '"':
                in_string = False
            continue
        if c == '"':
            in_string = True
        elif c == "<":
            depth += 1
        elif c == ">" and text[i - 1] != "-":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


ATTR = re.compile(r"#(spmd|poly)\.[a-z_]+<")
MESH = re.compile(r"spmd\.mesh\s+@\w+\s*=\s*<")


def attrs_of(split):
    mesh = ""
    m = MESH.search(split)
    if m:
        end = balanced(split, m.end() - 1)
        if end:
            mesh = split[m.end() - 1:end]
    for m in ATTR.finditer(split):
        end = balanced(split, m.end() - 1)
        if end:
            yield mesh + "\n" + split[m.start():end] + "\n"


def poly_seeds(src):
    test_dir = os.path.join(src, "test/tools/tessera-poly")
    for name in sorted(os.listdir(test_dir)):
        with open(os.path.join(test_dir, name)) as f:
            for line in f:
                m = re.search(r"tessera-poly (normalize|compare|bounds|eval|solve) (.*?)(\||;|'|$)",
                              line)
                if not m:
                    continue
                try:
                    args = shlex.split(m.group(2))
                except ValueError:
                    continue
                positional, lines = [], []
                i = 0
                while i < len(args):
                    a = args[i]
                    if a in ("--constraint", "--shape", "--bind", "--arg", "--like") and i + 1 < len(args):
                        value = args[i + 1]
                        if a == "--constraint":
                            lines.append("c: " + value)
                        elif a == "--shape":
                            lines.append("s: " + value)
                        elif a == "--bind":
                            lines.append("v: " + value)
                        i += 2
                        continue
                    if not a.startswith("--"):
                        positional.append(a)
                    i += 1
                if not positional:
                    continue
                head = [positional[0]]
                if m.group(1) == "compare" and len(positional) == 3:
                    head.append(positional[1] + " " + positional[2])
                yield "\n".join(head + lines) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=os.path.dirname(os.path.dirname(here)))
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out = args.out or os.path.join(args.src, "fuzz", "corpus")
    for path in mlir_files(args.src):
        with open(path) as f:
            text = f.read()
        for split in re.split(r"^// -----\s*$", text, flags=re.M):
            if split.strip():
                write(os.path.join(out, "module"), split)
                for attr in attrs_of(split):
                    write(os.path.join(out, "attr"), attr)
    for seed in poly_seeds(args.src):
        write(os.path.join(out, "symbolic-shape"), seed)


if __name__ == "__main__":
    main()
