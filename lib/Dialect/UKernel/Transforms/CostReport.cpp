//===- CostReport.cpp - Explain each dispatch's candidates ----------------===//
//
// Part of the Quilt project. The report is the cost-model library's
// (explainCandidates / renderExplainText / writeExplainJson): the pass only
// finds the dispatches, their targets and the shapes to report at.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Explain.h"
#include "CostModel/Json.h"
#include "Dialect/UKernel/IR/CostModelBridge.h"
#include "Dialect/UKernel/IR/UKernelOps.h"
#include "Dialect/UKernel/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::ukernel {
#define GEN_PASS_DEF_UKERNELCOSTREPORT
#include "Dialect/UKernel/Transforms/Passes.h.inc"
} // namespace mlir::ukernel

using namespace mlir;
using namespace mlir::ukernel;

namespace {

/// "1000x768x3072" (batch 1) or "12x43x64x43".
std::optional<quilt::GemmShape> parseShape(StringRef text) {
  SmallVector<StringRef> parts;
  text.trim().split(parts, 'x');
  if (parts.size() != 3 && parts.size() != 4)
    return std::nullopt;
  SmallVector<int64_t> dims;
  for (StringRef part : parts) {
    int64_t value;
    if (part.getAsInteger(10, value) || value < 0)
      return std::nullopt;
    dims.push_back(value);
  }
  if (dims.size() == 3)
    dims.insert(dims.begin(), 1);
  return quilt::GemmShape{dims[0], dims[1], dims[2], dims[3]};
}

/// The dispatch's GEMM-view sizes when they are all static (matmul and
/// batch_matmul; a convolution's M mixes several dimensions and is only
/// reported at given shapes).
std::optional<quilt::GemmShape> staticShape(DispatchOp op) {
  auto lhs = cast<ShapedType>(op.getLhs().getType());
  auto init = cast<ShapedType>(op.getInit().getType());
  if (!lhs.hasStaticShape() || !init.hasStaticShape())
    return std::nullopt;
  switch (op.getKind()) {
  case ContractionKind::matmul:
    return quilt::GemmShape{1, init.getDimSize(0), init.getDimSize(1),
                            lhs.getDimSize(op.getTransposeLhs() ? 0 : 1)};
  case ContractionKind::batch_matmul:
    return quilt::GemmShape{init.getDimSize(0), init.getDimSize(1),
                            init.getDimSize(2), lhs.getDimSize(2)};
  default:
    return std::nullopt;
  }
}

/// How the dispatch treats C, the report's last line: the model's traffic
/// counts C once, as written, which is exact for a folded fill.
std::string describeOutput(DispatchOp op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto fill = dyn_cast_or_null<FloatAttr>(op.getFillAttr()))
    os << "C: starts as the fill "
       << llvm::format("%g", fill.getValueAsDouble())
       << ", written and never read (beta = 0)";
  else
    os << "C: accumulated into (read and written; the model counts the "
          "write)";
  if (op.hasFusedEpilogue())
    os << "; fused epilogue of "
       << op.getEpilogueBody().front().getOperations().size() - 1 << " ops on "
       << op.getEpilogueOperands().size() << " operands";
  os << "\n";
  return text;
}

struct CostReportPass
    : public mlir::ukernel::impl::UKernelCostReportBase<CostReportPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<quilt::GemmShape> requested;
    for (const std::string &text : shapes) {
      std::optional<quilt::GemmShape> shape = parseShape(text);
      if (!shape) {
        getOperation().emitError()
            << "ukernel-cost-report: bad shape '" << text
            << "' (expected MxNxK or BxMxNxK with non-negative sizes)";
        return signalPassFailure();
      }
      requested.push_back(*shape);
    }

    std::string jsonText;
    quilt::JsonWriter jsonOut(jsonText);
    jsonOut.beginArray();
    WalkResult walk = getOperation().walk([&](DispatchOp op) {
      return succeeded(report(op, requested, jsonOut))
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    });
    jsonOut.endArray();
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (json)
      llvm::outs() << jsonText << "\n";
  }

  LogicalResult report(DispatchOp op, ArrayRef<quilt::GemmShape> requested,
                       quilt::JsonWriter &jsonOut) {
    TargetAttr target = op.getEffectiveTarget();
    if (!target)
      return op.emitError("no target to report costs for: run "
                          "ukernel-attach-target first");
    SmallVector<quilt::GemmShape> reportShapes(requested);
    if (std::optional<quilt::GemmShape> shape = staticShape(op))
      reportShapes.push_back(*shape);
    if (reportShapes.empty())
      return op.emitError("the dispatch's sizes are dynamic: give the "
                          "shapes to report at (shapes=MxNxK,...)");

    quilt::TargetDesc desc = toTargetDesc(target);
    std::vector<quilt::KernelConfig> candidates;
    for (Attribute attr : op.getCandidates())
      candidates.push_back(toKernelConfig(cast<ConfigAttr>(attr)));
    quilt::ExplainOptions options;
    options.top = top;
    options.policy = toCostModel(op.getPolicy());
    options.fixedIndex = static_cast<int>(op.getFixedCandidate().value_or(0));
    options.tuned = toTunedRegions(op.getTunedAttr());

    for (const quilt::GemmShape &shape : reportShapes) {
      quilt::Workload workload;
      workload.op = toCostModel(op.getKind());
      workload.elem = *toCostModelElemType(op.getInputElementType());
      workload.gemm = shape;
      quilt::ExplainReport explained;
      std::string error;
      if (!quilt::explainCandidates(workload, desc, candidates, options,
                                    explained, error))
        return op.emitError("cannot report costs at ")
               << shape.b << "x" << shape.m << "x" << shape.n << "x" << shape.k
               << ": " << error;
      if (json)
        quilt::writeExplainJson(jsonOut, explained, top);
      else
        op.emitRemark() << "cost report\n"
                        << quilt::renderExplainText(explained, top)
                        << describeOutput(op);
    }
    return success();
  }
};

} // namespace
