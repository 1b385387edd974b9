//===- SelectLowering.cpp - ukernel.select to quilt_rt_select -------------===//
//
// Part of the Quilt project. A select becomes one call of the runtime:
//
//   %spec  = llvm.mlir.addressof @__quilt_select_spec   (constant, NUL-ended)
//   %cache = llvm.mlir.addressof @__quilt_select_cache  (zeroed pointer)
//   %out   = llvm.alloca 4 x i64                        (at function entry)
//   func.call @quilt_rt_select(%spec, %cache, %b, %m, %n, %k, %out)
//   kernel, remainder, split_m, split_n = loads of out[0..3]
//
// The spec is quilt::formatSelectionSpec of the select's target, element
// type, policy and candidates: the runtime parses it on the first call and
// keeps the prepared table in the cache slot. A destructor of the module
// (llvm.mlir.global_dtors) gives every slot's table back with
// quilt_rt_release when the library is unloaded or the program exits. The status result is not
// needed: on failure the runtime still leaves kernel 0 over the whole
// problem, which computes the right result.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/SelectLowering.h"
#include "Conversion/Utils/IndexMath.h"

#include "CostModel/SelectionSpec.h"
#include "Dialect/UKernel/IR/CostModelBridge.h"
#include "Dialect/UKernel/IR/UKernelOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::ukernel;

static constexpr llvm::StringLiteral kSelectFunction = "quilt_rt_select";
static constexpr llvm::StringLiteral kReleaseFunction = "quilt_rt_release";

namespace {

class SelectLowering {
public:
  explicit SelectLowering(ModuleOp module)
      : module(module), symbols(module), ctx(module.getContext()),
        ptrType(LLVM::LLVMPointerType::get(ctx)),
        i64Type(IntegerType::get(ctx, 64)) {}

  LogicalResult run() {
    SmallVector<SelectOp> selects;
    module.walk([&](SelectOp op) { selects.push_back(op); });
    if (selects.empty())
      return success();
    for (SelectOp op : selects)
      if (!op.getEffectiveTarget())
        return op.emitOpError("has no target to select for: run "
                              "ukernel-attach-target first");
    FailureOr<func::FuncOp> callee = getOrDeclareSelectFunction();
    if (failed(callee))
      return failure();
    for (SelectOp op : selects)
      lower(op, *callee);
    return emitReleaseDestructor();
  }

private:
  FunctionType selectFunctionType() {
    return FunctionType::get(
        ctx, {ptrType, ptrType, i64Type, i64Type, i64Type, i64Type, ptrType},
        {IntegerType::get(ctx, 32)});
  }

  FailureOr<func::FuncOp> getOrDeclareSelectFunction() {
    if (Operation *existing = symbols.lookup(kSelectFunction)) {
      auto func = dyn_cast<func::FuncOp>(existing);
      if (!func || func.getFunctionType() != selectFunctionType())
        return existing->emitError()
               << "'" << kSelectFunction
               << "' is reserved for Quilt's runtime and must be declared as "
               << selectFunctionType();
      return func;
    }
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto func = func::FuncOp::create(b, module.getLoc(), kSelectFunction,
                                     selectFunctionType());
    func.setPrivate();
    symbols.insert(func);
    return func;
  }

