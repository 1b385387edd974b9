//===- ParsedSource.cpp - A module parsed from text, diagnostics kept -----===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "ParsedSource.h"
#include "Compiler/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;

namespace quilt {

static DialectRegistry compilerRegistry() {
  DialectRegistry registry;
  registerCompilerDialects(registry);
  return registry;
}

ParsedSource::ParsedSource(std::string_view source, std::string_view name)
    : context(compilerRegistry()) {
  // A failing pass would otherwise print the whole (often huge, lowered)
  // operation under each error; the location says where.
  context.printOpOnDiagnostic(false);
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(source.data(), source.size()),
          llvm::StringRef(name.data(), name.size())),
      llvm::SMLoc());
  parsed = parseSourceFile<ModuleOp>(sourceMgr, &context);
}

} // namespace quilt
