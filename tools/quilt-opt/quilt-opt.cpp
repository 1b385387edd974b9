//===- quilt-opt.cpp - Quilt's mlir-opt style driver ----------------------===//
//
// Part of the Quilt project. Every upstream dialect, extension and pass, plus
// Quilt's, registered the same way a downstream compiler would.
//
//===----------------------------------------------------------------------===//

#include "Quilt/InitAllDialects.h"
#include "Quilt/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates kernels to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllPasses();
  quilt::registerAllDialects(registry);
  quilt::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Quilt optimizer driver\n", registry));
}
