#!/bin/bash
#===- run-fuzzers.sh - run every Tessera fuzz target for a while -----------===#
#
# Usage: utils/fuzz/run-fuzzers.sh <fuzz-build-dir> <seconds-per-target> [target...]
#
# Runs each libFuzzer target (default: all of them) for the given time over
# its seed corpus (fuzz/corpus/<name>, read only) plus a working corpus in the
# build directory, with its dictionary and a per-input timeout of 30 s (a hang
# is a failure; the limit leaves room for ASan's and the coverage
# instrumentation's slowdown of inputs that take a fraction of a second in a
# release build). Crashing inputs land in <build>/fuzz-artifacts/<name>/; copy them
# into fuzz/corpus/<name>/ as crash-<what> once fixed, so `make check` keeps
# replaying them. Exits non-zero if any target found a crash, hang or
# sanitizer report.
#
#===------------------------------------------------------------------------===#
set -u
build=${1:?usage: run-fuzzers.sh <fuzz-build-dir> <seconds> [target...]}
seconds=${2:?usage: run-fuzzers.sh <fuzz-build-dir> <seconds> [target...]}
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(module attr symbolic-shape npy run-options artifact)
fi
# libMLIR.so is not instrumented; see the asan target in the Makefile.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0:detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
  bin="$build/bin/tessera-$t-fuzzer"
  if [ ! -x "$bin" ]; then
    echo "run-fuzzers: no fuzz target '$bin' (build with make fuzz)" >&2
    exit 2
  fi
  work="$build/fuzz-corpus/$t"
  artifacts="$build/fuzz-artifacts/$t/"
  mkdir -p "$work" "$artifacts"
  echo "== tessera-$t-fuzzer for ${seconds}s"
  "$bin" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
    -print_final_stats=1 -dict="$src/fuzz/dicts/$t.dict" \
    -artifact_prefix="$artifacts" "$work" "$src/fuzz/corpus/$t" \
    > "$build/fuzz-$t.log" 2>&1
  rc=$?
  grep -E "^(stat::number_of_executed_units|stat::new_units_added|#[0-9]+ *DONE)" \
    "$build/fuzz-$t.log" | sed 's/^/   /'
  if [ $rc -ne 0 ]; then
    echo "run-fuzzers: tessera-$t-fuzzer failed (exit $rc); see $build/fuzz-$t.log" >&2
    tail -30 "$build/fuzz-$t.log" >&2
    status=1
  fi
done
exit $status
