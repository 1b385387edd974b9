//===- UKernelOps.cpp - ukernel operations --------------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Dialect/UKernel/IR/UKernelOps.h"
#include "CostModel/KernelConfig.h"
#include "Dialect/UKernel/IR/CostModelBridge.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ukernel;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// An enum attribute spelled as its bare keyword, e.g. `matmul`.
template <typename EnumAttrT>
static ParseResult parseEnumKeyword(OpAsmParser &parser, EnumAttrT &attr) {
  using EnumT = decltype(std::declval<EnumAttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<EnumT> value = symbolizeEnum<EnumT>(keyword);
  if (!value)
    return parser.emitError(loc, "unknown keyword '") << keyword << "'";
  attr = EnumAttrT::get(parser.getContext(), *value);
  return success();
}

template <typename EnumAttrT>
static void printEnumKeyword(OpAsmPrinter &printer, Operation *,
                             EnumAttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

/// `[bias_add, gelu]`: the epilogue steps as bare keywords.
static ParseResult parseEpilogueList(OpAsmParser &parser, ArrayAttr &steps) {
  SmallVector<Attribute> parsed;
  auto parseStep = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<EpilogueKind> kind = symbolizeEpilogueKind(keyword);
    if (!kind)
      return parser.emitError(loc, "unknown epilogue step '")
             << keyword << "' (expected bias_add, relu or gelu)";
    parsed.push_back(EpilogueKindAttr::get(parser.getContext(), *kind));
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseStep,
                                     " in epilogue"))
    return failure();
  steps = parser.getBuilder().getArrayAttr(parsed);
  return success();
}

static void printEpilogueList(OpAsmPrinter &printer, Operation *,
                              ArrayAttr steps) {
  printer << "[";
  llvm::interleaveComma(steps, printer, [&](Attribute step) {
    printer << stringifyEpilogueKind(cast<EpilogueKindAttr>(step).getValue());
  });
  printer << "]";
}

/// `fused(%x, %s : tensor<?xf32>, f32) [per_column, scalar] { ^bb0(...): }`
/// (or `fused { ^bb0(%acc: f32): ... }` without operands): a fused
/// epilogue's operands, their kinds and its body; absent when the dispatch
/// has none.
static ParseResult
parseFusedEpilogue(OpAsmParser &parser,
                   SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
                   SmallVectorImpl<Type> &types, ArrayAttr &kinds,
                   Region &body) {
  if (failed(parser.parseOptionalKeyword("fused"))) {
    kinds = parser.getBuilder().getArrayAttr({});
    return success();
  }
  SmallVector<Attribute> parsed;
  if (failed(parser.parseOptionalLParen())) {
    kinds = parser.getBuilder().getArrayAttr({});
    return parser.parseRegion(body, /*arguments=*/{});
  }
  if (parser.parseOperandList(operands) || parser.parseColonTypeList(types) ||
      parser.parseRParen())
    return failure();
  auto parseKind = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<EpilogueOperandKind> kind =
        symbolizeEpilogueOperandKind(keyword);
    if (!kind)
      return parser.emitError(loc, "unknown epilogue operand kind '")
             << keyword
             << "' (expected scalar, per_column, per_row or per_element)";
    parsed.push_back(EpilogueOperandKindAttr::get(parser.getContext(), *kind));
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseKind,
                                     " in fused epilogue operand kinds"))
    return failure();
  kinds = parser.getBuilder().getArrayAttr(parsed);
  return parser.parseRegion(body, /*arguments=*/{});
}

static void printFusedEpilogue(OpAsmPrinter &printer, Operation *,
                               OperandRange operands, TypeRange types,
                               ArrayAttr kinds, Region &body) {
  if (body.empty())
    return;
  printer << "fused";
  if (operands.empty()) {
    printer << " ";
    printer.printRegion(body, /*printEntryBlockArgs=*/true);
    return;
  }
  printer << "(" << operands << " : " << types << ") [";
  llvm::interleaveComma(kinds, printer, [&](Attribute kind) {
    printer << stringifyEpilogueOperandKind(
        cast<EpilogueOperandKindAttr>(kind).getValue());
  });
  printer << "] ";
  printer.printRegion(body, /*printEntryBlockArgs=*/true);
}

