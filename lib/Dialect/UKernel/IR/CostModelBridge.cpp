//===- CostModelBridge.cpp - ukernel attributes <-> cost model ------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Dialect/UKernel/IR/CostModelBridge.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::ukernel;

// The dialect's enums and the library's are declared case for case in the
// same order and with the same spellings; converting by value is exact, and
// the unit tests check the spellings against each other.
static_assert(static_cast<int>(quilt::InstKind::CpuFma) ==
                  static_cast<int>(InstructionKind::cpu_fma),
              "InstructionKind and quilt::InstKind must list the same cases");
static_assert(static_cast<int>(quilt::BoundaryPolicy::Patch) ==
                  static_cast<int>(BoundaryPolicy::patch),
              "BoundaryPolicy enums must list the same cases");
static_assert(static_cast<int>(quilt::Vendor::CPU) ==
                  static_cast<int>(Vendor::cpu),
              "Vendor enums must list the same cases");
static_assert(static_cast<int>(quilt::SelectionPolicy::Patch) ==
                      static_cast<int>(SelectionPolicy::patch) &&
                  static_cast<int>(quilt::SelectionPolicy::Fixed) ==
                      static_cast<int>(SelectionPolicy::fixed),
              "SelectionPolicy enums must list the same cases");

quilt::InstKind mlir::ukernel::toCostModel(InstructionKind kind) {
  return static_cast<quilt::InstKind>(kind);
}
quilt::BoundaryPolicy mlir::ukernel::toCostModel(BoundaryPolicy policy) {
  return static_cast<quilt::BoundaryPolicy>(policy);
}
quilt::Vendor mlir::ukernel::toCostModel(Vendor vendor) {
  return static_cast<quilt::Vendor>(vendor);
}
quilt::SelectionPolicy mlir::ukernel::toCostModel(SelectionPolicy policy) {
  return static_cast<quilt::SelectionPolicy>(policy);
}
InstructionKind mlir::ukernel::fromCostModel(quilt::InstKind kind) {
  return static_cast<InstructionKind>(kind);
}
BoundaryPolicy mlir::ukernel::fromCostModel(quilt::BoundaryPolicy policy) {
  return static_cast<BoundaryPolicy>(policy);
}
Vendor mlir::ukernel::fromCostModel(quilt::Vendor vendor) {
  return static_cast<Vendor>(vendor);
}

quilt::OpKind mlir::ukernel::toCostModel(ContractionKind kind) {
  switch (kind) {
  case ContractionKind::matmul:
    return quilt::OpKind::Matmul;
  case ContractionKind::batch_matmul:
    return quilt::OpKind::BatchMatmul;
  case ContractionKind::conv2d_nhwc:
    return quilt::OpKind::Conv2dNhwcHwcf;
  case ContractionKind::conv2d_nchw:
    return quilt::OpKind::Conv2dNchwFchw;
  }
  llvm_unreachable("unknown contraction kind");
}

std::optional<quilt::ElemType> mlir::ukernel::toCostModelElemType(Type type) {
  if (type.isF32())
    return quilt::ElemType::F32;
  if (type.isF16())
    return quilt::ElemType::F16;
  if (type.isBF16())
    return quilt::ElemType::BF16;
  if (type.isF64())
    return quilt::ElemType::F64;
  return std::nullopt;
}

quilt::KernelConfig mlir::ukernel::toKernelConfig(ConfigAttr config) {
  quilt::KernelConfig cfg;
  cfg.tileM = config.getTileM();
  cfg.tileN = config.getTileN();
  cfg.tileK = config.getTileK();
  cfg.threads = config.getThreads();
  cfg.warpsM = config.getWarps()[0];
  cfg.warpsN = config.getWarps()[1];
  cfg.threadTileM = config.getThreadTile()[0];
  cfg.threadTileN = config.getThreadTile()[1];
  cfg.vectorWidth = config.getVectorWidth();
  cfg.stages = config.getStages();
  cfg.splitK = config.getSplitK();
  cfg.streamK = config.getStreamK();
  cfg.inst = toCostModel(config.getInstruction());
  cfg.boundary = toCostModel(config.getBoundary());
  return cfg;
}

ConfigAttr mlir::ukernel::getConfigAttr(MLIRContext *context,
                                        const quilt::KernelConfig &cfg) {
  return ConfigAttr::get(context, {cfg.tileM, cfg.tileN, cfg.tileK},
                         cfg.threads, {cfg.warpsM, cfg.warpsN},
                         {cfg.threadTileM, cfg.threadTileN}, cfg.vectorWidth,
                         cfg.stages, fromCostModel(cfg.inst),
                         fromCostModel(cfg.boundary), cfg.splitK, cfg.streamK);
}

