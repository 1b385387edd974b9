//===- ApplyTuningDb.cpp - A tuning database's winners as candidates ------===//
//
// Part of the Quilt project. The database's parsing, matching and the
// candidate merge are the cost-model library's (TuningDatabase.h), shared
// with `quiltc explain` and `quiltc tune`, so that what they report is what
// the compiled dispatch runs.
//
//===----------------------------------------------------------------------===//

#include "CostModel/TuningDatabase.h"
#include "Dialect/UKernel/IR/CostModelBridge.h"
#include "Dialect/UKernel/IR/UKernelOps.h"
#include "Dialect/UKernel/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::ukernel {
#define GEN_PASS_DEF_UKERNELAPPLYTUNINGDB
#include "Dialect/UKernel/Transforms/Passes.h.inc"
} // namespace mlir::ukernel

using namespace mlir;
using namespace mlir::ukernel;

namespace {

/// The database's spelling of a dispatch's epilogue: "none", "fused", or
/// the named steps joined by '+'.
std::string epilogueKey(DispatchOp op) {
  if (op.hasFusedEpilogue())
    return "fused";
  SmallVector<EpilogueKind> steps = op.getEpilogueSteps();
  if (steps.empty())
    return "none";
  SmallVector<std::string> names;
  for (EpilogueKind step : steps)
    names.push_back(stringifyEpilogueKind(step).str());
  return llvm::join(names, "+");
}

struct ApplyTuningDbPass
    : public mlir::ukernel::impl::UKernelApplyTuningDbBase<ApplyTuningDbPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (databasePath.empty()) {
      module.emitError("ukernel-apply-tuning-db needs a database file (db=)");
      return signalPassFailure();
    }
    quilt::TargetDatabase targets = quilt::TargetDatabase::withBuiltins();
    std::string error;
    if (!targetFile.empty() && !targets.addFromFile(targetFile, error)) {
      module.emitError() << "cannot read target file: " << error;
      return signalPassFailure();
    }
    quilt::TuningDatabase db;
    if (!quilt::TuningDatabase::load(databasePath, targets, db, error)) {
      module.emitError() << "cannot use the tuning database: " << error;
      return signalPassFailure();
    }
    WalkResult result = module.walk([&](DispatchOp op) {
      return succeeded(apply(op, db)) ? WalkResult::advance()
                                      : WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult apply(DispatchOp op, const quilt::TuningDatabase &db) {
    TargetAttr target = op.getEffectiveTarget();
    if (!target)
      return op.emitError("has no target to apply a tuning database for "
                          "(attach one with ukernel-attach-target)");
    std::optional<quilt::ElemType> elem =
        toCostModelElemType(op.getInputElementType());
    if (!elem)
      return success(); // The verifier reports unsupported types.
    std::string error;
    if (!db.checkApplies(toTargetDesc(target), threads, error))
      return op.emitError() << "cannot use the tuning database: " << error;
    std::vector<quilt::KernelConfig> candidates;
    for (Attribute attr : op.getCandidates())
      candidates.push_back(toKernelConfig(cast<ConfigAttr>(attr)));
    std::vector<quilt::TunedRegion> regions = toTunedRegions(op.getTunedAttr());
    size_t before = regions.size();
    if (!quilt::addTunedCandidates(db, toCostModel(op.getKind()), *elem,
                                   epilogueKey(op), candidates, regions, error))
      return op.emitError() << "cannot use the tuning database: " << error;
    if (regions.size() == before)
      return success(); // No entry for this dispatch.

    MLIRContext *context = op.getContext();
    SmallVector<Attribute> configs, tuned;
    for (const quilt::KernelConfig &cfg : candidates)
      configs.push_back(getConfigAttr(context, cfg));
    for (const quilt::TunedRegion &region : regions)
      tuned.push_back(getTunedAttr(context, region));
    op.setCandidatesAttr(ArrayAttr::get(context, configs));
    op.setTunedAttr(ArrayAttr::get(context, tuned));
    return success();
  }
};

} // namespace
