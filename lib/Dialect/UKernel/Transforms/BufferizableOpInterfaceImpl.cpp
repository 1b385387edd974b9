//===- BufferizableOpInterfaceImpl.cpp - ukernel bufferization ------------===//
//
// Part of the Quilt project. `ukernel.dispatch` is destination-passing: its
// result is its `init` updated, so it bufferizes in place on init's buffer,
// reading lhs, rhs, bias and the fused epilogue's operands.
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
  /// A folded fill replaces init's contents: init is written, not read.
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &state) const {
    auto dispatch = cast<DispatchOp>(op);
    return &operand != &dispatch.getInitMutable() || !dispatch.getFillAttr();
  }

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
    SmallVector<Value> epilogueOperands;
    for (Value operand : dispatch.getEpilogueOperands()) {
      if (!isa<TensorType>(operand.getType())) {
        epilogueOperands.push_back(operand);
        continue;
      }
      FailureOr<Value> buffer = bufferOf(operand);
      if (failed(buffer))
        return failure();
      epilogueOperands.push_back(*buffer);
    }

    rewriter.setInsertionPoint(dispatch);
    auto onBuffers = DispatchOp::create(
        rewriter, dispatch.getLoc(), /*result=*/Type(), dispatch.getKindAttr(),
        *lhs, *rhs, *init, *bias, epilogueOperands,
        dispatch.getCandidatesAttr(), dispatch.getPolicyAttr(),
        dispatch.getFixedCandidateAttr(), dispatch.getEpilogueAttr(),
        dispatch.getTransposeLhsAttr(), dispatch.getTransposeRhsAttr(),
        dispatch.getStridesAttr(), dispatch.getDilationsAttr(),
        dispatch.getTargetAttr(), dispatch.getEpilogueOperandKindsAttr(),
        dispatch.getFillAttr(), dispatch.getTunedAttr());
    onBuffers.getEpilogueBody().takeBody(dispatch.getEpilogueBody());
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
