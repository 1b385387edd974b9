//===- ParsedSource.h - A module parsed from text, diagnostics kept -*- C++ -*-===//
//
// Part of the Quilt project. Compiling and running pipelines both parse
// text in a fresh context and return every diagnostic (parse, verify,
// passes) as the caller's error text instead of printing it.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_LIB_COMPILER_PARSEDSOURCE_H
#define QUILT_LIB_COMPILER_PARSEDSOURCE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <string_view>

namespace quilt {

class ParsedSource {
public:
  /// Parses `source` (called `name` in diagnostics) with every upstream and
  /// Quilt dialect available.
  ParsedSource(std::string_view source, std::string_view name);

  /// The module, or null when the source did not parse.
  mlir::ModuleOp module() { return parsed.get(); }
  mlir::MLIRContext &getContext() { return context; }
  /// Where later steps report, so their messages join the error text too.
  llvm::raw_ostream &diagnosticStream() { return stream; }
  /// Everything reported so far, or `fallback` when nothing was.
  std::string error(std::string fallback) const {
    return diagnostics.empty() ? std::move(fallback) : diagnostics;
  }

private:
  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  std::string diagnostics;
  llvm::raw_string_ostream stream{diagnostics};
  mlir::SourceMgrDiagnosticHandler handler{sourceMgr, &context, stream};
  mlir::OwningOpRef<mlir::ModuleOp> parsed;
};

} // namespace quilt

#endif // QUILT_LIB_COMPILER_PARSEDSOURCE_H
