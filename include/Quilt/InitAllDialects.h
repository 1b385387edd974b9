//===- InitAllDialects.h - Register Quilt's dialects ------------*- C++ -*-===//
//
// Part of the Quilt project. Inline so that any tool, Quilt's own or a
// downstream compiler's, registers exactly the same set.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_INITALLDIALECTS_H
#define QUILT_INITALLDIALECTS_H

#include "Dialect/UKernel/IR/UKernelDialect.h"
#include "Dialect/UKernel/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

namespace quilt {

inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::ukernel::UKernelDialect>();
  mlir::ukernel::registerBufferizableOpInterfaceExternalModels(registry);
}

} // namespace quilt

#endif // QUILT_INITALLDIALECTS_H
