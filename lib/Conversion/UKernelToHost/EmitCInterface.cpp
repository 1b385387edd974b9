//===- EmitCInterface.cpp - A compiled library's C interface --------------===//
//
// Part of the Quilt project. The passes that give a library its C ABI:
// `_mlir_ciface_<name>` wrappers, and `_quilt_signature_<name>` strings
// that say what each function takes (its type before bufferization).
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTEMITCINTERFACE
#define GEN_PASS_DEF_QUILTRECORDSIGNATURES
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

constexpr StringLiteral kSignatureAttr = "quilt.signature";

bool hasCInterface(func::FuncOp func) {
  return func.isPublic() && !func.isExternal();
}

struct QuiltRecordSignaturesPass
    : public quilt::impl::QuiltRecordSignaturesBase<QuiltRecordSignaturesPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (!hasCInterface(func))
        return;
      std::string text;
      llvm::raw_string_ostream os(text);
      func.getFunctionType().print(os);
      func->setAttr(kSignatureAttr, StringAttr::get(&getContext(), text));
    });
  }
};

struct QuiltEmitCInterfacePass
    : public quilt::impl::QuiltEmitCInterfaceBase<QuiltEmitCInterfacePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef attrName = LLVM::LLVMDialect::getEmitCWrapperAttrName();
    UnitAttr unit = UnitAttr::get(&getContext());
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    module.walk([&](func::FuncOp func) {
      if (!hasCInterface(func))
        return;
      func->setAttr(attrName, unit);
      auto signature = func->getAttrOfType<StringAttr>(kSignatureAttr);
      if (!signature)
        return;
      func->removeAttr(kSignatureAttr);
      std::string text = signature.str();
      text.push_back('\0');
      auto type = LLVM::LLVMArrayType::get(IntegerType::get(&getContext(), 8),
                                           text.size());
      LLVM::GlobalOp::create(b, func.getLoc(), type, /*isConstant=*/true,
                             LLVM::Linkage::External,
                             ("_quilt_signature_" + func.getSymName()).str(),
                             b.getStringAttr(text));
    });
  }
};

} // namespace
