//===- Registration.cpp - What a Quilt compiler front end registers -------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Registration.h"
#include "Quilt/InitAllDialects.h"
#include "Quilt/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/TargetSelect.h"

#include <mutex>

namespace quilt {

void registerCompilerDialects(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  quilt::registerAllDialects(registry);
}

void registerCompilerPassesOnce() {
  // The pass and target registries are process-wide; pipelines must be
  // registered exactly once.
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::registerAllPasses();
    quilt::registerAllPasses();
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
}

} // namespace quilt
