//===- UKernelAttrs.cpp - ukernel attributes ------------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Dialect/UKernel/IR/UKernelAttrs.h"
#include "CostModel/KernelConfig.h"
#include "Dialect/UKernel/IR/CostModelBridge.h"
#include "Dialect/UKernel/IR/UKernelDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::ukernel;

#include "Dialect/UKernel/IR/UKernelEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Dialect/UKernel/IR/UKernelAttrs.cpp.inc"

void UKernelDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Dialect/UKernel/IR/UKernelAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Custom parameters
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>> mlir::ukernel::parseShape(AsmParser &parser) {
  SmallVector<int64_t> shape;
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/false))
    return failure();
  return shape;
}

void mlir::ukernel::printShape(AsmPrinter &printer, ArrayRef<int64_t> shape) {
  llvm::interleave(shape, printer.getStream(), "x");
}

ParseResult mlir::ukernel::parseTileSharing(AsmParser &parser, int64_t &splitK,
                                            int64_t &streamK) {
  splitK = 1, streamK = 0;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc at = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return failure();
    int64_t *field = key == "split_k"    ? &splitK
                     : key == "stream_k" ? &streamK
                                         : nullptr;
    if (!field)
      return parser.emitError(at, "expected 'split_k' or 'stream_k', got '")
             << key << "'";
    if (parser.parseEqual() || parser.parseInteger(*field))
      return failure();
  }
  return success();
}

void mlir::ukernel::printTileSharing(AsmPrinter &printer, int64_t splitK,
                                     int64_t streamK) {
  if (splitK != 1)
    printer << ", split_k = " << splitK;
  if (streamK != 0)
    printer << ", stream_k = " << streamK;
}

FailureOr<APFloat> mlir::ukernel::parseF64(AsmParser &parser) {
  double value;
  if (parser.parseFloat(value))
    return failure();
  return APFloat(value);
}

/// Shortest decimal form that reads back to the same double, always with a
/// '.' so that MLIR's lexer reads it as a float: `19.5`, `2000.0`, and
/// exponent form only for very large or small magnitudes (`1.5e+20`).
void mlir::ukernel::printF64(AsmPrinter &printer, const APFloat &value) {
  double number = value.convertToDouble();
  if (!std::isfinite(number)) {
    printer.printFloat(value);
    return;
  }
  char text[64];
  double magnitude = std::fabs(number);
  bool fixed = magnitude == 0.0 || (magnitude >= 1e-4 && magnitude < 1e15);
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(text, sizeof(text), fixed ? "%.*f" : "%.*e", precision,
                  number);
    if (std::strtod(text, nullptr) == number)
      break;
  }
  printer << text;
}

FailureOr<SmallVector<InstructionPeak>>
mlir::ukernel::parsePeakTable(AsmParser &parser) {
  SmallVector<InstructionPeak> peaks;
  auto parseEntry = [&]() -> ParseResult {
    FailureOr<InstructionKind> kind =
        FieldParser<InstructionKind>::parse(parser);
    if (failed(kind) || parser.parseEqual())
      return failure();
    double tflops;
    if (parser.parseFloat(tflops))
      return failure();
    peaks.push_back({*kind, tflops});
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Braces, parseEntry,
                                     " in peak table"))
    return failure();
  return peaks;
}

void mlir::ukernel::printPeakTable(AsmPrinter &printer,
                                   ArrayRef<InstructionPeak> peaks) {
  printer << "{";
  llvm::interleaveComma(peaks, printer, [&](const InstructionPeak &peak) {
    printer << stringifyInstructionKind(peak.kind) << " = ";
    printF64(printer, APFloat(peak.tflops));
  });
  printer << "}";
}

//===----------------------------------------------------------------------===//
// TunedAttr
//===----------------------------------------------------------------------===//

LogicalResult TunedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t candidate, ArrayRef<int64_t> lower,
                                ArrayRef<int64_t> upper, StringRef source) {
  if (candidate < 0)
    return emitError() << "candidate must be a non-negative index, got "
                       << candidate;
  if (lower.size() != 4 || upper.size() != 4)
    return emitError() << "lower and upper must have 4 sizes (BxMxNxK), got "
                       << lower.size() << " and " << upper.size();
  static const char *const kDims[4] = {"b", "m", "n", "k"};
  for (int d = 0; d < 4; ++d)
    if (lower[d] < 0 || upper[d] < lower[d])
      return emitError() << "bounds of " << kDims[d] << " must satisfy 0 <= "
                         << "lower <= upper, got " << lower[d] << ".."
                         << upper[d];
  return success();
}