std::vector<quilt::TunedRegion> mlir::ukernel::toTunedRegions(ArrayAttr tuned) {
  std::vector<quilt::TunedRegion> regions;
  if (!tuned)
    return regions;
  for (Attribute attr : tuned) {
    auto region = cast<TunedAttr>(attr);
    quilt::TunedRegion r;
    r.candidate = int32_t(region.getCandidate());
    llvm::copy(region.getLower(), r.region.lower.begin());
    llvm::copy(region.getUpper(), r.region.upper.begin());
    r.source = region.getSource().str();
    regions.push_back(std::move(r));
  }
  return regions;
}

TunedAttr mlir::ukernel::getTunedAttr(MLIRContext *context,
                                      const quilt::TunedRegion &region) {
  return TunedAttr::get(context, region.candidate, region.region.lower,
                        region.region.upper, region.source);
}

quilt::TargetDesc mlir::ukernel::toTargetDesc(TargetAttr target) {
  quilt::TargetDesc desc;
  desc.name = target.getName().str();
  desc.vendor = toCostModel(target.getVendor());
  desc.chip = target.getChip().str();
  desc.description = target.getDescription().str();
  desc.computeUnits = target.getComputeUnits();
  desc.warpSize = target.getWarpSize();
  desc.subPartitions = target.getSubPartitions();
  desc.maxThreadsPerBlock = target.getMaxThreadsPerBlock();
  desc.maxThreadsPerCU = target.getMaxThreadsPerCu();
  desc.maxBlocksPerCU = target.getMaxBlocksPerCu();
  desc.registersPerBlock = target.getRegistersPerBlock();
  desc.registersPerCU = target.getRegistersPerCu();
  desc.maxRegistersPerThread = target.getMaxRegistersPerThread();
  desc.sharedMemPerBlock = target.getSharedMemPerBlock();
  desc.sharedMemPerCU = target.getSharedMemPerCu();
  desc.l1Bytes = target.getL1Bytes();
  desc.l2Bytes = target.getL2Bytes();
  desc.l3Bytes = target.getL3Bytes();
  desc.memBandwidthGBs = target.getMemBandwidthGbs().convertToDouble();
  desc.clockGHz = target.getClockGhz().convertToDouble();
  desc.onChipBytesPerClock = target.getOnchipBytesPerClock().convertToDouble();
  for (const InstructionPeak &peak : target.getPeakTflops())
    desc.peakTflops[static_cast<int>(peak.kind)] = peak.tflops;
  if (CalibrationAttr calibration = target.getCalibration()) {
    desc.calibration.computeEfficiency =
        calibration.getComputeEfficiency().convertToDouble();
    desc.calibration.memoryEfficiency =
        calibration.getMemoryEfficiency().convertToDouble();
    desc.calibration.launchOverheadUs =
        calibration.getLaunchOverheadUs().convertToDouble();
    desc.calibration.tileOverheadUs =
        calibration.getTileOverheadUs().convertToDouble();
  }
  desc.vectorBits = target.getVectorBits();
  desc.fmaUnitsPerCore = target.getFmaUnitsPerCore();
  desc.f64PeakTflops = target.getF64Tflops().convertToDouble();
  desc.l2BytesPerClock = target.getL2BytesPerClock().convertToDouble();
  return desc;
}

TargetAttr mlir::ukernel::getTargetAttr(MLIRContext *context,
                                        const quilt::TargetDesc &desc) {
  SmallVector<InstructionPeak> peaks;
  for (int i = 0; i < quilt::kNumInstKinds; ++i)
    if (desc.peakTflops[i] > 0)
      peaks.push_back({static_cast<InstructionKind>(i), desc.peakTflops[i]});
  return TargetAttr::get(
      context, desc.name, fromCostModel(desc.vendor), desc.chip,
      desc.description, desc.computeUnits, desc.warpSize, desc.subPartitions,
      desc.maxThreadsPerBlock, desc.maxThreadsPerCU, desc.maxBlocksPerCU,
      desc.registersPerBlock, desc.registersPerCU, desc.maxRegistersPerThread,
      desc.sharedMemPerBlock, desc.sharedMemPerCU, desc.l1Bytes, desc.l2Bytes,
      desc.l3Bytes, APFloat(desc.memBandwidthGBs), APFloat(desc.clockGHz),
      APFloat(desc.onChipBytesPerClock), peaks,
      CalibrationAttr::get(context, APFloat(desc.calibration.computeEfficiency),
                           APFloat(desc.calibration.memoryEfficiency),
                           APFloat(desc.calibration.launchOverheadUs),
                           APFloat(desc.calibration.tileOverheadUs)),
      desc.vectorBits, desc.fmaUnitsPerCore, APFloat(desc.f64PeakTflops),
      APFloat(desc.l2BytesPerClock));
}