//===----------------------------------------------------------------------===//
// Shared verification
//===----------------------------------------------------------------------===//

bool mlir::ukernel::isFusableEpilogueOp(Operation *op) {
  if (op->getNumRegions() != 0 || op->getNumResults() != 1 ||
      !isMemoryEffectFree(op))
    return false;
  if (op->hasTrait<OpTrait::ConstantLike>())
    return isa<FloatType, IntegerType, IndexType>(op->getResult(0).getType());
  if (!op->hasTrait<OpTrait::Elementwise>())
    return false;
  // Scalars only: the kernels give each value a vector type of their own.
  auto scalar = [](Type type) {
    return isa<FloatType, IntegerType, IndexType>(type);
  };
  return llvm::all_of(op->getOperandTypes(), scalar) &&
         llvm::all_of(op->getResultTypes(), scalar);
}

/// The target `op` is compiled for: its own `target` attribute, else the
/// nearest ancestor's `ukernel.target`.
static TargetAttr lookUpTarget(Operation *op, TargetAttr own) {
  if (own)
    return own;
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (auto target = parent->getAttrOfType<TargetAttr>(
            UKernelDialect::getTargetAttrName()))
      return target;
  return {};
}

/// Checks what a dispatch and a select share: a non-empty candidate list, a
/// consistent policy, and, when the target is known, that every candidate
/// fits it for `elemType`.
static LogicalResult verifyCandidates(Operation *op, ArrayAttr candidates,
                                      SelectionPolicy policy,
                                      std::optional<int64_t> fixedCandidate,
                                      ArrayAttr tuned, Type elemType,
                                      TargetAttr target) {
  if (candidates.empty())
    return op->emitOpError("expects at least one candidate configuration");
  int64_t count = candidates.size();
  if (count > quilt::kMaxPreparedCandidates)
    return op->emitOpError("has ")
           << count << " candidates; run-time selection takes at most "
           << quilt::kMaxPreparedCandidates;
  if (tuned) {
    if (int64_t(tuned.size()) > quilt::kMaxTunedRegions)
      return op->emitOpError("has ")
             << tuned.size() << " tuned regions; run-time selection takes at "
             << "most " << quilt::kMaxTunedRegions;
    for (auto [index, attr] : llvm::enumerate(tuned)) {
      auto region = cast<TunedAttr>(attr);
      if (region.getCandidate() >= count)
        return op->emitOpError("tuned region #")
               << index << " (" << region.getSource() << ") selects candidate "
               << region.getCandidate() << ", but there are " << count
               << " candidates";
    }
  }
  if (policy == SelectionPolicy::fixed) {
    if (!fixedCandidate)
      return op->emitOpError("policy 'fixed' needs a candidate index "
                             "(`policy fixed = <index>`)");
    if (*fixedCandidate < 0 || *fixedCandidate >= count)
      return op->emitOpError("fixed candidate ")
             << *fixedCandidate << " is out of range: there are " << count
             << " candidates";
  } else if (fixedCandidate) {
    return op->emitOpError("a candidate index is only meaningful with policy "
                           "'fixed', not '")
           << stringifySelectionPolicy(policy) << "'";
  }
  std::optional<quilt::ElemType> elem = toCostModelElemType(elemType);
  if (!elem)
    return op->emitOpError("element type ")
           << elemType << " is not supported (expected f32, f16, bf16 or f64)";
  if (!target)
    return success();
  quilt::TargetDesc desc = toTargetDesc(target);
  for (auto [index, attr] : llvm::enumerate(candidates)) {
    auto config = cast<ConfigAttr>(attr);
    quilt::KernelConfig cfg = toKernelConfig(config);
    std::string reason = quilt::checkForTarget(cfg, *elem, desc);
    if (!reason.empty())
      return op->emitOpError("candidate #")
             << index << " (" << cfg.str() << ") does not fit target '"
             << target.getName() << "': " << reason;
  }
  return success();
}