//===----------------------------------------------------------------------===//
// ConfigAttr
//===----------------------------------------------------------------------===//

LogicalResult ConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> tile,
    int64_t threads, ArrayRef<int64_t> warps, ArrayRef<int64_t> threadTile,
    int64_t vectorWidth, int64_t stages, InstructionKind instruction,
    BoundaryPolicy boundary, int64_t splitK, int64_t streamK) {
  // Arity is the dialect's business (the library's struct has fixed fields);
  // everything else is the library's, so the verifier, the candidate
  // generator and the cost model agree on what a valid configuration is.
  if (tile.size() != 3)
    return emitError() << "tile must have 3 sizes (MxNxK), got " << tile.size();
  if (warps.size() != 2)
    return emitError() << "warps must have 2 sizes (MxN), got " << warps.size();
  if (threadTile.size() != 2)
    return emitError() << "thread_tile must have 2 sizes (MxN), got "
                       << threadTile.size();
  quilt::KernelConfig cfg;
  cfg.tileM = tile[0];
  cfg.tileN = tile[1];
  cfg.tileK = tile[2];
  cfg.threads = threads;
  cfg.warpsM = warps[0];
  cfg.warpsN = warps[1];
  cfg.threadTileM = threadTile[0];
  cfg.threadTileN = threadTile[1];
  cfg.vectorWidth = vectorWidth;
  cfg.stages = stages;
  cfg.splitK = splitK;
  cfg.streamK = streamK;
  cfg.inst = toCostModel(instruction);
  cfg.boundary = toCostModel(boundary);
  // A CPU kernel's N-direction instruction width is its vector width.
  std::string reason = quilt::checkStructure(cfg, /*cpuLanes=*/vectorWidth);
  if (!reason.empty())
    return emitError() << reason;
  return success();
}

/// A double as people write it in diagnostics: `-0.5`, `2039`.
static std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

//===----------------------------------------------------------------------===//
// CalibrationAttr
//===----------------------------------------------------------------------===//

