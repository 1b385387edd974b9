//===- OperandChecks.cpp - Run-time checks of a dispatch's operands -------===//
//
// Part of the Quilt project. Dynamic sizes are only known when the compiled
// code is called; a caller's mismatched sizes or null buffer would make the
// kernels read and write out of bounds. So each dispatch compares what it
// reads anyway (memref.dim, the aligned pointer) and, on the first failed
// check, calls the runtime with a check number and the two sizes instead
// of running: the runtime owns the words of the message (QuiltRuntime.h),
// the program only embeds one short description per dispatch. Checks of
// static sizes fold away (the verifier has already compared them).
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/OperandChecks.h"
#include "Conversion/Utils/IndexMath.h"

#include "Dialect/UKernel/IR/UKernelOps.h"

#include "QuiltRuntime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::ukernel;

static constexpr llvm::StringLiteral kReportFunction =
    "quilt_rt_report_operand_error";

namespace {

/// One comparison: `failed` (i1) with the runtime's check number and the
/// sizes its message names.
struct Check {
  int32_t code;
  Value failed, got, expected;
};

/// The checks of one dispatch, emitted at its position.
class CheckBuilder {
public:
  CheckBuilder(OpBuilder &b, Location loc)
      : b(b), loc(loc), im{b, loc}, zero(im.c(0)) {}

  /// `view`'s size `d`, read once.
  Value dim(Value view, int64_t d) {
    Value &size = sizes[{view, d}];
    if (!size)
      size = memref::DimOp::create(b, loc, view, d);
    return size;
  }

  /// `got` must equal `expected`.
  void equal(int32_t code, Value got, Value expected) {
    Value differ =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, got, expected);
    checks.push_back({code, differ, got, expected});
  }

  /// `got` must be below `limit`.
  void below(int32_t code, Value got, int64_t limit) {
    Value bound = im.c(limit);
    Value over =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, got, bound);
    checks.push_back({code, over, got, bound});
  }

  /// `view`'s sizes may not be negative (a C caller's descriptor can say
  /// anything), and its data pointer may only be null when it has no
  /// elements. `code` is the null check's; the negative-size checks name the
  /// operand with it.
  void nonNull(int32_t code, Value view) {
    auto type = cast<MemRefType>(view.getType());
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      Value size = dim(view, d);
      Value negative =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, size, zero);
      int32_t operand = (code & 0xff) << QUILT_RT_CHECK_ROLE_SHIFT |
                        (code & ~0xff) |
                        static_cast<int32_t>(d << QUILT_RT_CHECK_DIM_SHIFT);
      checks.push_back(
          {QUILT_RT_CHECK_NEGATIVE_SIZE | operand, negative, size, zero});
    }
    Value pointer =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, view);
    Value failed = im.eq(pointer, zero);
    Value elements;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value size = dim(view, d);
      // Every size nonzero (not the product, which could wrap to 0).
      Value nonEmpty =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, size, zero);
      failed = arith::AndIOp::create(b, loc, failed, nonEmpty);
      elements = elements ? im.mul(elements, size) : size;
    }
    checks.push_back({code, failed, zero, elements ? elements : im.c(1)});
  }

  /// i32 check number of the first failed check (0 when all pass) and its
  /// sizes as i64.
  std::tuple<Value, Value, Value> firstFailure() {
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Value code = arith::ConstantIntOp::create(b, loc, 0, 32);
    Value got = arith::ConstantIntOp::create(b, loc, 0, 64);
    Value expected = got;
    for (const Check &check : llvm::reverse(checks)) {
      auto pick = [&](Value ifFailed, Value otherwise) -> Value {
        return arith::SelectOp::create(b, loc, check.failed, ifFailed,
                                       otherwise);
      };
      code = pick(arith::ConstantIntOp::create(b, loc, i32, check.code), code);
      got = pick(arith::IndexCastOp::create(b, loc, i64, check.got), got);
      expected = pick(arith::IndexCastOp::create(b, loc, i64, check.expected),
                      expected);
    }
    return {code, got, expected};
  }

  OpBuilder &b;
  Location loc;
  IndexMath im;
  Value zero;
  SmallVector<Check> checks;
  llvm::DenseMap<std::pair<Value, int64_t>, Value> sizes;
};

