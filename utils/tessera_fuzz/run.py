"""Invoking tessera-opt (verification) and tessera-run (--check), and
classifying the outcome: pass, rejected, mismatch or crash."""

import os
import re
import shutil
import subprocess
import tempfile
import threading
import time


CRASH_MARKERS = ['PLEASE submit a bug report', 'Stack dump:', 'Assertion',
                 'LLVM ERROR', 'UNREACHABLE', 'AddressSanitizer',
                 'UndefinedBehaviorSanitizer', 'runtime error:',
                 'Segmentation fault', 'terminate called', 'Aborted']
RUNTIME_FAILURE = 'the program failed on the emulated mesh'


def normalize_message(line):
    line = re.sub(r'^.*?:\d+:\d+: ', '', line.strip())
    line = re.sub(r'\d+', 'N', line)
    line = re.sub(r'"[^"]*"', '"A"', line)
    return line[:200]


def classify(rc, out, err, timed_out):
    """(class, signature, message)."""
    if timed_out:
        return 'crash', 'timeout', 'timeout'
    for m in CRASH_MARKERS:
        if m in err or m in out:
            line = next((l for l in (err + out).splitlines() if m in l), m)
            return 'crash', normalize_message(line), line.strip()
    if rc < 0:
        return 'crash', 'signal %d' % -rc, 'killed by signal %d' % -rc
    if RUNTIME_FAILURE in err:
        line = next(l for l in err.splitlines() if RUNTIME_FAILURE in l)
        return 'crash', 'runtime failure', line.strip()
    if rc == 0:
        if re.search(r'^check: all \d+ results match', out, re.M):
            return 'pass', '', ''
        return 'crash', 'exit 0 without a check result', 'exit 0 without a check result'
    if rc == 1:
        if 'check: FAILED' in out or 'MISMATCH' in out:
            line = next((l for l in out.splitlines() if 'MISMATCH' in l), 'check: FAILED')
            return 'mismatch', 'mismatch', line.strip()
        if 'differs between device' in err:
            line = next(l for l in err.splitlines() if 'differs between device' in l)
            return 'mismatch', 'devices differ', line.strip()
        errors = [l for l in err.splitlines() if 'error:' in l]
        if errors:
            specific = [l for l in errors if 'see the errors above' not in l]
            line = (specific or errors)[0]
            return 'rejected', normalize_message(line), line.strip()
    return 'crash', 'exit %d' % rc, 'unexpected exit status %d' % rc


def run_tool(cmd, timeout):
    """subprocess.run that waits for a tool being rebuilt (missing, not yet
    executable or busy) for up to ten minutes instead of failing."""
    waited = 0
    while True:
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True, errors='replace',
                               timeout=timeout)
            # A wrapper script's exec of a missing or busy binary.
            if p.returncode not in (126, 127) or waited >= 600 or not re.search(
                    r'Permission denied|not found|Text file busy|No such file', p.stderr):
                return p
        except OSError:
            if waited >= 600:
                raise
        time.sleep(5)
        waited += 5


def internal_reason(msg, output, text):
    """Why a rejection looks like a compiler bug rather than a deliberate
    "not supported" diagnostic, or None."""
    if 'cannot build the single-device reference' in output:
        return 'the --check reference failed'
    if 'failed to legalize' in msg:
        return 'failed legalization'
    if 'cannot be converted to LLVM IR' in msg:
        return 'LLVM translation'
    if 'not supported' in msg or 'unsupported' in msg:
        return None
    m = re.search(r"error: '([a-z_]+\.[a-z_.]+)' op", msg)
    if m and m.group(1) + ' ' not in text and m.group(1) != 'func.func':
        return 'verifier error on an op the compiler created'
    return None


class Runner:
    def __init__(self, opts):
        self.opts = opts
        self.tmp = tempfile.mkdtemp(prefix='tessera-fuzz-')
        self.counter = 0
        self.lock = threading.Lock()

    def path(self, tag):
        with self.lock:
            self.counter += 1
            return os.path.join(self.tmp, '%s-%d.mlir' % (tag, self.counter))

    def run_args(self, prog, path, run_seed):
        o = self.opts
        axes = prog['mesh']['axes']
        sizes = prog['run_mesh'] or [s for _, s in axes]
        cmd = [o.tessera_run, path, '--mesh',
               ','.join('%s=%d' % (n, s) for (n, _), s in zip(axes, sizes)),
               '--random-inputs', '--seed', str(run_seed), '--check', '--stats']
        if o.scalar_loops:
            cmd.append('--scalar-loops')
        if o.rtol is not None:
            cmd += ['--rtol', str(o.rtol)]
        if o.atol is not None:
            cmd += ['--atol', str(o.atol)]
        cmd += o.run_arg
        return cmd

    def run(self, prog, text, run_seed, keep_path=None):
        path = keep_path or self.path('run')
        with open(path, 'w') as f:
            f.write(text)
        cmd = self.run_args(prog, path, run_seed)
        try:
            p = run_tool(cmd, self.opts.timeout)
            out = p.stdout.replace(path, 'FILE.mlir')
            err = p.stderr.replace(path, 'FILE.mlir')
            res = classify(p.returncode, out, err, False) + (out + err,)
        except subprocess.TimeoutExpired:
            res = classify(0, '', '', True) + ('timeout after %gs' % self.opts.timeout,)
        if not keep_path:
            os.unlink(path)
        return res

    def verify(self, texts):
        """Indices of the texts tessera-opt rejects, and its messages."""
        if not texts:
            return {}
        path = self.path('verify')
        starts, line = [], 1
        with open(path, 'w') as f:
            for i, t in enumerate(texts):
                if i:
                    f.write('// -----\n')
                    line += 1
                starts.append(line)
                f.write(t)
                line += t.count('\n')
        p = run_tool([self.opts.tessera_opt, '--split-input-file', path, '-o', os.devnull], 300)
        os.unlink(path)
        bad = {}
        if p.returncode == 0:
            return bad
        if p.returncode < 0 or any(m in p.stderr for m in CRASH_MARKERS):
            # tessera-opt itself crashed (its bug, not the generator's).
            line = next((l for l in p.stderr.splitlines()
                         if any(m in l for m in CRASH_MARKERS)), 'signal %d' % -p.returncode)
            return {i: 'tessera-opt crashed: ' + line.strip() for i in range(len(texts))}
        for m in re.finditer(r'^%s:(\d+):\d+: error: (.*)$' % re.escape(path), p.stderr, re.M):
            ln = int(m.group(1))
            idx = max(i for i, s in enumerate(starts) if s <= ln)
            bad.setdefault(idx, m.group(2))
        if not bad:  # a crash or an unlocated error: blame every text
            msg = (p.stderr.strip().splitlines() or ['exit %d' % p.returncode])[0]
            bad = {i: msg for i in range(len(texts))}
        return bad

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)
