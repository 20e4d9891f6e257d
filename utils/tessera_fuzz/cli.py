"""tessera-fuzz-partition: a randomized differential tester for tessera-run.

The command line (argparse) and main(); utils/tessera-fuzz-partition calls
main(). The first paragraph above is the --help description.
"""

import argparse
import os
import shutil
import sys

from .fuzzer import Fuzzer
from .generate import WINDOWED_RATE, generate
from .render import render


def default_tool(name):
    # build/bin of the repository holding utils/tessera-fuzz-partition
    # (utils/tessera_fuzz/../../build/bin).
    here = os.path.dirname(os.path.abspath(__file__))
    cand = os.path.join(here, '..', '..', 'build', 'bin', name)
    if os.path.exists(cand):
        return os.path.normpath(cand)
    return shutil.which(name) or name


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=1, help='the sample (default 1)')
    ap.add_argument('--count', type=int, default=100, help='programs to generate (default 100)')
    ap.add_argument('--start', type=int, default=0, help='the first program index (default 0)')
    ap.add_argument('--index', type=int, help='only program INDEX of the seed')
    ap.add_argument('--jobs', '-j', type=int, default=1, help='parallel runs (default 1)')
    ap.add_argument('--out-dir', help='where failing programs (shrunk and original) go')
    ap.add_argument('--keep', action='store_true',
                    help='also keep every generated program in OUT_DIR/programs')
    ap.add_argument('--timeout', type=float, default=120,
                    help='seconds per tessera-run (default 120); a timeout is a crash')
    ap.add_argument('--tessera-run', default=default_tool('tessera-run'))
    ap.add_argument('--tessera-opt', default=default_tool('tessera-opt'))
    ap.add_argument('--max-ops', type=int, default=8, help='top-level ops per program (default 8)')
    ap.add_argument('--windowed', type=float, default=WINDOWED_RATE, metavar='RATE',
                    help='the share of programs that also get a convolution or pooling '
                    '(default %g)' % WINDOWED_RATE)
    ap.add_argument('--scalar-loops', action='store_true', help='pass --scalar-loops to tessera-run')
    ap.add_argument('--rtol', type=float, help='pass --rtol to tessera-run')
    ap.add_argument('--atol', type=float, help='pass --atol to tessera-run')
    ap.add_argument('--run-arg', action='append', default=[],
                    help='an extra tessera-run argument (repeatable)')
    ap.add_argument('--no-verify', dest='verify', action='store_false',
                    help='do not verify programs with tessera-opt first')
    ap.add_argument('--max-shrink', type=int, default=5,
                    help='shrink at most this many failures (default 5)')
    ap.add_argument('--shrink-tests', type=int, default=500,
                    help='tessera-run calls per shrink at most (default 500)')
    ap.add_argument('--shrink-seconds', type=float, default=600,
                    help='time per shrink at most (default 600)')
    ap.add_argument('--shrink-rejected', metavar='REGEX',
                    help='also shrink (and write) the rejected programs whose message matches '
                         'REGEX; they still count as rejected')
    ap.add_argument('--strict', action='store_true',
                    help='count rejections that look like compiler bugs (marked [internal?]) '
                         'as crashes')
    ap.add_argument('--inject-failure', action='append', default=[], metavar='REGEX',
                    help='instead of running tessera-run, treat the programs whose text '
                         'matches every REGEX as mismatches (tests the shrinker)')
    ap.add_argument('--print', dest='print_only', action='store_true',
                    help='print the programs and exit')
    ap.add_argument('--top', type=int, default=10, help='rejection messages to list (default 10)')
    ap.add_argument('--chunk', type=int, default=20, help=argparse.SUPPRESS)
    ap.add_argument('--verbose', '-v', action='store_true', help='one line per program')
    o = ap.parse_args(argv)
    if o.print_only:
        indices = [o.index] if o.index is not None else range(o.start, o.start + o.count)
        for i in indices:
            print(render(generate(o.seed, i, o.max_ops, o.windowed),
                         ['tessera-fuzz-partition --seed %d --index %d' % (o.seed, i)]))
        return 0
    if o.keep:
        if not o.out_dir:
            ap.error('--keep needs --out-dir')
        os.makedirs(os.path.join(o.out_dir, 'programs'), exist_ok=True)
    for tool in ([o.tessera_opt] if o.verify else []) + ([] if o.inject_failure else [o.tessera_run]):
        if not (os.path.exists(tool) or shutil.which(tool)):
            ap.error('cannot find %s (use --tessera-run/--tessera-opt)' % tool)
    return Fuzzer(o).main()
