//===- CheckInput.cpp - quilt-check-input ---------------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"
#include "NestedModules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/raw_ostream.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTCHECKINPUT
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

/// Why no pipeline compiles a value of `type` (or of a type within it), or
/// "" when one does.
std::string unsupportedElementType(Type type) {
  std::string why;
  type.walk([&](Type inner) {
    if (!why.empty())
      return;
    if (isa<FloatTF32Type>(inner))
      why = "'tf32' is a tensor-core storage format no lowering computes in; "
            "compute in f32";
    else if (auto floatType = dyn_cast<FloatType>(inner);
             floatType && floatType.getWidth() <= 8) {
      llvm::raw_string_ostream os(why);
      os << "8-bit and smaller floats such as '" << inner
         << "' are not supported: Quilt has no kernels for them and the "
            "upstream CPU and GPU lowerings cannot convert them";
    }
  });
  return why;
}

/// Whether `type` is a memref outside the default memory space.
bool inOtherMemorySpace(Type type) {
  auto memref = dyn_cast<BaseMemRefType>(type);
  return memref && memref.getMemorySpace();
}

struct QuiltCheckInputPass
    : public quilt::impl::QuiltCheckInputBase<QuiltCheckInputPass> {
  void runOnOperation() override {
    bool failedAny = false;
    // One report per kind of problem: the first is the one to fix.
    bool reportedType = false, reportedSpace = false;
    getOperation().getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (isa<ModuleOp>(op)) {
        quilt::emitNestedModuleError(op);
        failedAny = true;
        return WalkResult::skip();
      }
      if (auto function = dyn_cast<FunctionOpInterface>(op)) {
        auto signature = llvm::concat<const Type>(function.getArgumentTypes(),
                                                  function.getResultTypes());
        for (Type type : signature) {
          if (reportedSpace || !inOtherMemorySpace(type))
            continue;
          op->emitError() << "takes or returns " << type
                          << ", a memref outside the default memory space: "
                             "Quilt's functions take and return buffers in "
                             "host memory (or a GPU's global memory)";
          reportedSpace = failedAny = true;
        }
      }
      if (reportedType)
        return WalkResult::advance();
      auto types = llvm::concat<const Type>(op->getOperandTypes(),
                                            op->getResultTypes());
      for (Type type : types) {
        std::string why = unsupportedElementType(type);
        if (why.empty())
          continue;
        op->emitError() << why;
        reportedType = failedAny = true;
        break;
      }
      return WalkResult::advance();
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