  /// The module-level constant holding `text` (NUL-terminated), shared by
  /// every select with the same spec.
  LLVM::GlobalOp specGlobal(Location loc, std::string text) {
    text.push_back('\0');
    auto it = specs.find(text);
    if (it != specs.end())
      return it->second;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto type = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), text.size());
    auto global = LLVM::GlobalOp::create(
        b, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal,
        "__quilt_select_spec", b.getStringAttr(text));
    symbols.insert(global);
    specs[text] = global;
    return global;
  }

  /// A zero-initialized pointer the runtime keeps the prepared table in.
  LLVM::GlobalOp cacheGlobal(Location loc) {
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto global = LLVM::GlobalOp::create(b, loc, ptrType, /*isConstant=*/false,
                                         LLVM::Linkage::Internal,
                                         "__quilt_select_cache", Attribute());
    Block *init = b.createBlock(&global.getInitializerRegion());
    b.setInsertionPointToStart(init);
    Value null = LLVM::ZeroOp::create(b, loc, ptrType);
    LLVM::ReturnOp::create(b, loc, null);
    symbols.insert(global);
    caches.push_back(global);
    return global;
  }

  /// A destructor that releases every cache slot's table, registered in
  /// the module's llvm.mlir.global_dtors (appended to the program's own).
  LogicalResult emitReleaseDestructor() {
    if (caches.empty())
      return success();
    Location loc = module.getLoc();
    auto voidType = LLVM::LLVMVoidType::get(ctx);
    auto releaseType = LLVM::LLVMFunctionType::get(voidType, {ptrType});
    LLVM::LLVMFuncOp release;
    if (Operation *existing = symbols.lookup(kReleaseFunction)) {
      release = dyn_cast<LLVM::LLVMFuncOp>(existing);
      if (!release || release.getFunctionType() != releaseType)
        return existing->emitError()
               << "'" << kReleaseFunction
               << "' is reserved for Quilt's runtime and must be declared as "
               << releaseType;
    } else {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      release = LLVM::LLVMFuncOp::create(b, loc, kReleaseFunction, releaseType);
      symbols.insert(release);
    }

    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto destructor = LLVM::LLVMFuncOp::create(
        b, loc, "__quilt_release_select_caches",
        LLVM::LLVMFunctionType::get(voidType, {}), LLVM::Linkage::Internal);
    symbols.insert(destructor);
    b.setInsertionPointToStart(destructor.addEntryBlock(b));
    for (LLVM::GlobalOp cache : caches)
      LLVM::CallOp::create(b, loc, release,
                           ValueRange{LLVM::AddressOfOp::create(b, loc, cache)});
    LLVM::ReturnOp::create(b, loc, ValueRange{});

    SmallVector<Attribute> dtors, priorities, data;
    auto programDtors = module.getOps<LLVM::GlobalDtorsOp>();
    if (!programDtors.empty()) {
      LLVM::GlobalDtorsOp existing = *programDtors.begin();
      llvm::append_range(dtors, existing.getDtors());
      llvm::append_range(priorities, existing.getPriorities());
      llvm::append_range(data, existing.getData());
      existing.erase();
    }
    dtors.push_back(FlatSymbolRefAttr::get(destructor));
    priorities.push_back(b.getI32IntegerAttr(65535));
    data.push_back(LLVM::ZeroAttr::get(ctx));
    b.setInsertionPointToEnd(module.getBody());
    LLVM::GlobalDtorsOp::create(b, loc, b.getArrayAttr(dtors),
                                b.getArrayAttr(priorities),
                                b.getArrayAttr(data));
    return success();
  }

  /// The 4 x i64 result slot, allocated once at the entry of the enclosing
  /// allocation scope so that a select inside a loop does not grow the
  /// stack.
  Value resultSlot(SelectOp op) {
    Operation *scope =
        op->getParentWithTrait<OpTrait::AutomaticAllocationScope>();
    OpBuilder b(op);
    if (scope)
      b.setInsertionPointToStart(&scope->getRegion(0).front());
    Location loc = op.getLoc();
    Value four =
        LLVM::ConstantOp::create(b, loc, i64Type, b.getI64IntegerAttr(4));
    return LLVM::AllocaOp::create(b, loc, ptrType, i64Type, four,
                                  /*alignment=*/8);
  }

  void lower(SelectOp op, func::FuncOp callee) {
    quilt::SelectionSpec spec;
    spec.target = toTargetDesc(op.getEffectiveTarget());
    spec.elem = *toCostModelElemType(op.getElementType());
    spec.policy = toCostModel(op.getPolicy());
    spec.fixedIndex = static_cast<int>(op.getFixedCandidate().value_or(0));
    for (Attribute attr : op.getCandidates())
      spec.candidates.push_back(toKernelConfig(cast<ConfigAttr>(attr)));
    spec.tuned = toTunedRegions(op.getTunedAttr());

    Location loc = op.getLoc();
    LLVM::GlobalOp specData = specGlobal(loc, quilt::formatSelectionSpec(spec));
    LLVM::GlobalOp cache = cacheGlobal(loc);
    Value out = resultSlot(op);

    OpBuilder b(op);
    auto toI64 = [&](Value v) -> Value {
      return arith::IndexCastOp::create(b, loc, i64Type, v);
    };
    SmallVector<Value> args = {LLVM::AddressOfOp::create(b, loc, specData),
                               LLVM::AddressOfOp::create(b, loc, cache),
                               toI64(op.getBatch()),
                               toI64(op.getM()),
                               toI64(op.getN()),
                               toI64(op.getK()),
                               out};
    func::CallOp::create(b, loc, callee, args);
    SmallVector<Value> results;
    for (int32_t i = 0; i < 4; ++i) {
      Value slot = LLVM::GEPOp::create(b, loc, ptrType, i64Type, out,
                                       ArrayRef<LLVM::GEPArg>{i});
      Value v = LLVM::LoadOp::create(b, loc, i64Type, slot, /*alignment=*/8);
      results.push_back(
          arith::IndexCastOp::create(b, loc, b.getIndexType(), v));
    }
    op->replaceAllUsesWith(results);
    op.erase();
  }

  ModuleOp module;
  SymbolTable symbols;
  MLIRContext *ctx;
  Type ptrType, i64Type;
  llvm::StringMap<LLVM::GlobalOp> specs;
  SmallVector<LLVM::GlobalOp> caches;
};

} // namespace

LogicalResult mlir::ukernel::lowerSelectOps(ModuleOp module) {
  return SelectLowering(module).run();
}

void mlir::ukernel::forEachSelectedRegion(
    OpBuilder &b, Location loc, SelectOp select, Value m, Value n,
    function_ref<void(Value, Value, Value, Value, Value)> emit) {
  IndexMath im{b, loc};
  Value splitM = select.getSplitM(), splitN = select.getSplitN();
  Value zero = im.c(0);
  emit(select.getKernel(), zero, zero, splitM, splitN);
  // A patch splits one dimension; the other split equals its extent.
  Value patchM = im.lt(splitM, m);
  auto pick = [&](Value ifM, Value ifN) {
    return arith::SelectOp::create(b, loc, patchM, ifM, ifN);
  };
  emit(select.getRemainder(), pick(splitM, zero), pick(zero, splitN),
       pick(im.sub(m, splitM), m), pick(n, im.sub(n, splitN)));
}

void mlir::ukernel::emitSelectedCandidate(
    OpBuilder &b, Location loc, Value which, ArrayRef<int64_t> runnable,
    function_ref<void(OpBuilder &, size_t)> emitCase) {
  if (runnable.size() == 1) {
    emitCase(b, 0);
    return;
  }
  OpBuilder::InsertionGuard guard(b);
  auto sw = scf::IndexSwitchOp::create(b, loc, TypeRange{}, which, runnable,
                                       runnable.size());
  for (size_t i = 0; i < runnable.size(); ++i) {
    b.createBlock(&sw.getCaseRegions()[i]);
    emitCase(b, i);
    scf::YieldOp::create(b, loc);
  }
  b.createBlock(&sw.getDefaultRegion());
  scf::YieldOp::create(b, loc);
}
