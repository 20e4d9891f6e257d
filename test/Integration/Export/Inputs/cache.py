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
import shutil
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

        def entry_size(rows, where):
            """The size of the entry a run with `rows` adds to `where`."""
            before = set(entries(where)[0])
            cmd = tool + [artifact, "--random-inputs",
                          "--input-shape", "0=%dx128" % rows, "--timing"]
            run(cmd, where)
            added = [n for n in entries(where)[0] if n not in before]
            return os.path.getsize(os.path.join(where, added[0]))

        # Three entries of the same program for three batch sizes. Their
        # sizes differ with the host (the code for each shape), so the
        # bound is computed from the sizes themselves.
        size = {rows: entry_size(rows, d) for rows in (4, 8, 12)}
        print("stored %d entries" % len(entries(d)[0]))
        # The size of batch 16's entry, measured in a cache of its own.
        probe = d + ".probe"
        shutil.rmtree(probe, ignore_errors=True)
        size[16] = entry_size(16, probe)
        # Room for batches 4, 12 and 16 and half of batch 8's entry: when
        # batch 16 is stored, exactly one entry (the least recently used,
        # batch 8) must go. (That the three first entries fit needs only
        # size[8] // 2 <= size[16]: the entries are of the same program.)
        bound = size[4] + size[12] + size[16] + size[8] // 2
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