/// The output size of a convolution along one dimension:
/// floor((input - dilation * (filter - 1) - 1) / stride) + 1, and 0 when
/// the filter's extent exceeds the input.
Value convOutputSize(IndexMath &im, Value input, Value filter, int64_t stride,
                     int64_t dilation) {
  Value extent =
      im.add(im.mul(im.sub(filter, im.c(1)), im.c(dilation)), im.c(1));
  Value quotient = arith::FloorDivSIOp::create(
      im.b, im.loc, im.sub(input, extent), im.c(stride));
  return arith::MaxSIOp::create(im.b, im.loc, im.add(quotient, im.c(1)),
                                im.c(0));
}

/// The fused epilogue's operands against C's `rows` (M; null for a
/// convolution, which has no per_row operands) and `columns` (N).
void addFusedEpilogueChecks(CheckBuilder &cb, DispatchOp op, Value rows,
                            Value columns) {
  Value c = op.getInit();
  for (auto [index, operand, kind] : llvm::enumerate(
           op.getEpilogueOperands(), op.getEpilogueOperandKindList())) {
    int32_t which = static_cast<int32_t>(index) << QUILT_RT_CHECK_OPERAND_SHIFT;
    switch (kind) {
    case EpilogueOperandKind::scalar:
      break;
    case EpilogueOperandKind::per_column:
      cb.equal(QUILT_RT_CHECK_EPILOGUE_COLUMNS | which, cb.dim(operand, 0),
               columns);
      break;
    case EpilogueOperandKind::per_row:
      cb.equal(QUILT_RT_CHECK_EPILOGUE_ROWS | which, cb.dim(operand, 0), rows);
      break;
    case EpilogueOperandKind::per_element:
      for (int64_t d = 0, e = cast<ShapedType>(c.getType()).getRank(); d < e;
           ++d)
        cb.equal(QUILT_RT_CHECK_EPILOGUE_SHAPE | which |
                     static_cast<int32_t>(d << QUILT_RT_CHECK_DIM_SHIFT),
                 cb.dim(operand, d), cb.dim(c, d));
      break;
    }
  }
}

void addGemmChecks(CheckBuilder &cb, DispatchOp op) {
  Value a = op.getLhs(), b = op.getRhs(), c = op.getInit();
  bool batched = op.getKind() == ContractionKind::batch_matmul;
  int64_t first = batched ? 1 : 0;
  bool ta = op.getTransposeLhs(), tb = op.getTransposeRhs();
  int32_t flagA = ta ? QUILT_RT_CHECK_TRANSPOSED_A : 0;
  int32_t flagB = tb ? QUILT_RT_CHECK_TRANSPOSED_B : 0;
  if (batched) {
    Value batch = cb.dim(a, 0);
    cb.equal(QUILT_RT_CHECK_BATCH_B, cb.dim(b, 0), batch);
    cb.equal(QUILT_RT_CHECK_BATCH_C, cb.dim(c, 0), batch);
  }
  Value aM = cb.dim(a, first + (ta ? 1 : 0));
  Value aK = cb.dim(a, first + (ta ? 0 : 1));
  Value bK = cb.dim(b, first + (tb ? 1 : 0));
  Value bN = cb.dim(b, first + (tb ? 0 : 1));
  Value cN = cb.dim(c, first + 1);
  cb.equal(QUILT_RT_CHECK_K | flagA | flagB, bK, aK);
  cb.equal(QUILT_RT_CHECK_M | flagA, cb.dim(c, first), aM);
  cb.equal(QUILT_RT_CHECK_N | flagB, cN, bN);
  if (Value bias = op.getBias())
    cb.equal(QUILT_RT_CHECK_BIAS, cb.dim(bias, 0), cN);
  addFusedEpilogueChecks(cb, op, cb.dim(c, first), cN);
  // The GPU kernels place their tiles' rows in 32 bits (groupedTile in
  // KernelBuilder.cpp). A C without columns launches no tile, whatever its
  // rows.
  if (op.getEffectiveTarget().getVendor() != Vendor::cpu) {
    IndexMath &im = cb.im;
    Value noColumns = im.eq(cN, im.c(0));
    Value rowsWritten = arith::SelectOp::create(im.b, im.loc, noColumns,
                                                im.c(0), cb.dim(c, first));
    cb.below(QUILT_RT_CHECK_GPU_ROWS, rowsWritten, int64_t(1) << 32);
  }
}

