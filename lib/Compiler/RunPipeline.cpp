//===- RunPipeline.cpp - Run a quilt-opt pipeline on source text ----------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Compiler/RunPipeline.h"
#include "Compiler/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace quilt {

CompileResult runPipelineOnSource(std::string_view source,
                                  std::string_view sourceName,
                                  std::string_view pipeline) {
  CompileResult result;
  registerCompilerPassesOnce();
  DialectRegistry registry;
  registerCompilerDialects(registry);
  MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(source.data(), source.size()),
          llvm::StringRef(sourceName.data(), sourceName.size())),
      llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagnosticStream);
  auto fail = [&](std::string fallback) {
    result.error = diagnostics.empty() ? std::move(fallback) : diagnostics;
    return result;
  };

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("cannot parse the input");

  // The anchored form names the op the pipeline runs on; parsing it into an
  // OpPassManager (not into a PassManager, which would nest a second
  // `builtin.module` under the first) keeps quilt-opt's meaning.
  llvm::StringRef text(pipeline.data(), pipeline.size());
  FailureOr<OpPassManager> parsed = parsePassPipeline(text, diagnosticStream);
  if (failed(parsed))
    return fail("cannot parse the pass pipeline '" + text.str() + "'");
  PassManager pm(&context, parsed->getOpAnchorName());
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  if (failed(pm.run(*module)))
    return fail("the pipeline '" + text.str() + "' failed");

  llvm::raw_string_ostream os(result.artifact);
  module->print(os);
  return result;
}

} // namespace quilt
