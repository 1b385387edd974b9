//===- Signature.cpp - The C ABI shape of a compiled function -------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Signature.h"
#include "Bindings.h"

#include "Compiler/Registration.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace quilt::python {

namespace {

std::string print(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// The numpy dtype that stores `element` the way compiled code reads it.
std::optional<std::string> dtypeFor(Type element) {
  if (element.isInteger(1))
    return "bool";
  if (element.isF32())
    return "float32";
  if (element.isF64())
    return "float64";
  if (element.isF16())
    return "float16";
  if (element.isBF16())
    return "uint16";
  if (element.isIndex() || element.isInteger(64))
    return "int64";
  if (element.isInteger(32))
    return "int32";
  if (element.isInteger(16))
    return "int16";
  if (element.isInteger(8))
    return "int8";
  return std::nullopt;
}

ValueType valueType(Type type, const std::string &what) {
  constexpr const char *kHandled =
      "; quilt.load handles f32, f64, f16, bf16, i1, i8-i64 and index";
  ValueType out;
  out.text = print(type);
  if (type.isIntOrIndexOrFloat()) {
    std::optional<std::string> dtype = dtypeFor(type);
    // A bf16 scalar has no numpy type to hold its value.
    if (!dtype || type.isBF16())
      throw Error(what + " has type " + out.text + kHandled +
                  " (bf16 in arrays only)");
    out.kind = ValueType::Kind::Scalar;
    out.dtype = *dtype;
    return out;
  }
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !isa<MemRefType, RankedTensorType>(type))
    throw Error(what + " has type " + out.text +
                "; quilt.load passes ranked memrefs and tensors, and "
                "scalars");
  std::optional<std::string> dtype = dtypeFor(shaped.getElementType());
  if (!dtype)
    throw Error(what + " has element type " + print(shaped.getElementType()) +
                kHandled);
  out.kind = isa<RankedTensorType>(type) ? ValueType::Kind::Tensor
                                         : ValueType::Kind::MemRef;
  out.dtype = *dtype;
  for (int64_t size : shaped.getShape())
    out.shape.push_back(ShapedType::isDynamic(size) ? ValueType::kDynamic
                                                    : size);
  return out;
}

Signature fromFunctionType(FunctionType type) {
  Signature sig;
  sig.text = print(type);
  for (auto [i, input] : llvm::enumerate(type.getInputs()))
    sig.args.push_back(valueType(input, "argument " + std::to_string(i)));
  for (auto [i, result] : llvm::enumerate(type.getResults()))
    sig.results.push_back(valueType(result, "result " + std::to_string(i)));
  return sig;
}

} // namespace

Signature parseSignature(const std::string &functionType) {
  MLIRContext context;
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  Type type = mlir::parseType(functionType, &context);
  auto fnType = dyn_cast_if_present<FunctionType>(type);
  if (!fnType)
    throw Error("signature '" + functionType +
                "' is not an MLIR function type such as "
                "'(memref<?x?xf32>) -> tensor<?xf32>'" +
                (diagnostics.empty() ? "" : ": " + diagnostics));
  return fromFunctionType(fnType);
}

Signature signatureFromSource(const std::string &source,
                              const std::string &name) {
  DialectRegistry registry;
  registerCompilerDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, "<python>"), llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, os);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    throw Error(diagnostics.empty() ? "cannot parse the source" : diagnostics);
  auto func = module->lookupSymbol<func::FuncOp>(name);
  if (!func)
    throw Error("the source has no func.func @" + name);
  return fromFunctionType(func.getFunctionType());
}

static bool sameValues(const std::vector<ValueType> &a,
                       const std::vector<ValueType> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].kind != b[i].kind || a[i].dtype != b[i].dtype ||
        a[i].shape != b[i].shape)
      return false;
  return true;
}

bool sameSignature(const Signature &a, const Signature &b) {
  return sameValues(a.args, b.args) && sameValues(a.results, b.results);
}

} // namespace quilt::python