void addConvChecks(CheckBuilder &cb, DispatchOp op) {
  Value input = op.getLhs(), filter = op.getRhs(), output = op.getInit();
  bool nhwc = op.getKind() == ContractionKind::conv2d_nhwc;
  // Positions of (N, H, W, C) in the images and of (R, S, C, F) in the
  // filter (as in the dispatch's verifier).
  int64_t iH = nhwc ? 1 : 2, iW = nhwc ? 2 : 3, iC = nhwc ? 3 : 1;
  int64_t fR = nhwc ? 0 : 2, fS = nhwc ? 1 : 3, fC = nhwc ? 2 : 1,
          fF = nhwc ? 3 : 0;
  int64_t oH = iH, oW = iW, oF = iC;
  static constexpr int64_t kUnit[] = {1, 1};
  ArrayRef<int64_t> strides = op.getStrides().value_or(kUnit);
  ArrayRef<int64_t> dilations = op.getDilations().value_or(kUnit);

  Value outF = cb.dim(output, oF);
  cb.equal(QUILT_RT_CHECK_CONV_IMAGES, cb.dim(output, 0), cb.dim(input, 0));
  cb.equal(QUILT_RT_CHECK_CONV_CHANNELS, cb.dim(filter, fC), cb.dim(input, iC));
  cb.equal(QUILT_RT_CHECK_CONV_FILTERS, outF, cb.dim(filter, fF));
  cb.equal(QUILT_RT_CHECK_CONV_HEIGHT, cb.dim(output, oH),
           convOutputSize(cb.im, cb.dim(input, iH), cb.dim(filter, fR),
                          strides[0], dilations[0]));
  cb.equal(QUILT_RT_CHECK_CONV_WIDTH, cb.dim(output, oW),
           convOutputSize(cb.im, cb.dim(input, iW), cb.dim(filter, fS),
                          strides[1], dilations[1]));
  if (Value bias = op.getBias())
    cb.equal(QUILT_RT_CHECK_CONV_BIAS, cb.dim(bias, 0), outF);
  addFusedEpilogueChecks(cb, op, /*rows=*/Value(), outF);
  // The GPU kernels map GEMM rows to pixels and columns to taps with 32-bit
  // divisions (ConvIndex.h), so either count must stay below 2^32.
  if (op.getEffectiveTarget().getVendor() != Vendor::cpu) {
    constexpr int64_t kLimit = int64_t(1) << 32;
    IndexMath &im = cb.im;
    cb.below(QUILT_RT_CHECK_GPU_CONV_PIXELS,
             im.mul(cb.dim(output, 0),
                    im.mul(cb.dim(output, oH), cb.dim(output, oW))),
             kLimit);
    cb.below(QUILT_RT_CHECK_GPU_CONV_TAPS,
             im.mul(cb.dim(filter, fC),
                    im.mul(cb.dim(filter, fR), cb.dim(filter, fS))),
             kLimit);
  }
}

/// "@f dispatch 0 (matmul f32)", with transposes, strides and dilations.
std::string describe(DispatchOp op, int64_t index) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto function = op->getParentOfType<FunctionOpInterface>())
    os << "@" << function.getName() << " ";
  os << "dispatch " << index << " (" << stringifyContractionKind(op.getKind())
     << " " << op.getInputElementType();
  if (op.getTransposeLhs())
    os << ", A transposed";
  if (op.getTransposeRhs())
    os << ", B transposed";
  auto pair = [&](StringRef name, std::optional<ArrayRef<int64_t>> values) {
    if (values && llvm::any_of(*values, [](int64_t v) { return v != 1; }))
      os << ", " << name << " " << (*values)[0] << "x" << (*values)[1];
  };
  pair("strides", op.getStrides());
  pair("dilations", op.getDilations());
  os << ")";
  return text;
}

/// The most bytes a buffer Quilt's code allocates may take: the size
/// computations of the allocation and of every view of it stay far from
/// wrapping 64 bits.
constexpr int64_t kMaxBufferBytes = int64_t(1) << 62;

/// "@f: a new memref<?x?xf32>".
std::string describe(memref::AllocOp op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto function = op->getParentOfType<FunctionOpInterface>())
    os << "@" << function.getName() << ": ";
  os << "a new " << op.getType();
  return text;
}

class OperandGuard {
public:
  explicit OperandGuard(ModuleOp module)
      : module(module), symbols(module), ctx(module.getContext()),
        ptrType(LLVM::LLVMPointerType::get(ctx)) {}

