//===- EpilogueFusion.cpp - Elementwise consumers into a dispatch ---------===//
//
// Part of the Quilt project. Builds a dispatch's fused epilogue body from
// the elementwise consumers of a contraction, by copying their bodies.
//
//===----------------------------------------------------------------------===//

#include "EpilogueFusion.h"

#include "Conversion/Utils/Views.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::ukernel;
using mlir::ukernel::viewRoot;
using quilt::EpilogueChain;

namespace {

bool isScalarType(Type type) {
  return isa<FloatType, IntegerType, IndexType>(type);
}

bool isAllocation(Value buffer) {
  return buffer.getDefiningOp<memref::AllocOp>() ||
         buffer.getDefiningOp<memref::AllocaOp>();
}

} // namespace

bool quilt::touchesNoMemory(Operation *op) {
  if (isMemoryEffectFree(op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && effects.onlyHasEffect<MemoryEffects::Allocate>();
}

namespace {

/// Builds the chain's body consumer by consumer. Each consumer is checked
/// whole before any of it is copied, so a chain stops cleanly at the first
/// consumer that cannot be fused.
class ChainBuilder {
public:
  ChainBuilder(linalg::LinalgOp contraction, Operation *bufferFill,
               unsigned outputNDim, Type inputElemType)
      : ctx(contraction->getContext()), inputElemType(inputElemType),
        onBuffers(contraction.hasPureBufferSemantics()),
        contraction(contraction), bufferFill(bufferFill) {
    Value result = onBuffers ? contraction.getDpsInitOperand(0)->get()
                             : contraction->getResult(0);
    rank = cast<ShapedType>(result.getType()).getRank();
    isConv = rank == 4;
    nDim = outputNDim;
    chain.body = std::make_unique<Block>();
    current = result;
    lastWriter = contraction;
    currentInBody = chain.body->addArgument(
        getElementTypeOrSelf(result.getType()), result.getLoc());
  }

  /// The next consumer of the current value if it can join the chain
  /// (canFuse), generalized if it is a named elementwise op; null when
  /// there is none.
  linalg::GenericOp nextFusableConsumer(RewriterBase &rewriter) {
    Operation *user = onBuffers ? nextBufferAccess() : onlyTensorUser();
    if (!user)
      return {};
    auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
    if (!linalgOp || (onBuffers ? !linalgOp.hasPureBufferSemantics()
                                : !linalgOp.hasPureTensorSemantics()))
      return {};
    if (auto generic = dyn_cast<linalg::GenericOp>(user))
      return canFuse(generic) ? generic : linalg::GenericOp();
    if (!linalg::isElementwise(linalgOp))
      return {};
    // A named op is generalized only to be fused: the generic form of a
    // copy is checked, and the op itself replaced only if it can join.
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(user);
    auto copy = cast<linalg::LinalgOp>(rewriter.clone(*user));
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, copy);
    if (failed(generic)) {
      rewriter.eraseOp(copy);
      return {};
    }
    if (!canFuse(*generic)) {
      rewriter.eraseOp(*generic);
      return {};
    }
    rewriter.replaceOp(user, generic->getOperation()->getResults());
    return *generic;
  }

  /// Whether `generic` can join the chain.
  bool canFuse(linalg::GenericOp generic) {
    if (generic.getNumDpsInits() != 1 ||
        generic->getNumResults() != (onBuffers ? 0 : 1) ||
        generic.getNumLoops() != rank ||
        generic.getNumParallelLoops() != generic.getNumLoops())
      return false;
    OpOperand *init = generic.getDpsInitOperand(0);
    // The init gives the output's shape and type. Its value is not read,
    // except that an update of a buffer in place may read the current value
    // through it.
    if (!generic.getMatchingIndexingMap(init).isIdentity())
      return false;
    bool readsCurrent = readsCurrentThroughInit(generic);
    if (!readsCurrent && !generic.getMatchingBlockArgument(init).use_empty())
      return false;
    Value destination = init->get();
    // f64 products keep f64 to the end; others may round to the input type.
    Type outElem = getElementTypeOrSelf(destination.getType());
    if (inputElemType.isF64() ? !outElem.isF64()
                              : !outElem.isF32() && outElem != inputElemType)
      return false;
    for (OpOperand *input : generic.getDpsInputOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(input);
      if (input->get() == current) {
        if (!map.isIdentity())
          return false;
        readsCurrent = true;
        continue;
      }
      if (!classify(input->get(), map) ||
          (onBuffers && overlaps(input->get(), destination)))
        return false;
    }
    if (onBuffers && !canWriteBuffer(generic, destination, readsCurrent))
      return false;
    Block &body = *generic.getBlock();
    for (Operation &op : body.without_terminator()) {
      if (!isFusableEpilogueOp(&op))
        return false;
      for (Value operand : op.getOperands())
        if (!isLocal(operand, generic) && !isCapturable(operand))
          return false;
    }
    Value yielded = body.getTerminator()->getOperand(0);
    return isLocal(yielded, generic) || isCapturable(yielded);
  }

  /// Copies `generic`'s body after the chain's.
  void append(linalg::GenericOp generic) {
    IRMapping mapping;
    if (readsCurrentThroughInit(generic))
      mapping.map(
          generic.getMatchingBlockArgument(generic.getDpsInitOperand(0)),
          currentInBody);
    for (OpOperand *input : generic.getDpsInputOperands()) {
      BlockArgument arg = generic.getMatchingBlockArgument(input);
      if (input->get() == current) {
        mapping.map(arg, currentInBody);
        continue;
      }
      EpilogueOperandKind kind =
          *classify(input->get(), generic.getMatchingIndexingMap(input));
      mapping.map(arg,
                  addOperand(input->get(), kind, arg.getType(), arg.getLoc()));
    }
    // The body has no region yet: the builder takes the context itself.
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(chain.body.get());
    Block &body = *generic.getBlock();
    auto capture = [&](Value value) {
      if (isLocal(value, generic) || mapping.contains(value))
        return;
      if (Operation *constant = value.getDefiningOp();
          constant && matchPattern(value, m_Constant())) {
        b.clone(*constant, mapping);
        return;
      }
      mapping.map(value, addOperand(value, EpilogueOperandKind::scalar,
                                    value.getType(), value.getLoc()));
    };
    for (Operation &op : body.without_terminator()) {
      for (Value operand : op.getOperands())
        capture(operand);
      b.clone(op, mapping);
    }
    Value yielded = body.getTerminator()->getOperand(0);
    capture(yielded);
    currentInBody = mapping.lookup(yielded);
    Value init = generic.getDpsInitOperand(0)->get();
    if (init != current)
      chain.destination = init;
    current = onBuffers ? init : generic->getResult(0);
    lastWriter = generic;
    chain.consumers.push_back(generic);
  }

  /// Ends the body with its yield; the accumulated value is taken in f32
  /// and rounded to the contraction's type where that type is neither f32
  /// nor the output's.
  EpilogueChain finish() {
    Block &body = *chain.body;
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(&body);
    ukernel::YieldOp::create(b, currentInBody.getLoc(), currentInBody);
    BlockArgument acc = body.getArgument(0);
    Type accType = acc.getType();
    Type outElem = chain.destination
                       ? getElementTypeOrSelf(chain.destination.getType())
                       : accType;
    if (!accType.isF32() && accType != outElem) {
      acc.setType(Float32Type::get(ctx));
      b.setInsertionPointToStart(&body);
      auto rounded = arith::TruncFOp::create(b, acc.getLoc(), accType, acc);
      acc.replaceAllUsesExcept(rounded, rounded);
    }
    return std::move(chain);
  }

  EpilogueChain abandon() { return EpilogueChain(); }

private:
  /// On tensors: the current value's one user, if it has exactly one and
  /// the dispatch may take its place. The dispatch reads the product's
  /// operands and writes its result where the last consumer was, so the
  /// user must be in the same block and nothing in between may touch
  /// memory: a tensor can alias a buffer written in place (through
  /// `bufferization.to_buffer`, a `to_tensor restrict` of a buffer the
  /// program stores into, a call), and moving the product past that write
  /// would change what it reads.
  Operation *onlyTensorUser() const {
    if (current.use_empty())
      return nullptr;
    Operation *user = *current.getUsers().begin();
    if (llvm::any_of(current.getUsers(),
                     [&](Operation *other) { return other != user; }))
      return nullptr;
    if (user->getBlock() != lastWriter->getBlock())
      return nullptr;
    for (Operation *op = lastWriter->getNextNode(); op != user;
         op = op->getNextNode())
      if (!quilt::touchesNoMemory(op))
        return nullptr;
    return user;
  }

  /// On buffers: the first op after the last writer of the current value
  /// that touches memory, in the same block. Everything in between neither
  /// reads nor writes memory (it may allocate), so the dispatch can take the
  /// last consumer's place: nothing sees the buffers in between.
  Operation *nextBufferAccess() const {
    for (Operation *op = lastWriter->getNextNode(); op; op = op->getNextNode())
      if (!quilt::touchesNoMemory(op))
        return op;
    return nullptr;
  }

  /// Whether `generic` updates the current buffer in place and reads its
  /// value through its init.
  bool readsCurrentThroughInit(linalg::GenericOp generic) const {
    OpOperand *init = generic.getDpsInitOperand(0);
    return onBuffers && init->get() == current &&
           !generic.getMatchingBlockArgument(init).use_empty();
  }

  /// Whether two buffers may share memory: views of one allocation or
  /// argument do; distinct allocations and distinct arguments do not (the
  /// same assumption the dispatch makes of its A, B and C).
  static bool overlaps(Value lhs, Value rhs) {
    return viewRoot(lhs) == viewRoot(rhs);
  }

  /// On buffers, whether the chain may write `destination` in the
  /// consumer's place, as the dispatch will: the consumer must read the
  /// current buffer, `destination` must not be one the product reads, and
  /// a current buffer that is not updated in place must be a temporary
  /// nothing else uses (the dispatch never writes it).
  bool canWriteBuffer(linalg::GenericOp generic, Value destination,
                      bool readsCurrent) {
    if (!readsCurrent)
      return false;
    for (Value operand : contraction.getDpsInputs())
      if (overlaps(operand, destination))
        return false;
    if (destination == current)
      return true;
    if (!isAllocation(current))
      return false;
    return llvm::all_of(current.getUsers(), [&](Operation *user) {
      return user == contraction || user == bufferFill || user == generic ||
             isa<memref::DeallocOp>(user) ||
             llvm::is_contained(chain.consumers, user);
    });
  }

  /// How an input other than the chain's value is indexed, if it can be.
  std::optional<EpilogueOperandKind> classify(Value value, AffineMap map) {
    auto type = dyn_cast<ShapedType>(value.getType());
    if (!type || !type.hasRank() || !isScalarType(type.getElementType()))
      return std::nullopt;
    if (map.getNumResults() == 0 && type.getRank() == 0)
      return EpilogueOperandKind::scalar;
    if (!isConv && map.isIdentity() && type.getRank() == rank)
      return EpilogueOperandKind::per_element;
    if (map.getNumResults() != 1 || type.getRank() != 1)
      return std::nullopt;
    if (map.getResult(0) == getAffineDimExpr(nDim, ctx))
      return EpilogueOperandKind::per_column;
    if (!isConv && map.getResult(0) == getAffineDimExpr(nDim - 1, ctx))
      return EpilogueOperandKind::per_row;
    return std::nullopt;
  }

  static bool isLocal(Value value, linalg::GenericOp generic) {
    return generic.getRegion().isAncestor(value.getParentRegion());
  }

  /// A value defined above a consumer that its body may use: a constant
  /// (copied into the body) or a scalar (passed as an operand).
  static bool isCapturable(Value value) {
    return isScalarType(value.getType());
  }

  Value addOperand(Value operand, EpilogueOperandKind kind, Type elemType,
                   Location loc) {
    chain.operands.push_back(operand);
    chain.kinds.push_back(kind);
    return chain.body->addArgument(elemType, loc);
  }

  MLIRContext *ctx;
  Type inputElemType;
  /// Whether the contraction and its consumers write buffers (memrefs).
  bool onBuffers;
  linalg::LinalgOp contraction;
  /// On buffers, the fill the dispatch folds, if any.
  Operation *bufferFill;
  int64_t rank = 0;
  bool isConv = false;
  unsigned nDim = 0;
  EpilogueChain chain;
  /// The chain's value so far (on buffers, the buffer holding it), the op
  /// that last wrote it, and the value in the body.
  Value current;
  Operation *lastWriter;
  Value currentInBody;
};

} // namespace

EpilogueChain quilt::collectEpilogueChain(RewriterBase &rewriter,
                                          linalg::LinalgOp contraction,
                                          Operation *bufferFill,
                                          unsigned outputNDim,
                                          Type inputElemType) {
  bool onTensors = contraction->getNumResults() == 1 &&
                   isa<RankedTensorType>(contraction->getResult(0).getType());
  bool onBuffers =
      contraction.hasPureBufferSemantics() &&
      contraction.getNumDpsInits() == 1 &&
      isa<MemRefType>(contraction.getDpsInitOperand(0)->get().getType());
  if (!onTensors && !onBuffers)
    return EpilogueChain();
  ChainBuilder builder(contraction, bufferFill, outputNDim, inputElemType);
  bool any = false;
  while (linalg::GenericOp consumer = builder.nextFusableConsumer(rewriter)) {
    builder.append(consumer);
    any = true;
  }
  return any ? builder.finish() : builder.abandon();
}
