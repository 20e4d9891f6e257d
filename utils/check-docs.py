#!/usr/bin/env python3
"""Checks that the examples in Tessera's Markdown docs are true.

Two kinds of blocks are checked.

Command blocks: a fenced block whose first line starts with `$ ` shows
commands and what they print, as a reader would type and see them:

  ```console
  $ tessera-poly solve "b, b, 2*d" --shape 3,3,8
  b = 3
  d = 4
  $ tessera-poly solve "b, b, 2*d" --shape 3,3,5  # exit status 1
  Input shapes do not match ...
  ```

  - Every line starting with `$ ` is a command; the lines after it, up to
    the next `$ ` line or the end of the block, are its expected output
    (stdout and stderr combined).
  - A command line ending in ` \\` continues on the next line.
  - A command must exit with status 0, unless its line ends with the shell
    comment `# exit status N` (then it must exit with N).
  - Commands run with `/bin/sh` (so pipes and quotes work as in a shell),
    from the repository root, with the build's bin directory and LLVM 22's
    first on PATH, so `tessera-opt` is the tool just built.
  - Output is compared line by line after removing trailing whitespace and
    leading and trailing blank lines; everything else must match exactly.

  Every `$ ` block is run: to show a command that must not run here (set-up
  steps such as `make check`), write it without the `$ ` prompt, usually in
  a ```sh block.

Example blocks: a fenced block right after the marker

  <!-- example: examples/mlp.mlir -->
  ```mlir
  ...                      the block must equal the file's contents
  ```

  must equal that file (trailing whitespace and leading and trailing blank
  lines ignored), and the file's path must appear in the page's visible
  text (in the prose or in a `$ ` command that uses it). This is the one
  hidden marker, kept because it then hides nothing a reader needs: the
  block shows the whole file and the page names it, and Markdown has no
  visible place for a block's file name that renders everywhere.

The old hidden command marker (an HTML comment naming the command before
a block of output) is no longer accepted: it is reported as a failure, so
that no command is left hidden or unchecked.

The last line printed is `checked N blocks, F failures`; the exit status is
1 if F > 0.
"""

import argparse
import os
import re
import subprocess
import sys

EXAMPLE = re.compile(r"^\s*<!--\s*example:\s*(.*?)\s*-->\s*$")
# The old hidden command marker, `<!-- command: ... -->` or
# `<!-- command(exit=N): ... -->`, reported so that nothing stays unchecked.
OLD_COMMAND = re.compile(r"^\s*<!--\s*command\b")
FENCE = re.compile(r"^(\s*)(```+|~~~+)(.*)$")
EXIT = re.compile(r"^(.*?)\s+#\s*exit status\s+(\d+)\s*$")
PROMPT = "$ "


def read_fence(lines, i):
    """Returns (body lines, index after the closing fence) of the fence that
    opens at lines[i], or None if lines[i] opens no fence."""
    m = FENCE.match(lines[i])
    if not m:
        return None
    indent, fence = m.group(1), m.group(2)
    body = []
    i += 1
    while i < len(lines):
        close = FENCE.match(lines[i])
        if (close and close.group(2).startswith(fence[0] * len(fence))
                and not close.group(3).strip()):
            return body, i + 1
        line = lines[i]
        body.append(line[len(indent):] if line.startswith(indent) else line)
        i += 1
    return body, i


def parse_commands(body):
    """Splits a command block (its first line starts with the prompt) into
    [(command, exit code, expected output)]; returns a string (the problem)
    if the block is malformed."""
    commands = []
    i = 0
    while i < len(body):
        # body[i] starts with the prompt: the block's first line does, and
        # the loop below stops at the next one.
        text = body[i][len(PROMPT):]
        i += 1
        while text.endswith("\\") and i < len(body):
            text = text[:-1].rstrip() + " " + body[i].strip()
            i += 1
        exit_code = 0
        m = EXIT.match(text)
        if m:
            text, exit_code = m.group(1), int(m.group(2))
        text = text.strip()
        if not text:
            return "a `$ ` line without a command"
        output = []
        while i < len(body) and not body[i].startswith(PROMPT):
            output.append(body[i])
            i += 1
        commands.append((text, exit_code, "\n".join(output)))
    return commands


def blocks(lines):
    """Yields (line number, kind, argument, block body) for every checked
    block; kind is "example", "command" or "error" (argument: the
    problem)."""
    i = 0
    while i < len(lines):
        m = EXAMPLE.match(lines[i])
        if m:
            start = i
            fence = read_fence(lines, i + 1) if i + 1 < len(lines) else None
            if fence is None:
                yield start + 1, "error", "example marker not followed by a fenced block", None
                i += 1
                continue
            body, i = fence
            yield start + 1, "example", m.group(1), "\n".join(body)
            continue
        if OLD_COMMAND.match(lines[i]):
            yield i + 1, "error", ("hidden command marker: show the "
                                   "command in the page instead, as a "
                                   "`$ ` line of a fenced block"), None
            i += 1
            continue
        fence = read_fence(lines, i)
        if fence is None:
            i += 1
            continue
        start = i
        body, i = fence
        if body and body[0].startswith(PROMPT):
            yield start + 1, "command", None, body


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
            for dirpath, dirnames, files in os.walk(full):
                dirnames.sort()
                for name in sorted(files):
                    if name.endswith(".md"):
                        docs.append(os.path.relpath(os.path.join(dirpath, name),
                                                    args.root))
        else:
            docs.append(doc)

    env = dict(os.environ)
    env["PATH"] = (os.path.abspath(args.bin) + os.pathsep + "/usr/lib/llvm-22/bin"
                   + os.pathsep + env.get("PATH", ""))
    failures = 0
    checked = 0
    for doc in docs:
        path = os.path.join(args.root, doc)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        # What a reader sees: everything but the example markers.
        visible = "\n".join(line for line in lines if not EXAMPLE.match(line))
        for line, kind, arg, body in blocks(lines):
            where = f"{doc}:{line}"
            if kind == "error":
                print(f"{where}: {arg}")
                failures += 1
                continue
            checked += 1
            if kind == "example":
                try:
                    with open(os.path.join(args.root, arg), encoding="utf-8") as f:
                        expected = f.read()
                except OSError as e:
                    print(f"{where}: cannot read {arg}: {e.strerror}")
                    failures += 1
                    continue
                if normalize(body) != normalize(expected):
                    print(f"{where}: block differs from {arg}")
                    failures += 1
                elif arg not in visible:
                    print(f"{where}: the page never names {arg}, the file "
                          f"the block shows")
                    failures += 1
                continue
            commands = parse_commands(body)
            if isinstance(commands, str):
                print(f"{where}: {commands}")
                failures += 1
                continue
            for command, exit_code, expected in commands:
                proc = subprocess.run(command, shell=True, cwd=args.root,
                                      env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True)
                if proc.returncode != exit_code:
                    print(f"{where}: `{command}` exited {proc.returncode}, "
                          f"expected {exit_code}\n{proc.stdout}")
                    failures += 1
                elif normalize(proc.stdout) != normalize(expected):
                    print(f"{where}: output of `{command}` differs from the "
                          f"block; actual output:\n{proc.stdout}")
                    failures += 1
    print(f"checked {checked} blocks, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