  LogicalResult guardDispatches() {
    SmallVector<DispatchOp> dispatches;
    module.walk([&](DispatchOp op) {
      if (isa<MemRefType>(op.getInit().getType()))
        dispatches.push_back(op);
    });
    if (dispatches.empty())
      return success();
    FailureOr<func::FuncOp> report = getOrDeclareReportFunction();
    if (failed(report))
      return failure();
    llvm::DenseMap<Operation *, int64_t> perParent;
    for (DispatchOp op : dispatches) {
      Operation *parent = op->getParentOfType<FunctionOpInterface>();
      guard(op, *report, describe(op, perParent[parent]++));
    }
    return success();
  }

  LogicalResult guardAllocations() {
    // Each allocation with the bytes its static sizes make.
    SmallVector<std::pair<memref::AllocOp, int64_t>> allocations;
    module.walk([&](memref::AllocOp op) {
      if (op.getDynamicSizes().empty())
        return;
      if (std::optional<int64_t> bytes = staticBytes(op))
        allocations.push_back({op, *bytes});
    });
    if (allocations.empty())
      return success();
    FailureOr<func::FuncOp> report = getOrDeclareReportFunction();
    if (failed(report))
      return failure();
    for (auto [op, bytes] : allocations)
      guard(op, bytes, *report);
    return success();
  }

private:
  /// The bytes of `op`'s element times its static sizes; nullopt when that
  /// is unknown or already over the limit (nothing to check at run time
  /// then).
  static std::optional<int64_t> staticBytes(memref::AllocOp op) {
    MemRefType type = op.getType();
    llvm::TypeSize elementBytes =
        DataLayout::closest(op).getTypeSize(type.getElementType());
    if (elementBytes.isScalable() || elementBytes.getFixedValue() == 0)
      return std::nullopt;
    int64_t bytes = static_cast<int64_t>(elementBytes.getFixedValue());
    for (int64_t size : type.getShape()) {
      if (ShapedType::isDynamic(size))
        continue;
      if (size == 0)
        return std::nullopt;
      if (bytes > kMaxBufferBytes / size)
        return std::nullopt;
      bytes *= size;
    }
    return bytes;
  }

