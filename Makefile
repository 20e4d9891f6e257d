# Tessera: the two set-up commands.
#
#   make check   install what is missing, build, run every lit and unit test
#   make run     install what is missing, build, run the main example
#
# Other targets: build, deps, docs, bench, asan (ASan/UBSan build + tests),
# fuzz (libFuzzer targets, FUZZ_SECONDS per target), clean.

BUILD       ?= build
ASAN_BUILD  ?= build-asan
FUZZ_BUILD  ?= build-fuzz
FUZZ_SECONDS ?= 60
LLVM_PREFIX ?= /usr/lib/llvm-22
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
CC          := $(LLVM_PREFIX)/bin/clang
CXX         := $(LLVM_PREFIX)/bin/clang++

# Debian 12 packages Tessera needs (LLVM/MLIR 22 come from bookworm-security).
PACKAGES := cmake ninja-build python3 clang-22 lld-22 llvm-22-dev llvm-22-tools \
            libmlir-22-dev mlir-22-tools libzstd-dev libxxhash-dev libgtest-dev \
            libbenchmark-dev openmpi-bin libopenmpi-dev coinor-libcbc-dev

# Extra packages of the targets that need more than the build: clang's
# sanitizer and libFuzzer runtimes; GNU time for the benchmarks' peak memory.
ASAN_PACKAGES := libclang-rt-22-dev
FUZZ_PACKAGES := libclang-rt-22-dev
BENCH_PACKAGES := time libopenblas-dev

CMAKE_FLAGS := -G Ninja -DCMAKE_BUILD_TYPE=Release \
               -DCMAKE_C_COMPILER=$(CC) -DCMAKE_CXX_COMPILER=$(CXX) \
               -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
               -DLLVM_DIR=$(LLVM_PREFIX)/lib/cmake/llvm

.PHONY: all deps configure build check run docs bench asan fuzz clean

all: build

# Installs only what is missing; a no-op when everything is present.
deps:
	@missing=""; \
	for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" \
	    || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "tessera: installing missing packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q \
	    --no-install-recommends $$missing; \
	else \
	  echo "tessera: all required packages are installed"; \
	fi

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

check: build
	cmake --build $(BUILD) --target check-tessera -j $(JOBS)

run: build
	./examples/run-main-example.sh $(BUILD)

docs: configure
	cmake --build $(BUILD) --target mlir-doc

bench: build
	$(MAKE) deps PACKAGES="$(PACKAGES) $(BENCH_PACKAGES)"
	cmake --build $(BUILD) --target tessera-bench -j $(JOBS)
	./bench/run.sh $(BUILD)

# Builds everything with AddressSanitizer + UBSan and runs the whole suite.
# LLVM's allocators poison memory from header code inlined into our
# instrumented objects, while Debian's libMLIR.so (not instrumented) bumps
# through the same slabs without unpoisoning; allow_user_poisoning=0 turns
# that manual poisoning off so only real errors are reported.
ASAN_RUN_OPTIONS := allow_user_poisoning=0:detect_leaks=0:abort_on_error=1
UBSAN_RUN_OPTIONS := print_stacktrace=1:halt_on_error=1
asan:
	$(MAKE) deps PACKAGES="$(PACKAGES) $(ASAN_PACKAGES)"
	cmake -S . -B $(ASAN_BUILD) $(CMAKE_FLAGS) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DTESSERA_ENABLE_SANITIZERS=ON
	ASAN_OPTIONS=$(ASAN_RUN_OPTIONS) UBSAN_OPTIONS=$(UBSAN_RUN_OPTIONS) \
	  cmake --build $(ASAN_BUILD) --target check-tessera -j $(JOBS)

# Builds the fuzz targets with libFuzzer + ASan + UBSan (clang's runtime from
# libclang-rt-22-dev) and runs each for FUZZ_SECONDS over its corpus.
fuzz:
	$(MAKE) deps PACKAGES="$(PACKAGES) $(FUZZ_PACKAGES)"
	cmake -S . -B $(FUZZ_BUILD) $(CMAKE_FLAGS) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DTESSERA_ENABLE_SANITIZERS=ON -DTESSERA_ENABLE_FUZZERS=ON
	cmake --build $(FUZZ_BUILD) --target tessera-fuzzers -j $(JOBS)
	./utils/fuzz/run-fuzzers.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