/// Equal f32/f16/bf16 inputs and an accumulator (`accName`) in f32 or the
/// input type, or f64 inputs and an f64 accumulator: what every ukernel
/// contraction computes on.
static LogicalResult verifyElementTypes(Operation *op, Type lhsElem,
                                        Type rhsElem, Type accElem,
                                        StringRef accName) {
  if (rhsElem != lhsElem)
    return op->emitOpError("lhs element type ")
           << lhsElem << " differs from rhs element type " << rhsElem;
  if (!toCostModelElemType(lhsElem))
    return op->emitOpError("element type ")
           << lhsElem << " is not supported (expected f32, f16, bf16 or f64)";
  if (lhsElem.isF64() && !accElem.isF64())
    return op->emitOpError()
           << accName << " element type must be f64 for f64 inputs (f64 "
           << "products accumulate in f64), got " << accElem;
  if (!accElem.isF32() && accElem != lhsElem)
    return op->emitOpError()
           << accName << " element type must be f32 (the accumulator) or the "
           << "input element type " << lhsElem << ", got " << accElem;
  return success();
}

/// Two static sizes that must agree; dynamic sizes agree with anything.
static LogicalResult verifyDimsMatch(Operation *op, StringRef what, int64_t a,
                                     StringRef aName, int64_t b,
                                     StringRef bName) {
  if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b)
    return success();
  return op->emitOpError() << what << " mismatch: " << aName << " has " << a
                           << " but " << bName << " has " << b;
}

static bool hasBiasAdd(ArrayAttr epilogue) {
  return llvm::any_of(epilogue, [](Attribute step) {
    return cast<EpilogueKindAttr>(step).getValue() == EpilogueKind::bias_add;
  });
}

/// The bias operand exists exactly when the epilogue adds it, is 1-D, and
/// has the output's N extent.
static LogicalResult verifyBias(Operation *op, Value bias, ArrayAttr epilogue,
                                Type elemType, int64_t n) {
  unsigned biasSteps = llvm::count_if(epilogue, [](Attribute step) {
    return cast<EpilogueKindAttr>(step).getValue() == EpilogueKind::bias_add;
  });
  if (biasSteps > 1)
    return op->emitOpError("epilogue adds the bias more than once");
  if (hasBiasAdd(epilogue) && !bias)
    return op->emitOpError("epilogue 'bias_add' needs a bias operand");
  if (!bias)
    return success();
  if (!hasBiasAdd(epilogue))
    return op->emitOpError("has a bias operand but its epilogue has no "
                           "'bias_add' step");
  auto biasType = cast<ShapedType>(bias.getType());
  if (!biasType.hasRank() || biasType.getRank() != 1)
    return op->emitOpError("bias must be 1-D, got ") << biasType;
  Type biasElem = biasType.getElementType();
  if (!biasElem.isF32() && biasElem != elemType)
    return op->emitOpError("bias element type must be f32 or the input "
                           "element type ")
           << elemType << ", got " << biasElem;
  return verifyDimsMatch(op, "N", n, "the output", biasType.getDimSize(0),
                         "the bias");
}

//===----------------------------------------------------------------------===//
// DispatchOp
//===----------------------------------------------------------------------===//

TargetAttr DispatchOp::getEffectiveTarget() {
  return lookUpTarget(getOperation(), getTargetAttr());
}

SmallVector<int64_t> DispatchOp::getRunnableCandidates() {
  // The verifier keeps a fixed candidate in range.
  if (getPolicy() == SelectionPolicy::fixed)
    return {static_cast<int64_t>(*getFixedCandidate())};
  return llvm::to_vector(
      llvm::seq<int64_t>(0, static_cast<int64_t>(getCandidates().size())));
}

namespace {
/// The GEMM view of a dispatch's operands, with ShapedType::kDynamic where a
/// size is only known at run time.
struct GemmDims {
  int64_t m, n, k;
};
} // namespace

/// Rank every operand of `kind` has.
static int64_t expectedRank(ContractionKind kind) {
  switch (kind) {
  case ContractionKind::matmul:
    return 2;
  case ContractionKind::batch_matmul:
    return 3;
  case ContractionKind::conv2d_nhwc:
  case ContractionKind::conv2d_nchw:
    return 4;
  }
  llvm_unreachable("unknown contraction kind");
}

