#===- AddTessera.cmake - thin CMake helpers for Tessera -------------------===#
#
# Every Tessera library is a static archive that links the shared libMLIR.so
# (imported target `MLIR`), so tools link MLIR exactly once. Libraries record
# themselves in global properties; tools take their link lists from there and
# never keep them by hand.
#
#===----------------------------------------------------------------------===#

# Precompiled headers: with TESSERA_PRECOMPILED_HEADERS (the default), one
# precompiled header of the upstream headers most sources include
# (cmake/pch/TesseraPrecompiled.h) is built once and reused by every
# MLIR-based library, tool and unit test, which roughly halves their compile
# times. The targets reuse it only where their compile flags equal its own.
function(tessera_add_precompiled_headers_target)
  if(NOT TESSERA_PRECOMPILED_HEADERS)
    return()
  endif()
  add_library(TesseraPrecompiled OBJECT
    ${PROJECT_SOURCE_DIR}/cmake/pch/TesseraPrecompiled.cpp)
  target_precompile_headers(TesseraPrecompiled PRIVATE
    ${PROJECT_SOURCE_DIR}/cmake/pch/TesseraPrecompiled.h)
  target_compile_features(TesseraPrecompiled PUBLIC cxx_std_17)
endfunction()

# tessera_use_precompiled_headers(<target>)
function(tessera_use_precompiled_headers name)
  if(TESSERA_PRECOMPILED_HEADERS)
    target_precompile_headers(${name} REUSE_FROM TesseraPrecompiled)
  endif()
endfunction()

# tessera_use_unity_build(<target>): with TESSERA_UNITY_BUILD, the target's
# sources are compiled in batches (see the option in the top-level
# CMakeLists.txt).
function(tessera_use_unity_build name)
  if(TESSERA_UNITY_BUILD)
    set_target_properties(${name} PROPERTIES UNITY_BUILD ON
                          UNITY_BUILD_BATCH_SIZE ${TESSERA_UNITY_BUILD_BATCH_SIZE})
  endif()
endfunction()

# tessera_compile_as_test_code(<target>): test-only code (unit tests, the
# corpus-replaying fuzz drivers) is compiled without optimization, unless
# TESSERA_OPTIMIZE_TESTS is ON. The code under test lives in the libraries
# and keeps the build's optimization level; what this saves is the
# optimizer's time on GoogleTest's macro-generated bodies, most of those
# binaries' compile time. Such a target cannot take the precompiled header
# (built optimized), so it parses its headers itself, once per unity unit.
function(tessera_compile_as_test_code name)
  if(NOT TESSERA_OPTIMIZE_TESTS)
    target_compile_options(${name} PRIVATE -O0)
  endif()
endfunction()

# tessera_add_library(<name> <sources>... [DEPENDS <targets>...]
#                     [LINK_LIBS <libs>...] [KIND dialect|pass|conversion|core]
#                     [NO_MLIR])
#
# NO_MLIR: a library that must not see MLIR's IR (it does not take the
# precompiled MLIR headers).
#
# Every library is installed and exported as `Tessera::<name without the
# Tessera prefix>` (TesseraSpmdDialect -> Tessera::SpmdDialect) in the
# TesseraTargets export set that TesseraConfig.cmake loads.
function(tessera_add_library name)
  cmake_parse_arguments(ARG "NO_MLIR" "KIND" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  if(NOT ARG_NO_MLIR)
    tessera_use_precompiled_headers(${name})
  endif()
  tessera_use_unity_build(${name})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  target_compile_features(${name} PUBLIC cxx_std_17)
  if(TESSERA_ENABLE_SANITIZERS)
    # Consumers of a sanitized build link the sanitizer runtimes too.
    target_link_options(${name} INTERFACE -fsanitize=address,undefined)
  endif()
  string(REGEX REPLACE "^Tessera" "" export_name ${name})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${export_name})
  install(TARGETS ${name} EXPORT TesseraTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  set_property(GLOBAL APPEND PROPERTY TESSERA_EXPORTED_TARGETS ${export_name})
  if(NOT ARG_KIND)
    set(ARG_KIND core)
  endif()
  set_property(GLOBAL APPEND PROPERTY TESSERA_ALL_LIBS ${name})
  if(ARG_KIND STREQUAL "dialect")
    set_property(GLOBAL APPEND PROPERTY TESSERA_DIALECT_LIBS ${name})
  elseif(ARG_KIND STREQUAL "pass")
    set_property(GLOBAL APPEND PROPERTY TESSERA_PASS_LIBS ${name})
  elseif(ARG_KIND STREQUAL "conversion")
    set_property(GLOBAL APPEND PROPERTY TESSERA_CONVERSION_LIBS ${name})
  endif()
endfunction()

# tessera_add_dialect_library(<name> ...): a library that defines a dialect.
function(tessera_add_dialect_library name)
  tessera_add_library(${name} ${ARGN} KIND dialect)
endfunction()

# tessera_add_pass_library(<name> ...): a library of passes.
function(tessera_add_pass_library name)
  tessera_add_library(${name} ${ARGN} KIND pass)
endfunction()

# tessera_add_tool(<name> <sources>... [LINK_LIBS <libs>...])
function(tessera_add_tool name)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  tessera_use_precompiled_headers(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS} MLIR LLVM)
  install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set_property(GLOBAL APPEND PROPERTY TESSERA_TOOLS ${name})
endfunction()

# tessera_add_unittest(<name> <sources>... [LINK_LIBS <libs>...] [NO_MLIR])
# Builds a GoogleTest binary in ${CMAKE_BINARY_DIR}/unittests/<subdir>; the
# test/Unit lit suite discovers every binary whose name ends in "Tests".
function(tessera_add_unittest name)
  cmake_parse_arguments(ARG "NO_MLIR" "" "LINK_LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  if(TESSERA_OPTIMIZE_TESTS AND NOT ARG_NO_MLIR)
    tessera_use_precompiled_headers(${name})
  endif()
  tessera_compile_as_test_code(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS} GTest::gtest
                        GTest::gtest_main)
  # A unit test binary is compiled as one translation unit per language
  # (CMake's unity build): its files share gtest's and MLIR's headers.
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                        ${CMAKE_BINARY_DIR}/unittests UNITY_BUILD ON
                        UNITY_BUILD_BATCH_SIZE 0)
  set_property(GLOBAL APPEND PROPERTY TESSERA_UNITTESTS ${name})
endfunction()

# tessera_add_doc(<td-file-stem> <output-name> <command>...): generated docs
# under ${CMAKE_BINARY_DIR}/docs, built by the `mlir-doc` target.
function(tessera_add_doc td out)
  add_mlir_doc(${td} ${out} Dialects/ ${ARGN})
endfunction()