  /// Replaces `op`'s dynamic sizes with checked ones (`staticBytes`: its
  /// element's bytes times its static sizes): when one is negative
  /// or the buffer would take more than kMaxBufferBytes, the runtime is told
  /// (the calling thread's status) and every dynamic size becomes 0, so the
  /// allocation is empty and what would write the buffer finds it so (the
  /// dispatches' operand checks refuse to run). A caller's absurd sizes
  /// thus give an error status instead of a small buffer written past its
  /// end when their product wraps.
  void guard(memref::AllocOp op, int64_t staticBytes, func::FuncOp report) {
    Location loc = op.getLoc();
    OpBuilder b(op);
    CheckBuilder cb(b, loc);
    IndexMath &im = cb.im;
    MemRefType type = op.getType();
    // Bytes of what the sizes so far make, and whether they went over the
    // limit (meaningless once over; only a zero size makes it fine again).
    Value bytes = im.c(staticBytes);
    Value limit = im.c(kMaxBufferBytes), one = im.c(1);
    Value anyZero = arith::ConstantIntOp::create(b, loc, 0, 1);
    SmallVector<Check> negative, tooLarge;
    ValueRange sizes = op.getDynamicSizes();
    SmallVector<int64_t> dynamicDims;
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      if (ShapedType::isDynamic(size))
        dynamicDims.push_back(static_cast<int64_t>(d));
    for (auto [d, size] : llvm::zip_equal(dynamicDims, sizes)) {
      int32_t dim = static_cast<int32_t>(d) << QUILT_RT_CHECK_DIM_SHIFT;
      Value isNegative =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, size, cb.zero);
      negative.push_back(
          {QUILT_RT_CHECK_BUFFER_NEGATIVE_SIZE | dim, isNegative, size, cb.zero});
      // size > 0 and bytes * size > limit, by division (no overflow).
      Value isZero = im.eq(size, cb.zero);
      anyZero = arith::OrIOp::create(b, loc, anyZero, isZero);
      Value divisor = arith::MaxSIOp::create(b, loc, size, one);
      Value over = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::sgt, bytes,
          arith::DivSIOp::create(b, loc, limit, divisor));
      tooLarge.push_back(
          {QUILT_RT_CHECK_BUFFER_TOO_LARGE | dim, over, size, limit});
      bytes = im.mul(bytes, divisor);
    }
    // Negative sizes first; a size of 0 makes any product valid.
    Value notEmpty = arith::XOrIOp::create(
        b, loc, anyZero, arith::ConstantIntOp::create(b, loc, 1, 1));
    for (Check &check : tooLarge)
      check.failed = arith::AndIOp::create(b, loc, check.failed, notEmpty);
    cb.checks = std::move(negative);
    llvm::append_range(cb.checks, tooLarge);
    auto [code, got, expected] = cb.firstFailure();
    Value failed = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, code,
        arith::ConstantIntOp::create(b, loc, 0, 32));
    auto ifOp = scf::IfOp::create(b, loc, failed, /*withElseRegion=*/false);
    OpBuilder then = ifOp.getThenBodyBuilder();
    Value address =
        LLVM::AddressOfOp::create(then, loc, stringGlobal(loc, describe(op)));
    func::CallOp::create(then, loc, report,
                         ValueRange{address, code, got, expected});
    SmallVector<Value> checked;
    for (Value size : sizes)
      checked.push_back(
          arith::SelectOp::create(b, loc, failed, cb.zero, size));
    op.getDynamicSizesMutable().assign(checked);
  }

  FunctionType reportFunctionType() {
    Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
    return FunctionType::get(ctx, {ptrType, i32, i64, i64}, {i32});
  }

  FailureOr<func::FuncOp> getOrDeclareReportFunction() {
    if (Operation *existing = symbols.lookup(kReportFunction)) {
      auto func = dyn_cast<func::FuncOp>(existing);
      if (!func || func.getFunctionType() != reportFunctionType())
        return existing->emitError()
               << "'" << kReportFunction
               << "' is reserved for Quilt's runtime and must be declared as "
               << reportFunctionType();
      return func;
    }
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto func = func::FuncOp::create(b, module.getLoc(), kReportFunction,
                                     reportFunctionType());
    func.setPrivate();
    symbols.insert(func);
    return func;
  }

  /// An internal constant holding `text`, NUL-terminated.
  LLVM::GlobalOp stringGlobal(Location loc, std::string text) {
    text.push_back('\0');
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto type = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), text.size());
    auto global = LLVM::GlobalOp::create(
        b, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal,
        "__quilt_dispatch_description", b.getStringAttr(text));
    symbols.insert(global);
    return global;
  }

  void guard(DispatchOp op, func::FuncOp report, const std::string &text) {
    Location loc = op.getLoc();
    OpBuilder b(op);
    CheckBuilder cb(b, loc);
    bool conv = op.getKind() == ContractionKind::conv2d_nhwc ||
                op.getKind() == ContractionKind::conv2d_nchw;
    if (conv) {
      cb.nonNull(QUILT_RT_CHECK_NULL_INPUT, op.getLhs());
      cb.nonNull(QUILT_RT_CHECK_NULL_FILTER, op.getRhs());
      cb.nonNull(QUILT_RT_CHECK_NULL_OUTPUT, op.getInit());
    } else {
      cb.nonNull(QUILT_RT_CHECK_NULL_A, op.getLhs());
      cb.nonNull(QUILT_RT_CHECK_NULL_B, op.getRhs());
      cb.nonNull(QUILT_RT_CHECK_NULL_C, op.getInit());
    }
    if (Value bias = op.getBias())
      cb.nonNull(QUILT_RT_CHECK_NULL_BIAS, bias);
    for (auto [index, operand] : llvm::enumerate(op.getEpilogueOperands()))
      if (isa<MemRefType>(operand.getType()))
        cb.nonNull(
            QUILT_RT_CHECK_NULL_EPILOGUE |
                static_cast<int32_t>(index << QUILT_RT_CHECK_OPERAND_SHIFT),
            operand);
    if (conv)
      addConvChecks(cb, op);
    else
      addGemmChecks(cb, op);

    auto [code, got, expected] = cb.firstFailure();
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
    Value failed =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, code, zero);
    LLVM::GlobalOp description = stringGlobal(loc, text);
    auto ifOp = scf::IfOp::create(b, loc, failed, /*withElseRegion=*/true);
    OpBuilder then = ifOp.getThenBodyBuilder();
    Value address = LLVM::AddressOfOp::create(then, loc, description);
    func::CallOp::create(then, loc, report,
                         ValueRange{address, code, got, expected});
    op->moveBefore(ifOp.elseBlock()->getTerminator());
  }

  ModuleOp module;
  SymbolTable symbols;
  MLIRContext *ctx;
  Type ptrType;
};

} // namespace

LogicalResult mlir::ukernel::guardDispatchOperands(ModuleOp module) {
  return OperandGuard(module).guardDispatches();
}

LogicalResult mlir::ukernel::guardAllocationSizes(ModuleOp module) {
  return OperandGuard(module).guardAllocations();
}
