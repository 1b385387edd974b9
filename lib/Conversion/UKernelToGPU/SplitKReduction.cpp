//===- SplitKReduction.cpp - Finishing a split-K product ------------------===//
//
// Part of the Quilt project. A split-K candidate launches its kernel over
// (matrices x splits) in grid z: each block multiplies its split's range of
// K and stores the tile's partial sums into a workspace matrix of its own.
// This kernel then finishes C, one thread per element:
//
//   sum = ((0 + P[split 0]) + P[split 1]) + ... + P[split S - 1]
//   C   = epilogue(C + sum)
//
// The splits are summed in their order, so the result does not depend on
// which blocks ran first (no atomics): the same inputs give the same bits.
// Consecutive threads read consecutive columns of the workspace rows.
//
//===----------------------------------------------------------------------===//

#include "GpuKernel.h"

#include "Conversion/Utils/IndexMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::gpucg;

void mlir::ukernel::gpucg::buildSplitKReductionBody(OpBuilder &b, Location loc,
                                                    const GpuKernelSpec &spec,
                                                    gpu::GPUFuncOp func) {
  IndexMath im{b, loc};
  Block &entry = func.getBody().front();
  Value c = entry.getArgument(0);
  Value bias = spec.biasType ? entry.getArgument(1) : Value();
  SmallVector<Value> fusedOperands;
  for (unsigned i = 0; i < spec.numFusedOperands(); ++i)
    fusedOperands.push_back(entry.getArgument(spec.firstFusedOperand() + i));
  unsigned at = spec.firstSplitKOperand();
  Value workspace = entry.getArgument(at), splits = entry.getArgument(at + 1);

  Value row = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value col = im.add(im.mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y),
                            im.c(kSplitKReductionThreads)),
                     gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value matrix = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  if (spec.batched) {
    c = matrixAt(b, loc, c, matrix);
    for (Value &operand : fusedOperands)
      if (auto type = dyn_cast<MemRefType>(operand.getType());
          type && type.getRank() == 3)
        operand = matrixAt(b, loc, operand, matrix);
  }
  // The GEMM view of C: a convolution's region has `rows` GEMM rows from
  // `rowOrigin` of its whole output.
  Value m, n, rowOrigin;
  ConvGeometry conv;
  if (spec.isConv()) {
    unsigned next = spec.firstConvIndexOperand();
    // The split-K kernel, launched first, traps where the 32-bit pixel
    // divisions would not fit.
    conv = convOutputGeometry(b, loc, spec, c);
    rowOrigin = entry.getArgument(next);
    m = entry.getArgument(next + 1);
    n = conv.filters;
  } else {
    m = memref::DimOp::create(b, loc, c, 0);
    n = memref::DimOp::create(b, loc, c, 1);
  }
  EpilogueWriter writer(spec, c, bias, fusedOperands,
                        spec.isConv() ? &conv : nullptr, rowOrigin);

  Value inside = arith::AndIOp::create(b, loc, im.lt(row, m), im.lt(col, n));
  scf::IfOp::create(b, loc, inside, [&](OpBuilder &tb, Location l) {
    IndexMath tm{tb, l};
    Type computeType = spec.computeType();
    Value zero =
        arith::ConstantOp::create(tb, l, tb.getFloatAttr(computeType, 0.0));
    Value first = tm.mul(matrix, splits);
    auto sumLoop = scf::ForOp::create(
        tb, l, tm.c(0), splits, tm.c(1), ValueRange{zero},
        [&](OpBuilder &lb, Location ll, Value s, ValueRange partial) {
          IndexMath lm{lb, ll};
          Value part = memref::LoadOp::create(
              lb, ll, workspace, ValueRange{lm.add(first, s), row, col});
          scf::YieldOp::create(
              lb, ll,
              ValueRange{arith::AddFOp::create(lb, ll, partial[0], part)});
        });
    writer.store(tb, l, sumLoop.getResult(0), row, col, m, n);
    scf::YieldOp::create(tb, l);
  });
  gpu::ReturnOp::create(b, loc);
}