/// Output size of a convolution along one spatial dimension, or dynamic:
/// floor((input - dilation * (filter - 1) - 1) / stride) + 1, and 0 when the
/// filter's extent exceeds the input (the run-time check's rule, from
/// Conversion/Utils/OperandChecks.cpp).
static int64_t convOutputSize(int64_t input, int64_t filter, int64_t stride,
                              int64_t dilation) {
  if (ShapedType::isDynamic(input) || ShapedType::isDynamic(filter))
    return ShapedType::kDynamic;
  int64_t extent = dilation * (filter - 1) + 1;
  return std::max<int64_t>(0,
                           llvm::divideFloorSigned(input - extent, stride) + 1);
}

static LogicalResult verifyConvShapes(DispatchOp op, ShapedType input,
                                      ShapedType filter, ShapedType output,
                                      GemmDims &dims) {
  bool nhwc = op.getKind() == ContractionKind::conv2d_nhwc;
  // Positions of (batch, height, width, channels) in the image tensors and of
  // (R, S, C, F) in the filter for the two layouts.
  int64_t iN = 0, iH = nhwc ? 1 : 2, iW = nhwc ? 2 : 3, iC = nhwc ? 3 : 1;
  int64_t fR = nhwc ? 0 : 2, fS = nhwc ? 1 : 3, fC = nhwc ? 2 : 1,
          fF = nhwc ? 3 : 0;
  int64_t oF = nhwc ? 3 : 1;

  static constexpr int64_t kUnit[] = {1, 1};
  ArrayRef<int64_t> strides = op.getStrides().value_or(kUnit);
  ArrayRef<int64_t> dilations = op.getDilations().value_or(kUnit);
  for (auto [name, values] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"strides", strides},
        {"dilations", dilations}}) {
    if (values.size() != 2)
      return op.emitOpError()
             << name << " must have 2 entries (H, W), got " << values.size();
    if (llvm::any_of(values, [](int64_t v) { return v <= 0; }))
      return op.emitOpError() << name << " must be positive";
  }

  if (failed(verifyDimsMatch(op, "batch", input.getDimSize(iN), "the input",
                             output.getDimSize(0), "the output")) ||
      failed(verifyDimsMatch(op, "channels", input.getDimSize(iC), "the input",
                             filter.getDimSize(fC), "the filter")) ||
      failed(verifyDimsMatch(op, "filters", filter.getDimSize(fF), "the filter",
                             output.getDimSize(oF), "the output")))
    return failure();
  int64_t oH = nhwc ? 1 : 2, oW = nhwc ? 2 : 3;
  int64_t expectH = convOutputSize(input.getDimSize(iH), filter.getDimSize(fR),
                                   strides[0], dilations[0]);
  int64_t expectW = convOutputSize(input.getDimSize(iW), filter.getDimSize(fS),
                                   strides[1], dilations[1]);
  if (failed(verifyDimsMatch(op, "output height", expectH, "the convolution",
                             output.getDimSize(oH), "the output")) ||
      failed(verifyDimsMatch(op, "output width", expectW, "the convolution",
                             output.getDimSize(oW), "the output")))
    return failure();
  dims = {ShapedType::kDynamic, output.getDimSize(oF), ShapedType::kDynamic};
  return success();
}

static LogicalResult verifyGemmShapes(DispatchOp op, ShapedType lhs,
                                      ShapedType rhs, ShapedType init,
                                      GemmDims &dims) {
  bool batched = op.getKind() == ContractionKind::batch_matmul;
  int64_t off = batched ? 1 : 0;
  if (batched && (failed(verifyDimsMatch(op, "batch", lhs.getDimSize(0), "lhs",
                                         rhs.getDimSize(0), "rhs")) ||
                  failed(verifyDimsMatch(op, "batch", lhs.getDimSize(0), "lhs",
                                         init.getDimSize(0), "init"))))
    return failure();
  bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
  int64_t lhsM = lhs.getDimSize(off + (tl ? 1 : 0));
  int64_t lhsK = lhs.getDimSize(off + (tl ? 0 : 1));
  int64_t rhsK = rhs.getDimSize(off + (tr ? 1 : 0));
  int64_t rhsN = rhs.getDimSize(off + (tr ? 0 : 1));
  if (failed(verifyDimsMatch(op, "K", lhsK, "lhs", rhsK, "rhs")) ||
      failed(verifyDimsMatch(op, "M", lhsM, "lhs", init.getDimSize(off),
                             "init")) ||
      failed(verifyDimsMatch(op, "N", rhsN, "rhs", init.getDimSize(off + 1),
                             "init")))
    return failure();
  dims = {init.getDimSize(off), init.getDimSize(off + 1), lhsK};
  return success();
}

