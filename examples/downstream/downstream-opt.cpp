//===- downstream-opt.cpp - A downstream compiler's -opt tool -------------===//
//
// An example of a compiler built on an installed Quilt, in the style of
// buddy-opt: every upstream dialect and pass, Quilt's through its inline
// registration headers, and the compiler's own pipeline.
//
//===----------------------------------------------------------------------===//

#include "DownstreamPipeline.h"

#include "Quilt/InitAllDialects.h"
#include "Quilt/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();
  quilt::registerAllDialects(registry);
  quilt::registerAllPasses();
  downstream::registerDownstreamPipelines();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Downstream compiler driver (built on Quilt)\n", registry));
}
