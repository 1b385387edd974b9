//===- BufferizableOpInterfaceImpl.cpp - ukernel bufferization ------------===//
//
// Part of the Quilt project. `ukernel.dispatch` is destination-passing: its
// result is its `init` updated, so it bufferizes in place on init's buffer,
// reading lhs, rhs and bias.
//
//===----------------------------------------------------------------------===//

#include "Dialect/UKernel/Transforms/BufferizableOpInterfaceImpl.h"
#include "Dialect/UKernel/IR/UKernelOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::ukernel;

namespace {
struct DispatchOpInterface
    : public DstBufferizableOpInterfaceExternalModel<DispatchOpInterface,
                                                     DispatchOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto dispatch = cast<DispatchOp>(op);
    if (!dispatch.getResult())
      return success(); // Already on buffers.

    auto bufferOf = [&](Value value) -> FailureOr<Value> {
      if (!value)
        return Value();
      return getBuffer(rewriter, value, options, state);
    };
    FailureOr<Value> lhs = bufferOf(dispatch.getLhs());
    FailureOr<Value> rhs = bufferOf(dispatch.getRhs());
    FailureOr<Value> init = bufferOf(dispatch.getInit());
    FailureOr<Value> bias = bufferOf(dispatch.getBias());
    if (failed(lhs) || failed(rhs) || failed(init) || failed(bias))
      return failure();

    rewriter.setInsertionPoint(dispatch);
    auto onBuffers = DispatchOp::create(
        rewriter, dispatch.getLoc(), /*result=*/Type(),
        dispatch.getKindAttr(), *lhs, *rhs, *init, *bias,
        dispatch.getCandidatesAttr(), dispatch.getPolicyAttr(),
        dispatch.getFixedCandidateAttr(), dispatch.getEpilogueAttr(),
        dispatch.getTransposeLhsAttr(), dispatch.getTransposeRhsAttr(),
        dispatch.getStridesAttr(), dispatch.getDilationsAttr(),
        dispatch.getTargetAttr());
    (void)onBuffers;
    replaceOpWithBufferizedValues(rewriter, op, *init);
    return success();
  }
};
} // namespace

void mlir::ukernel::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, UKernelDialect *) {
    DispatchOp::attachInterface<DispatchOpInterface>(*context);
  });
}
