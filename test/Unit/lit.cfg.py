# -*- Python -*-
# lit configuration for Tessera's GoogleTest binaries: every executable
# ending in "Tests" under <build>/unittests is a test suite.

import os

import lit.formats

config.name = "Tessera-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.tessera_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

# Sanitizer builds (make asan) pass their runtime options through.
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# The execution library's compiled-code cache lives in the build tree, never
# in the user's ~/.cache (tests of the cache use their own directories).
config.environment["TESSERA_CACHE_DIR"] = os.path.join(
    config.tessera_obj_root, "unittests", "tessera-cache")
