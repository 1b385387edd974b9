//===- UKernelAttrs.h - ukernel attributes ----------------------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_DIALECT_UKERNEL_IR_UKERNELATTRS_H
#define QUILT_DIALECT_UKERNEL_IR_UKERNELATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/bit.h"

#include "Dialect/UKernel/IR/UKernelEnums.h.inc"

namespace mlir::ukernel {

/// One entry of a target's peak table: dense TFLOP/s of an instruction.
struct InstructionPeak {
  InstructionKind kind;
  double tflops;
  bool operator==(const InstructionPeak &other) const {
    return kind == other.kind && tflops == other.tflops;
  }
};
inline llvm::hash_code hash_value(const InstructionPeak &peak) {
  return llvm::hash_combine(peak.kind, llvm::bit_cast<uint64_t>(peak.tflops));
}

// Custom parameter parsers and printers used by the generated code.
FailureOr<SmallVector<int64_t>> parseShape(AsmParser &parser);
void printShape(AsmPrinter &printer, ArrayRef<int64_t> shape);
FailureOr<llvm::APFloat> parseF64(AsmParser &parser);
void printF64(AsmPrinter &printer, const llvm::APFloat &value);
FailureOr<SmallVector<InstructionPeak>> parsePeakTable(AsmParser &parser);
void printPeakTable(AsmPrinter &printer, ArrayRef<InstructionPeak> peaks);
/// A config's optional `, split_k = S` and `, stream_k = G`, in either
/// order, each printed only when not its default (1, 0).
ParseResult parseTileSharing(AsmParser &parser, int64_t &splitK,
                             int64_t &streamK);
void printTileSharing(AsmPrinter &printer, int64_t splitK, int64_t streamK);

} // namespace mlir::ukernel

#define GET_ATTRDEF_CLASSES
#include "Dialect/UKernel/IR/UKernelAttrs.h.inc"

#endif // QUILT_DIALECT_UKERNEL_IR_UKERNELATTRS_H
