"""The driver: generates, verifies, runs and classifies programs in chunks
(in parallel with --jobs), shrinks and writes failures, prints the
summary."""

import collections
import concurrent.futures
import os
import re
import shlex
import threading
import time

from .generate import WINDOWED_RATE, generate
from .ir import Invalid, count_ops
from .render import render
from .run import Runner, internal_reason
from .shrink import canonical_names, shrink


def run_seed_of(seed, index):
    return (seed * 1000003 + index) % (2 ** 31)


class Fuzzer:
    def __init__(self, opts):
        self.opts = opts
        self.runner = Runner(opts)
        self.lock = threading.Lock()
        self.results = {}
        self.collectives = {}
        self.shrunk = 0
        self.inject = [re.compile(r) for r in opts.inject_failure]

    def log(self, msg):
        with self.lock:
            print(msg, flush=True)

    def evaluate(self, prog, text, run_seed, keep_path=None):
        if self.inject:
            if all(r.search(text) for r in self.inject):
                if self.runner.verify([text]):
                    return 'rejected', 'invalid', 'invalid', ''
                return 'mismatch', 'injected', 'injected failure', ''
            return 'pass', '', '', ''
        cls, sig, msg, output = self.runner.run(prog, text, run_seed, keep_path)
        if cls == 'rejected':
            why = internal_reason(msg, output, text)
            if why and self.opts.strict:
                return 'crash', 'internal: ' + sig, msg, output
            if why:
                sig += '  [internal? %s]' % why
        return cls, sig, msg, output

    def header(self, index, extra=()):
        line = 'tessera-fuzz-partition --seed %d --index %d --max-ops %d' % (
            self.opts.seed, index, self.opts.max_ops)
        if self.opts.windowed != WINDOWED_RATE:
            line += ' --windowed %g' % self.opts.windowed
        return [line] + list(extra)

    def process_chunk(self, indices):
        o = self.opts
        progs, texts = {}, {}
        for i in indices:
            try:
                progs[i] = generate(o.seed, i, o.max_ops, o.windowed)
                texts[i] = render(progs[i], self.header(i))
            except Exception as e:  # a generator bug
                progs.pop(i, None)
                self.record(i, 'invalid', 'generator: %s: %s' % (type(e).__name__, e), '')
        order = [i for i in indices if i in texts]
        bad = self.runner.verify([texts[i] for i in order]) if o.verify else {}
        if len(bad) > 1 or (bad and len(order) > 1):
            # Confirm one by one (one bad program blames its neighbours
            # when tessera-opt stops early).
            bad = {}
            for k, i in enumerate(order):
                b = self.runner.verify([texts[i]])
                if b:
                    bad[k] = b[0]
        for k, i in enumerate(order):
            if k in bad and bad[k].startswith('tessera-opt crashed'):
                self.log('CRASH: program %d (seed %d): %s' % (i, o.seed, bad[k]))
                if o.out_dir:
                    os.makedirs(o.out_dir, exist_ok=True)
                    with open(os.path.join(o.out_dir, 'opt-crash-s%d-%d.mlir' % (o.seed, i)),
                              'w') as f:
                        f.write(texts[i])
                self.record(i, 'crash', bad[k], texts[i])
                continue
            if k in bad:
                self.record(i, 'invalid', 'tessera-opt: ' + bad[k], texts[i])
                continue
            keep = None
            if o.keep:
                keep = os.path.join(o.out_dir, 'programs', 'p%d-%d.mlir' % (o.seed, i))
            cls, sig, msg, output = self.evaluate(progs[i], texts[i], run_seed_of(o.seed, i), keep)
            if cls in ('mismatch', 'crash') or (
                    cls == 'rejected' and o.shrink_rejected and re.search(o.shrink_rejected, msg)):
                self.failure(i, progs[i], texts[i], cls, sig, msg, output)
            if cls == 'pass':
                calls = sum(int(m.group(1)) for m in re.finditer(
                    r'^stats: +\d+ +[\d.]+ \w+ +(\d+) ', output, re.M))
                with self.lock:
                    self.collectives[i] = calls
            self.record(i, cls, msg if cls != 'rejected' else sig, texts[i])

    def record(self, i, cls, msg, text):
        with self.lock:
            self.results[i] = (cls, msg)
            if self.opts.verbose:
                print('program %d: %s%s' % (i, cls, (': ' + msg) if msg else ''), flush=True)
            if cls == 'invalid':
                print('INVALID program %d (a generator bug): %s' % (i, msg), flush=True)
                if self.opts.out_dir:
                    os.makedirs(self.opts.out_dir, exist_ok=True)
                    with open(os.path.join(self.opts.out_dir, 'invalid-s%d-%d.mlir'
                                           % (self.opts.seed, i)), 'w') as f:
                        f.write(text)

    def failure(self, i, prog, text, cls, sig, msg, output):
        o = self.opts
        self.log('%s: program %d (seed %d): %s' % (cls.upper(), i, o.seed, msg))
        if not o.out_dir:
            return
        os.makedirs(o.out_dir, exist_ok=True)
        base = os.path.join(o.out_dir, '%s-s%d-%d' % (cls, o.seed, i))
        rs = run_seed_of(o.seed, i)

        def header(p, path, note, msg, output):
            cmd = [c for c in self.runner.run_args(p, path, rs) if c != '--stats']
            cmd[0] = 'tessera-run'
            hdr = ['%s (seed %d, program %d)%s: %s' % (cls, o.seed, i, note, msg),
                   'reproduce: ' + ' '.join(shlex.quote(c) for c in cmd)]
            lines = [l for l in output.strip().splitlines() if not l.startswith('stats:')]
            return hdr + ['| ' + l for l in lines[:12]]

        with open(base + '.orig.mlir', 'w') as f:
            f.write(render(prog, self.header(i, header(prog, base + '.orig.mlir', '', msg,
                                                            output))))
        with self.lock:
            do_shrink = self.shrunk < o.max_shrink
            self.shrunk += 1
        if not do_shrink:
            self.log('  written %s.orig.mlir (not shrunk: --max-shrink)' % base)
            return

        def interesting(c):
            try:
                t = render(c)
            except Invalid:
                return False
            c2, s2, _, _ = self.evaluate(c, t, rs)
            return c2 == cls and s2 == sig
        small, tests = shrink(prog, interesting, o.shrink_tests,
                              time.time() + o.shrink_seconds)
        small = canonical_names(small)
        _, _, msg2, out2 = self.evaluate(small, render(small), rs)
        note = ', shrunk from %d ops to %d in %d tests' % (count_ops(prog), count_ops(small), tests)
        os.makedirs(o.out_dir, exist_ok=True)
        with open(base + '.mlir', 'w') as f:
            f.write(render(small, self.header(i, header(small, base + ".mlir", note, msg2 or msg, out2))))
        self.log('  written %s.mlir (%d ops, shrunk in %d tests)' % (base, count_ops(small), tests))

    def main(self):
        o = self.opts
        indices = [o.index] if o.index is not None else list(range(o.start, o.start + o.count))
        chunks = [indices[k:k + o.chunk] for k in range(0, len(indices), o.chunk)]
        t0 = time.time()
        try:
            if o.jobs <= 1:
                for ch in chunks:
                    self.process_chunk(ch)
            else:
                with concurrent.futures.ThreadPoolExecutor(o.jobs) as ex:
                    for f in [ex.submit(self.process_chunk, ch) for ch in chunks]:
                        f.result()
        finally:
            self.runner.cleanup()
        counts = collections.Counter(c for c, _ in self.results.values())
        rejections = collections.Counter(m for c, m in self.results.values() if c == 'rejected')
        example = {}
        for i in sorted(self.results):
            example.setdefault(self.results[i][1], i)
        if rejections:
            print('rejections (%d distinct):' % len(rejections))
            for m, n in rejections.most_common(o.top):
                print('  %5d  %s  (e.g. --index %d)' % (n, m, example[m]))
        if counts['invalid']:
            print('%d invalid programs (generator bugs)' % counts['invalid'])
        if self.collectives:
            print('collectives: %d of %d passing programs called collectives (%d calls '
                  'over all devices)' % (sum(1 for c in self.collectives.values() if c),
                                         len(self.collectives), sum(self.collectives.values())))
        print('time: %.1f s' % (time.time() - t0))
        print('%d programs: %d passed, %d rejected, %d mismatches, %d crashes'
              % (len(self.results), counts['pass'], counts['rejected'],
                 counts['mismatch'], counts['crash']))
        return 1 if counts['mismatch'] or counts['crash'] or counts['invalid'] else 0