/// A fused epilogue: operands as their kinds say, a body whose arguments
/// are the accumulated value and one element per operand, and that holds
/// only what the micro-kernels can clone into their update of C.
static LogicalResult verifyFusedEpilogue(DispatchOp op, bool tensors,
                                         const GemmDims &dims) {
  ArrayAttr kinds = op.getEpilogueOperandKinds();
  OperandRange operands = op.getEpilogueOperands();
  Region &region = op.getEpilogueBody();
  if (region.empty()) {
    if (!operands.empty() || !kinds.empty())
      return op.emitOpError("has fused epilogue operands but no fused "
                            "epilogue body");
    return success();
  }
  if (!op.getEpilogue().empty())
    return op.emitOpError("has both named epilogue steps and a fused "
                          "epilogue body");
  if (kinds.size() != operands.size())
    return op.emitOpError()
           << "has " << operands.size() << " fused epilogue operands but "
           << kinds.size() << " operand kinds";
  bool isConv = op.getKind() == ContractionKind::conv2d_nhwc ||
                op.getKind() == ContractionKind::conv2d_nchw;
  auto initType = cast<ShapedType>(op.getInit().getType());
  Type outElem = initType.getElementType();
  for (auto [index, operand, kindAttr] :
       llvm::enumerate(operands, op.getEpilogueOperandKindList())) {
    EpilogueOperandKind kind = kindAttr;
    auto shaped = dyn_cast<ShapedType>(operand.getType());
    StringRef kindName = stringifyEpilogueOperandKind(kind);
    auto describe = [&, index = index]() {
      return op.emitOpError()
             << "fused epilogue operand #" << index << " (" << kindName << ") ";
    };
    if (kind == EpilogueOperandKind::scalar) {
      if (shaped)
        return describe() << "must not be shaped, got " << operand.getType();
      continue;
    }
    if (!shaped || !shaped.hasRank())
      return describe() << "must be a ranked tensor or memref, got "
                        << operand.getType();
    if (isa<TensorType>(shaped) != tensors)
      return op.emitOpError("operands must be all tensors or all memrefs");
    if (isConv && kind != EpilogueOperandKind::per_column)
      return describe() << "is not supported on a convolution (only "
                           "per_column and scalar operands are)";
    int64_t rank =
        kind == EpilogueOperandKind::per_element ? initType.getRank() : 1;
    if (shaped.getRank() != rank)
      return describe() << "must have rank " << rank << ", got "
                        << shaped.getRank();
    if (kind == EpilogueOperandKind::per_column &&
        failed(verifyDimsMatch(op, "N", dims.n, "the output",
                               shaped.getDimSize(0),
                               "a per_column epilogue operand")))
      return failure();
    if (kind == EpilogueOperandKind::per_row &&
        failed(verifyDimsMatch(op, "M", dims.m, "the output",
                               shaped.getDimSize(0),
                               "a per_row epilogue operand")))
      return failure();
    if (kind == EpilogueOperandKind::per_element)
      for (int64_t d = 0; d < rank; ++d)
        if (failed(verifyDimsMatch(op, "output shape", initType.getDimSize(d),
                                   "the output", shaped.getDimSize(d),
                                   "a per_element epilogue operand")))
          return failure();
  }

  if (!region.hasOneBlock())
    return op.emitOpError("fused epilogue body must have one block");
  Block &body = region.front();
  if (body.getNumArguments() != operands.size() + 1)
    return op.emitOpError()
           << "fused epilogue body must take " << operands.size() + 1
           << " arguments (the accumulated value, then one "
              "per operand), got "
           << body.getNumArguments();
  Type accType = body.getArgument(0).getType();
  if (!accType.isF32() && accType != outElem)
    return op.emitOpError() << "fused epilogue's accumulated value must be "
                               "f32 or the output element type "
                            << outElem << ", got " << accType;
  for (auto [index, operand] : llvm::enumerate(operands)) {
    Type want = getElementTypeOrSelf(operand.getType());
    Type got = body.getArgument(index + 1).getType();
    if (got != want)
      return op.emitOpError()
             << "fused epilogue body argument #" << index + 1 << " must be "
             << want << " (the operand's element), got " << got;
  }
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return op.emitOpError("fused epilogue body must end in ukernel.yield");
  if (yield.getValue().getType() != outElem)
    return op.emitOpError()
           << "fused epilogue must yield the output element "
              "type "
           << outElem << ", got " << yield.getValue().getType();
  for (Operation &inner : body.without_terminator()) {
    if (!isFusableEpilogueOp(&inner))
      return inner.emitOpError("cannot be fused into a micro-kernel's "
                               "epilogue (only elementwise ops without "
                               "regions or side effects can)");
    for (Value value : inner.getOperands())
      if (value.getParentRegion() != &region)
        return inner.emitOpError("uses a value defined outside the fused "
                                 "epilogue body");
  }
  return success();
}

