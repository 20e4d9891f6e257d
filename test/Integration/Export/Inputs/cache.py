#!/usr/bin/env python3
"""Drives tessera-run for the tests of the compiled-code cache.

  cache.py entries DIR
      the number of entries (*.tce) and of temporary files in DIR
  cache.py damage DIR flip|truncate
      flips a byte in the middle of every entry, or cuts it to half
  cache.py concurrent DIR N TESSERA-RUN ARGS...
      N runs at once with the cache in DIR: all must succeed and print the
      same results
  cache.py evict DIR ARTIFACT TESSERA-RUN...
      least recently used entries go first when the bound is reached
"""

import os
import subprocess
import sys


def entries(d):
    names = os.listdir(d) if os.path.isdir(d) else []
    tce = [n for n in names if n.endswith(".tce") and not n.startswith(".")]
    tmp = [n for n in names if n.startswith(".tmp-")]
    return sorted(tce), tmp


def run(cmd, cache, extra=()):
    env = dict(os.environ, TESSERA_CACHE_DIR=cache)
    proc = subprocess.run(list(cmd) + list(extra), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if proc.returncode != 0:
        sys.exit("cache.py: %s failed:\n%s" % (" ".join(cmd), proc.stdout))
    return proc.stdout


def results(output):
    return [l for l in output.splitlines() if l.startswith("result")]


def compile_line(output):
    """How the program was compiled: `cache hit`, `cache miss`, ..."""
    line = next(l for l in output.splitlines() if l.startswith("compile:"))
    return line[line.index("(") + 1:line.rindex(")")]


def main():
    what = sys.argv[1]
    if what == "entries":
        tce, tmp = entries(sys.argv[2])
        print("entries: %d, temporary files: %d" % (len(tce), len(tmp)))
    elif what == "damage":
        d, how = sys.argv[2], sys.argv[3]
        for name in entries(d)[0]:
            path = os.path.join(d, name)
            data = bytearray(open(path, "rb").read())
            if how == "flip":
                data[len(data) // 2] ^= 0x40
            else:
                data = data[: len(data) // 2]
            open(path, "wb").write(bytes(data))
        print("damaged %d entries" % len(entries(d)[0]))
    elif what == "concurrent":
        d, n, cmd = sys.argv[2], int(sys.argv[3]), sys.argv[4:]
        env = dict(os.environ, TESSERA_CACHE_DIR=d)
        procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
                 for _ in range(n)]
        outs = [p.communicate()[0] for p in procs]
        if any(p.returncode != 0 for p in procs):
            sys.exit("cache.py: a concurrent run failed:\n" + "\n".join(outs))
        same = all(results(o) == results(outs[0]) for o in outs)
        print("concurrent: %d runs succeeded, %s results" %
              (n, "the same" if same else "DIFFERENT"))
    elif what == "evict":
        d, artifact, tool = sys.argv[2], sys.argv[3], sys.argv[4:]

        def shape_run(rows, extra=()):
            cmd = tool + [artifact, "--random-inputs",
                          "--input-shape", "0=%dx128" % rows, "--timing"]
            return compile_line(run(cmd, d, extra))

        # Three entries of the same program for three batch sizes: about
        # the same size each.
        for rows in (4, 8, 12):
            shape_run(rows)
        tce, _ = entries(d)
        sizes = [os.path.getsize(os.path.join(d, n)) for n in tce]
        print("stored %d entries" % len(tce))
        # Room for two of them and a half.
        bound = 2 * max(sizes) + max(sizes) // 2
        # Batch 4 is used again: batch 8 is now the least recently used.
        print("rows 4: " + shape_run(4, ["--cache-max-bytes=%d" % bound]))
        print("rows 16: " + shape_run(16, ["--cache-max-bytes=%d" % bound]))
        tce, _ = entries(d)
        total = sum(os.path.getsize(os.path.join(d, n)) for n in tce)
        print("entries after the bound: %d, within it: %s" %
              (len(tce), total <= bound))
        for rows in (8, 12, 4, 16):
            print("rows %d: %s" % (rows, shape_run(rows)))


if __name__ == "__main__":
    main()
