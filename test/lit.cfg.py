# -*- Python -*-
# lit configuration for Tessera's FileCheck tests.

import os

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Tessera"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tessera_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "README.txt", "lit.cfg.py",
                   "lit.site.cfg.py", "Unit"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%examples", os.path.join(
    config.tessera_src_root, "examples")))
config.substitutions.append(("%tessera_src_root", config.tessera_src_root))
config.substitutions.append(("%tessera_tools_dir", config.tessera_tools_dir))
config.substitutions.append(("%tessera_obj_root", config.tessera_obj_root))
# The per-input alarm of the fuzz targets' corpus replay (test/Fuzz): it
# catches hangs. The slowest corpus input takes about 1 s in a release build
# and 7-10 s under AddressSanitizer + UBSan (make asan), which a loaded
# machine can stretch past 20 s, so sanitizer builds allow 120 s.
config.substitutions.append(
    ("%fuzz_timeout",
     "120" if getattr(config, "tessera_sanitizers", False) else "20"))
config.substitutions.append(("%c_compiler", config.c_compiler))
config.substitutions.append(("%cxx_compiler", config.cxx_compiler))
config.substitutions.append(("%mlir_runner_utils", os.path.join(
    os.path.dirname(config.llvm_tools_dir), "lib", "libmlir_c_runner_utils.so")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "ASAN_OPTIONS", "UBSAN_OPTIONS"])
llvm_config.use_default_substitutions()

# Tessera tools first, then FileCheck/not/count/split-file from LLVM 22.
tool_dirs = [config.tessera_tools_dir, config.llvm_tools_dir]
tools = ["tessera-opt", "tessera-poly", "tessera-export", "FileCheck", "not",
         "count", "split-file", "mlir-runner"]
llvm_config.add_tool_substitutions(
    [t for t in tools if lit.util.which(t, os.pathsep.join(tool_dirs))],
    tool_dirs)
# The tests check behaviour, not speed: the code tessera-run compiles is
# not optimized by LLVM (-O0: code generation is a quarter faster than at
# -O1, and results do not depend on the level). A test whose programs
# compute enough for unoptimized code to be slow asks for another level
# with its own --opt-level, which comes later and wins.
llvm_config.add_tool_substitutions(
    [ToolSubst("tessera-run", extra_args=["--opt-level=0"])], tool_dirs)
llvm_config.with_environment("PATH", config.tessera_tools_dir,
                             append_path=True)
# tessera-run's compiled-code cache lives in the build tree, never in the
# user's ~/.cache (tests of the cache itself use their own directories).
config.environment["TESSERA_CACHE_DIR"] = os.path.join(
    config.tessera_obj_root, "test", "tessera-cache")
config.environment.pop("TESSERA_CACHE_MAX_BYTES", None)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# MPI (test/Integration/Mpi): mpirun on this host, allowed to run as root
# (CI containers), with more processes than cores, without binding processes
# to cores (a process's device threads share the processors), over shared
# memory only, without mpirun's second of waiting before it kills the
# processes of a job one of which exited with an error, and with processes
# that yield the processor while they wait for a message instead of spinning
# (the tests run more processes than there are cores, and lit runs other
# tests beside them: spinning waiters made a 4-process run of the runtime's
# MPI tests take minutes instead of seconds).
for name, value in [("OMPI_ALLOW_RUN_AS_ROOT", "1"),
                    ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
                    ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
                    ("OMPI_MCA_hwloc_base_binding_policy", "none"),
                    ("OMPI_MCA_btl", "self,vader"),
                    ("OMPI_MCA_odls_base_sigkill_timeout", "0"),
                    ("OMPI_MCA_mpi_yield_when_idle", "1")]:
    config.environment[name] = value
config.substitutions.append(("%mpirun", "mpirun --oversubscribe"))