LogicalResult
CalibrationAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        APFloat computeEfficiency, APFloat memoryEfficiency,
                        APFloat launchOverheadUs, APFloat tileOverheadUs) {
  for (auto [name, value] :
       {std::pair<StringRef, double>{"compute_efficiency",
                                     computeEfficiency.convertToDouble()},
        {"memory_efficiency", memoryEfficiency.convertToDouble()}})
    if (!(value > 0 && value <= 1))
      return emitError() << name << " must be in (0, 1], got "
                         << formatNumber(value);
  for (auto [name, value] :
       {std::pair<StringRef, double>{"launch_overhead_us",
                                     launchOverheadUs.convertToDouble()},
        {"tile_overhead_us", tileOverheadUs.convertToDouble()}})
    if (!(value >= 0))
      return emitError() << name << " must not be negative, got "
                         << formatNumber(value);
  return success();
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

LogicalResult TargetAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringRef name, Vendor vendor,
    StringRef chip, StringRef description, int64_t computeUnits,
    int64_t warpSize, int64_t subPartitions, int64_t maxThreadsPerBlock,
    int64_t maxThreadsPerCu, int64_t maxBlocksPerCu, int64_t registersPerBlock,
    int64_t registersPerCu, int64_t maxRegistersPerThread,
    int64_t sharedMemPerBlock, int64_t sharedMemPerCu, int64_t l1Bytes,
    int64_t l2Bytes, int64_t l3Bytes, APFloat memBandwidth, APFloat clock,
    APFloat onChipBytesPerClock, ArrayRef<InstructionPeak> peaks,
    CalibrationAttr calibration, int64_t vectorBits, int64_t fmaUnitsPerCore,
    APFloat f64Tflops, APFloat l2BytesPerClock) {
  if (name.empty())
    return emitError() << "target name must not be empty";
  if (computeUnits <= 0)
    return emitError() << "compute_units must be positive, got "
                       << computeUnits;
  if (warpSize <= 0 || !llvm::isPowerOf2_64(warpSize))
    return emitError() << "warp_size must be a positive power of two, got "
                       << warpSize;
  if (maxThreadsPerBlock < warpSize)
    return emitError() << "max_threads_per_block (" << maxThreadsPerBlock
                       << ") must be at least the warp size (" << warpSize
                       << ")";
  for (auto [field, value] :
       {std::pair<StringRef, int64_t>{"sub_partitions", subPartitions},
        {"max_threads_per_cu", maxThreadsPerCu},
        {"max_blocks_per_cu", maxBlocksPerCu},
        {"registers_per_block", registersPerBlock},
        {"registers_per_cu", registersPerCu},
        {"max_registers_per_thread", maxRegistersPerThread},
        {"shared_mem_per_block", sharedMemPerBlock},
        {"shared_mem_per_cu", sharedMemPerCu},
        {"l1_bytes", l1Bytes},
        {"l2_bytes", l2Bytes},
        {"l3_bytes", l3Bytes},
        {"vector_bits", vectorBits},
        {"fma_units_per_core", fmaUnitsPerCore}})
    if (value < 0)
      return emitError() << field << " must not be negative, got " << value;
  double memBandwidthGbs = memBandwidth.convertToDouble();
  double clockGhz = clock.convertToDouble();
  if (!(memBandwidthGbs > 0))
    return emitError() << "mem_bandwidth_gbs must be positive, got "
                       << formatNumber(memBandwidthGbs);
  if (!(clockGhz > 0))
    return emitError() << "clock_ghz must be positive, got "
                       << formatNumber(clockGhz);
  if (onChipBytesPerClock.isNegative())
    return emitError() << "onchip_bytes_per_clock must not be negative";
  if (f64Tflops.isNegative() || f64Tflops.isNaN())
    return emitError() << "f64_tflops must not be negative";
  if (l2BytesPerClock.isNegative() || l2BytesPerClock.isNaN())
    return emitError() << "l2_bytes_per_clock must not be negative";
  if (vendor == Vendor::cpu && !l2BytesPerClock.isZero())
    return emitError() << "l2_bytes_per_clock is a GPU figure";
  if (vendor == Vendor::cpu) {
    if (warpSize != 1)
      return emitError() << "a cpu target has warp_size 1, got " << warpSize;
    if (vectorBits <= 0 || vectorBits % 32 != 0)
      return emitError()
             << "a cpu target needs vector_bits, a positive multiple of 32";
  } else if (sharedMemPerBlock <= 0) {
    return emitError() << (vendor == Vendor::amd ? "an " : "a ")
                       << stringifyVendor(vendor)
                       << " target needs shared_mem_per_block";
  } else if (warpSize != 32 && !(vendor == Vendor::amd && warpSize == 64)) {
    // Quilt's GPU kernels are written for warps of 32 (NVIDIA) and waves
    // of 64 or 32 (AMD); candidate enumeration divides by the lanes.
    return emitError() << (vendor == Vendor::amd ? "an " : "a ")
                       << stringifyVendor(vendor) << " target has warp_size "
                       << (vendor == Vendor::amd ? "32 or 64" : "32")
                       << ", got " << warpSize;
  }
  llvm::SmallSet<InstructionKind, 8> seen;
  bool anyPeak = false;
  for (const InstructionPeak &peak : peaks) {
    if (!seen.insert(peak.kind).second)
      return emitError() << "peak_tflops lists '"
                         << stringifyInstructionKind(peak.kind) << "' twice";
    if (!(peak.tflops >= 0))
      return emitError() << "peak_tflops of '"
                         << stringifyInstructionKind(peak.kind)
                         << "' must not be negative";
    anyPeak |= peak.tflops > 0;
  }
  if (!anyPeak)
    return emitError() << "peak_tflops must give a positive peak for at "
                          "least one instruction";
  return success();
}

double TargetAttr::getPeak(InstructionKind kind) const {
  for (const InstructionPeak &peak : getPeakTflops())
    if (peak.kind == kind)
      return peak.tflops;
  return 0.0;
}
