//===- EmitCInterface.cpp - The quilt-emit-c-interface pass ---------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTEMITCINTERFACE
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

struct QuiltEmitCInterfacePass
    : public quilt::impl::QuiltEmitCInterfaceBase<QuiltEmitCInterfacePass> {
  using Base::Base;

  void runOnOperation() override {
    StringRef attrName = LLVM::LLVMDialect::getEmitCWrapperAttrName();
    UnitAttr unit = UnitAttr::get(&getContext());
    getOperation().walk([&](func::FuncOp func) {
      if (func.isPublic() && !func.isExternal())
        func->setAttr(attrName, unit);
    });
  }
};

} // namespace
