//===- UKernelDialect.cpp - The ukernel dialect ---------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Dialect/UKernel/IR/UKernelDialect.h"
#include "Dialect/UKernel/IR/UKernelAttrs.h"
#include "Dialect/UKernel/IR/UKernelOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::ukernel;

#include "Dialect/UKernel/IR/UKernelDialect.cpp.inc"

void UKernelDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "Dialect/UKernel/IR/UKernelOps.cpp.inc"
      >();
}

LogicalResult UKernelDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  if (attr.getName() == getTargetAttrName()) {
    if (!isa<TargetAttr>(attr.getValue()))
      return op->emitError() << "'" << getTargetAttrName()
                             << "' must be a #ukernel.target attribute, got "
                             << attr.getValue();
    return success();
  }
  if (attr.getName() == getTensorMapsAsParamsAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getTensorMapsAsParamsAttrName()
             << "' must be a unit attribute, got " << attr.getValue();
    if (!isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << getTensorMapsAsParamsAttrName()
                             << "' must be on a function";
    return success();
  }
  return op->emitError() << "unknown ukernel attribute '"
                         << attr.getName().getValue()
                         << "' (the dialect defines '" << getTargetAttrName()
                         << "' and '" << getTensorMapsAsParamsAttrName()
                         << "')";
}
