//===- SpmdTestBase.h - fixture owning an MLIRContext ---------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_UNITTESTS_DIALECT_SPMD_SPMDTESTBASE_H
#define TESSERA_UNITTESTS_DIALECT_SPMD_SPMDTESTBASE_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"
#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <string>

namespace mlir::tessera::spmd {

/// A fixture with a context that has the spmd dialect loaded, and helpers to
/// build attributes from their textual form.
class SpmdTest : public ::testing::Test {
protected:
  SpmdTest() { context.loadDialect<SpmdDialect>(); }

  template <typename AttrT> AttrT parse(const std::string &text) {
    return llvm::dyn_cast_or_null<AttrT>(parseAttribute(text, &context));
  }

  MeshAttr mesh(const std::string &body) {
    return parse<MeshAttr>("#spmd.mesh" + body);
  }

  AxisRefAttr axis(llvm::StringRef name) {
    return AxisRefAttr::get(&context, name);
  }
  AxisRefAttr sub(llvm::StringRef name, int64_t preSize, int64_t size) {
    return AxisRefAttr::get(&context, name, preSize, size);
  }

  static std::string print(Attribute attr) {
    std::string s;
    llvm::raw_string_ostream os(s);
    attr.print(os);
    return s;
  }

  MLIRContext context;
};

} // namespace mlir::tessera::spmd

#endif // TESSERA_UNITTESTS_DIALECT_SPMD_SPMDTESTBASE_H
