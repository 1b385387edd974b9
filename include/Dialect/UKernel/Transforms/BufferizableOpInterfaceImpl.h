//===- BufferizableOpInterfaceImpl.h - ukernel bufferization ----*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_DIALECT_UKERNEL_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define QUILT_DIALECT_UKERNEL_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;

namespace ukernel {
/// Lets one-shot bufferization turn `ukernel.dispatch` on tensors into the
/// in-place form on memrefs.
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);
} // namespace ukernel
} // namespace mlir

#endif // QUILT_DIALECT_UKERNEL_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