LogicalResult DispatchOp::verify() {
  auto lhsType = cast<ShapedType>(getLhs().getType());
  auto rhsType = cast<ShapedType>(getRhs().getType());
  auto initType = cast<ShapedType>(getInit().getType());
  StringRef kindName = stringifyContractionKind(getKind());

  // Operand kinds: all tensors (value semantics, one result) or all memrefs
  // (in place, no result).
  bool tensors = isa<RankedTensorType>(initType);
  for (auto [name, type] : {std::pair<StringRef, ShapedType>{"lhs", lhsType},
                            {"rhs", rhsType},
                            {"init", initType}}) {
    if (!type.hasRank())
      return emitOpError() << name << " must be ranked, got " << type;
    if (isa<RankedTensorType>(type) != tensors)
      return emitOpError("operands must be all tensors or all memrefs");
  }
  if (Value bias = getBias())
    if (isa<TensorType>(bias.getType()) != tensors)
      return emitOpError("operands must be all tensors or all memrefs");
  if (tensors && !getResult())
    return emitOpError("on tensors returns the updated init");
  if (!tensors && getResult())
    return emitOpError("on memrefs updates init in place and has no result");
  if (getResult() && getResult().getType() != initType)
    return emitOpError("result type ")
           << getResult().getType() << " differs from init type " << initType;

  int64_t rank = expectedRank(getKind());
  for (auto [name, type] : {std::pair<StringRef, ShapedType>{"lhs", lhsType},
                            {"rhs", rhsType},
                            {"init", initType}})
    if (type.getRank() != rank)
      return emitOpError("'") << kindName << "' expects rank-" << rank << " "
                              << name << ", got rank " << type.getRank();

  Type elemType = lhsType.getElementType();
  if (failed(verifyElementTypes(*this, elemType, rhsType.getElementType(),
                                initType.getElementType(), "init")))
    return failure();

  bool isConv = getKind() == ContractionKind::conv2d_nhwc ||
                getKind() == ContractionKind::conv2d_nchw;
  if ((getTransposeLhs() || getTransposeRhs()) && isConv)
    return emitOpError("transposed operands are only supported on 'matmul' "
                       "and 'batch_matmul', not '")
           << kindName << "'";
  if ((getStrides() || getDilations()) && !isConv)
    return emitOpError("strides and dilations only apply to convolutions, "
                       "not '")
           << kindName << "'";

  GemmDims dims{ShapedType::kDynamic, ShapedType::kDynamic,
                ShapedType::kDynamic};
  if (failed(isConv
                 ? verifyConvShapes(*this, lhsType, rhsType, initType, dims)
                 : verifyGemmShapes(*this, lhsType, rhsType, initType, dims)))
    return failure();
  if (failed(verifyBias(*this, getBias(), getEpilogue(), elemType, dims.n)))
    return failure();
  if (failed(verifyFusedEpilogue(*this, tensors, dims)))
    return failure();
  if (TypedAttr fill = getFillAttr()) {
    if (!isa<FloatAttr>(fill) || fill.getType() != initType.getElementType())
      return emitOpError("fill must be a float of the output element type ")
             << initType.getElementType() << ", got " << fill;
  }

  return verifyCandidates(*this, getCandidates(), getPolicy(),
                          getFixedCandidate(), getTunedAttr(), elemType,
                          getEffectiveTarget());
}

void DispatchOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    // A folded fill writes the whole of init without reading it.
    bool written = &operand == &getInitMutable();
    if (!written || !getFillAttr())
      effects.emplace_back(MemoryEffects::Read::get(), &operand, /*stage=*/0,
                           /*effectOnFullRegion=*/true,
                           SideEffects::DefaultResource::get());
    if (&operand == &getInitMutable())
      effects.emplace_back(MemoryEffects::Write::get(), &operand, /*stage=*/0,
                           /*effectOnFullRegion=*/true,
                           SideEffects::DefaultResource::get());
  }
}

//===----------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------===//

TargetAttr SelectOp::getEffectiveTarget() {
  return lookUpTarget(getOperation(), getTargetAttr());
}

LogicalResult SelectOp::verify() {
  return verifyCandidates(*this, getCandidates(), getPolicy(),
                          getFixedCandidate(), getTunedAttr(), getElementType(),
                          getEffectiveTarget());
}

//===----------------------------------------------------------------------===//
// InvokeOp
//===----------------------------------------------------------------------===//

LogicalResult InvokeOp::verify() {
  auto lhsType = cast<MemRefType>(getLhs().getType());
  auto rhsType = cast<MemRefType>(getRhs().getType());
  auto accType = cast<MemRefType>(getAcc().getType());
  int64_t rank = accType.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError("accumulator must be rank 2 (MxN) or 3 (BxMxN), got "
                       "rank ")
           << rank;
  if (lhsType.getRank() != rank || rhsType.getRank() != rank)
    return emitOpError("lhs, rhs and accumulator must have the same rank");
  if ((getTransposeLhs() || getTransposeRhs()) && rank != 2)
    return emitOpError("transposed operands are only supported on rank-2 "
                       "operands");
  if (static_cast<int64_t>(getOffsets().size()) != rank)
    return emitOpError("expects ")
           << rank << " offsets (one per accumulator dimension), got "
           << getOffsets().size();
  if (getSizes().size() != 3)
    return emitOpError("expects 3 sizes (the tile's M, N and K extents), "
                       "got ")
           << getSizes().size();

  Type elemType = lhsType.getElementType();
  if (failed(verifyElementTypes(*this, elemType, rhsType.getElementType(),
                                accType.getElementType(), "accumulator")))
    return failure();
  if (failed(verifyBias(*this, getBias(), getEpilogue(), elemType,
                        ShapedType::kDynamic)))
    return failure();

  // Constant extents must fit the configuration's tile, and an unmasked tile
  // must be full: it reads and writes without bounds checks.
  ConfigAttr config = getConfig();
  const char *names[] = {"M", "N"};
  int64_t tile[] = {config.getTileM(), config.getTileN()};
  for (int i = 0; i < 2; ++i) {
    APInt value;
    if (!matchPattern(getSizes()[i], m_ConstantInt(&value)))
      continue;
    int64_t extent = value.getSExtValue();
    if (extent < 0)
      return emitOpError() << names[i] << " extent " << extent
                           << " is negative";
    if (extent > tile[i])
      return emitOpError() << names[i] << " extent " << extent
                           << " exceeds the configuration's tile " << names[i]
                           << " (" << tile[i] << ")";
    if (extent < tile[i] && !getMasked())
      return emitOpError() << names[i] << " extent " << extent
                           << " is smaller than the tile's " << tile[i]
                           << ": a partial tile must be 'masked'";
  }
  return success();
}

#define GET_OP_CLASSES
#include "Dialect/UKernel/IR/UKernelOps.cpp.inc"
