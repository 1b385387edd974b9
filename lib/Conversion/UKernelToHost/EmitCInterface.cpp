//===- EmitCInterface.cpp - A compiled library's C interface --------------===//
//
// Part of the Quilt project. The passes that give a library its C ABI:
// `_mlir_ciface_<name>` wrappers, `_quilt_signature_<name>` strings that
// say what each function takes (its type before bufferization), and
// `_quilt_call_<name>` entry points that take every argument through one
// array of pointers.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTEMITCINTERFACE
#define GEN_PASS_DEF_QUILTEMITPACKEDINTERFACE
#define GEN_PASS_DEF_QUILTRECORDSIGNATURES
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

constexpr StringLiteral kSignatureAttr = "quilt.signature";
constexpr StringLiteral kCInterfacePrefix = "_mlir_ciface_";

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

/// `void _quilt_call_<name>(void **slots)`: loads each parameter of
/// `wrapper` through its slot, calls it, and stores a scalar result
/// through the slot after them.
void emitPackedEntry(OpBuilder &b, LLVM::LLVMFuncOp wrapper) {
  MLIRContext *context = b.getContext();
  Location loc = wrapper.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(context);
  std::string name = ("_quilt_call_" +
                      wrapper.getSymName().drop_front(kCInterfacePrefix.size()))
                         .str();
  auto entry = LLVM::LLVMFuncOp::create(
      b, loc, name,
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), {ptr}));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry.addEntryBlock(b));
  Value slots = entry.getArgument(0);
  auto slotValue = [&](int64_t index) -> Value {
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, slots,
                                     ArrayRef<LLVM::GEPArg>{int32_t(index)});
    return LLVM::LoadOp::create(b, loc, ptr, slot);
  };
  LLVM::LLVMFunctionType type = wrapper.getFunctionType();
  SmallVector<Value> arguments;
  for (auto [i, param] : llvm::enumerate(type.getParams()))
    arguments.push_back(LLVM::LoadOp::create(b, loc, param, slotValue(i)));
  auto call = LLVM::CallOp::create(b, loc, wrapper, arguments);
  if (!isa<LLVM::LLVMVoidType>(type.getReturnType()))
    LLVM::StoreOp::create(b, loc, call.getResult(),
                          slotValue(type.getNumParams()));
  LLVM::ReturnOp::create(b, loc, ValueRange());
}

struct QuiltEmitPackedInterfacePass
    : public quilt::impl::QuiltEmitPackedInterfaceBase<
          QuiltEmitPackedInterfacePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    SmallVector<LLVM::LLVMFuncOp> wrappers;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func.getSymName().starts_with(kCInterfacePrefix) &&
          !func.isExternal())
        wrappers.push_back(func);
    for (LLVM::LLVMFuncOp wrapper : wrappers)
      emitPackedEntry(b, wrapper);
  }
};

} // namespace
