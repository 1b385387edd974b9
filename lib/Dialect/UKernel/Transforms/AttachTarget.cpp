//===- AttachTarget.cpp - Attach a database target to a module ------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/TargetDatabase.h"
#include "Dialect/UKernel/IR/CostModelBridge.h"
#include "Dialect/UKernel/IR/UKernelDialect.h"
#include "Dialect/UKernel/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::ukernel {
#define GEN_PASS_DEF_UKERNELATTACHTARGET
#include "Dialect/UKernel/Transforms/Passes.h.inc"
} // namespace mlir::ukernel

using namespace mlir;
using namespace mlir::ukernel;

namespace {
struct AttachTargetPass
    : public mlir::ukernel::impl::UKernelAttachTargetBase<AttachTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    quilt::TargetDatabase database = quilt::TargetDatabase::withBuiltins();
    if (!targetFile.empty()) {
      std::string error;
      if (!database.addFromFile(targetFile, error)) {
        module.emitError() << "cannot read target file: " << error;
        return signalPassFailure();
      }
    }
    if (targetName.empty()) {
      module.emitError() << "ukernel-attach-target needs a target name; "
                            "known targets: "
                         << llvm::join(database.names(), ", ");
      return signalPassFailure();
    }
    const quilt::TargetDesc *desc = database.lookup(targetName);
    if (!desc) {
      module.emitError() << "unknown target '" << targetName
                         << "'; known targets: "
                         << llvm::join(database.names(), ", ");
      return signalPassFailure();
    }
    module->setAttr(UKernelDialect::getTargetAttrName(),
                    getTargetAttr(&getContext(), *desc));
  }
};
} // namespace
