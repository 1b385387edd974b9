//===- RunPipeline.cpp - Run a quilt-opt pipeline on source text ----------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Compiler/RunPipeline.h"
#include "Compiler/Registration.h"
#include "ParsedSource.h"

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
  ParsedSource parsed(source, sourceName);
  auto fail = [&](std::string fallback) {
    result.error = parsed.error(std::move(fallback));
    return result;
  };
  ModuleOp module = parsed.module();
  if (!module)
    return fail("cannot parse the input");

  // The anchored form names the op the pipeline runs on; parsing it into an
  // OpPassManager (not into a PassManager, which would nest a second
  // `builtin.module` under the first) keeps quilt-opt's meaning.
  llvm::StringRef text(pipeline.data(), pipeline.size());
  FailureOr<OpPassManager> pipelineParsed = parsePassPipeline(text, parsed.diagnosticStream());
  if (failed(pipelineParsed))
    return fail("cannot parse the pass pipeline '" + text.str() + "'");
  PassManager pm(&parsed.getContext(), pipelineParsed->getOpAnchorName());
  static_cast<OpPassManager &>(pm) = std::move(*pipelineParsed);
  if (failed(pm.run(module)))
    return fail("the pipeline '" + text.str() + "' failed");

  llvm::raw_string_ostream os(result.artifact);
  module.print(os);
  return result;
}

} // namespace quilt
