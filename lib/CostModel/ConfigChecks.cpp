//===- ConfigChecks.cpp - Validity and resources of a micro-kernel config -===//
//
// Part of the Quilt project. One notion of "valid" shared by the dialect's
// verifier, the candidate generator and the cost model. Every rejection is
// one sentence naming the field, the offending value and what would be right.
//
//===----------------------------------------------------------------------===//

#include "CostModel/KernelConfig.h"

#include "CostModel/GpuSharedMemory.h"

#include <algorithm>
#include <cstdio>

namespace quilt {

namespace {

/// Longest pipeline the code generator emits; deeper ones never pay off on
/// the targets we know and only burn shared memory.
constexpr int64_t kMaxStages = 8;
/// Registers a kernel needs beyond accumulators, operand fragments and
/// staged loads: addresses, loop counters, predicates, the epilogue's
/// indices. Fitted to the registers ptxas (CUDA 13) and LLVM 22's AMDGPU
/// backend give the default candidates (docs/cost-model.md, "Registers");
/// AMD keeps 64-bit addresses and more of the loop state in VGPRs.
constexpr int64_t kNvidiaRegisterOverhead = 32;
/// What a split-K kernel keeps live across its K loop besides: for the
/// fixup of its last block (SplitKFixup.cpp), C's and the bias's
/// descriptors, the workspace's and the counters' (64-bit addresses and
/// indices, two registers each). ptxas gave 5 to 26 more registers than
/// the kernels' whole-K twins (a100, contractions.mlir).
constexpr int64_t kSplitKFixupRegisters = 16;
/// What a stream-K kernel keeps besides, across its persistent loop over
/// segments: the operands' descriptors and the loop's 64-bit unit and tile
/// state (KernelBuilder.cpp). ptxas gave a100 stream-K kernels 40 to 58
/// registers more than their whole-tile twins, the fixup's included
/// (contractions.mlir): 16 + 32 = 48 in the estimate.
constexpr int64_t kStreamKLoopRegisters = 32;
constexpr int64_t kAmdRegisterOverhead = 48;
/// Architectural VGPRs of an AMD lane; CDNA adds as many accumulation VGPRs.
constexpr int64_t kArchitecturalVgprs = 256;
/// Register allocation granularity per thread (NVIDIA allocates 256 per
/// warp, AMD in blocks of 8 VGPRs).
constexpr int64_t kRegisterGranule = 8;
/// GPUs issue at most 16-byte (128-bit) vector loads per thread.
constexpr int64_t kMaxGpuAccessBytes = 16;

std::string kib(int64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f KiB", bytes / 1024.0);
  return buf;
}

std::string str(int64_t v) { return std::to_string(v); }

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// Per-warp extent of one instruction along M: a wgmma's 64 rows are split
/// over the 4 warps of its warpgroup.
int64_t instWarpM(InstKind inst) {
  return inst == InstKind::Wgmma ? 16 : instShape(inst).m;
}

/// 32-bit registers a thread holds for operand fragments. A matrix
/// instruction's A fragments stay live while the row of B fragments is
/// read one by one, and the compilers load the next k step's A fragments
/// during the current one's instructions: 2 x A + B.
int64_t operandRegisters(const KernelConfig &cfg) {
  int64_t wm = cfg.warpTileM(), wn = cfg.warpTileN();
  auto fragments = [](int64_t aRegs, int64_t bRegs) {
    return 2 * aRegs + bRegs;
  };
  switch (cfg.inst) {
  case InstKind::SimtFma:
    // Double-buffered column of A and row of B, widened to f32.
    return 2 * (cfg.threadTileM + cfg.threadTileN);
  case InstKind::MmaSyncF16:
  case InstKind::MmaSyncTf32:
  case InstKind::Wgmma: // issued as mma.sync m16n8k16 (docs/gpu-codegen.md)
    // m16 A fragment: 4 registers; n8 B fragment: 2 registers.
    return fragments(wm / 16 * 4, wn / 8 * 2);
  case InstKind::Mfma32x32x8:
    return fragments(wm / 32 * 2, wn / 32 * 2);
  case InstKind::Mfma16x16x16:
    return fragments(wm / 16 * 2, wn / 16 * 2);
  case InstKind::Wmma16x16x16:
    // RDNA3 replicates 16 halves of each operand in every lane.
    return fragments(wm / 16 * 8, wn / 16 * 8);
  case InstKind::CpuFma:
    return 0;
  }
  return 0;
}

/// Vector registers a CPU register block needs: mr x (nr / lanes)
/// accumulators, one row of B (nr / lanes vectors), one broadcast of A.
int64_t cpuVectorRegisters(const KernelConfig &cfg, int64_t lanes) {
  int64_t nrVectors = cfg.threadTileN / std::max<int64_t>(lanes, 1);
  return cfg.threadTileM * nrVectors + nrVectors + 1;
}

std::string checkPositive(const KernelConfig &cfg) {
  struct Field {
    const char *name;
    int64_t value;
  };
  const Field fields[] = {{"tile M", cfg.tileM},
                          {"tile N", cfg.tileN},
                          {"tile K", cfg.tileK},
                          {"threads", cfg.threads},
                          {"warps M", cfg.warpsM},
                          {"warps N", cfg.warpsN},
                          {"thread tile M", cfg.threadTileM},
                          {"thread tile N", cfg.threadTileN},
                          {"vector width", cfg.vectorWidth},
                          {"stages", cfg.stages},
                          {"split-K", cfg.splitK}};
  for (const Field &f : fields)
    if (f.value < 1)
      return std::string(f.name) + " must be positive (got " + str(f.value) +
             ")";
  if (cfg.streamK < 0)
    return "stream-K must be 0 (off) or the number of blocks that share the "
           "tiles (got " +
           str(cfg.streamK) + ")";
  if (cfg.streamK > 0 && cfg.splitK > 1)
    return "a configuration splits K (split-K " + str(cfg.splitK) +
           ") or streams it (stream-K " + str(cfg.streamK) + "), not both";
  return "";
}

std::string checkCpuStructure(const KernelConfig &cfg, int64_t lanes) {
  if (cfg.streamK != 0)
    return "stream-K schedules GPU blocks: a CPU micro-kernel's stream-K must "
           "be 0 (got " +
           str(cfg.streamK) + ")";
  if (cfg.threads != 1)
    return "a CPU micro-kernel runs one thread per core: threads must be 1 "
           "(got " +
           str(cfg.threads) + ")";
  if (cfg.warpsM != 1 || cfg.warpsN != 1)
    return "a CPU micro-kernel has no warp layout: warps must be 1x1 (got " +
           str(cfg.warpsM) + "x" + str(cfg.warpsN) + ")";
  if (cfg.threadTileN % lanes != 0)
    return "register block N (" + str(cfg.threadTileN) +
           ") is not a multiple of the vector lanes (" + str(lanes) + ")";
  if (cfg.tileM % cfg.threadTileM != 0)
    return "tile M (" + str(cfg.tileM) +
           ") is not a multiple of the register block M (" +
           str(cfg.threadTileM) + ")";
  if (cfg.tileN % cfg.threadTileN != 0)
    return "tile N (" + str(cfg.tileN) +
           ") is not a multiple of the register block N (" +
           str(cfg.threadTileN) + ")";
  return "";
}

std::string checkGpuStructure(const KernelConfig &cfg) {
  std::string inst(stringify(cfg.inst));
  if (cfg.tileM % cfg.warpsM != 0)
    return "tile M (" + str(cfg.tileM) + ") is not divisible by warps M (" +
           str(cfg.warpsM) + ")";
  if (cfg.tileN % cfg.warpsN != 0)
    return "tile N (" + str(cfg.tileN) + ") is not divisible by warps N (" +
           str(cfg.warpsN) + ")";
  if (cfg.inst == InstKind::Wgmma && cfg.warpsM % 4 != 0)
    return "wgmma needs warps M in multiples of 4 (a warpgroup spans 64 "
           "rows), got " +
           str(cfg.warpsM);
  int64_t warpM = instWarpM(cfg.inst);
  if (cfg.warpTileM() % warpM != 0)
    return "warp tile M (" + str(cfg.warpTileM()) +
           ") is not a multiple of the instruction's per-warp M (" +
           str(warpM) + ") for " + inst;
  InstShape shape = instShape(cfg.inst);
  if (cfg.warpTileN() % shape.n != 0)
    return "warp tile N (" + str(cfg.warpTileN()) +
           ") is not a multiple of the instruction's N (" + str(shape.n) +
           ") for " + inst;
  if (cfg.inst == InstKind::Wgmma && cfg.warpTileN() > 256)
    return "warp tile N (" + str(cfg.warpTileN()) +
           ") exceeds wgmma's largest N (256)";
  // Each thread owns exactly its accumulator tile; together they must cover
  // the block tile once.
  int64_t covered = cfg.threads * cfg.threadTileM * cfg.threadTileN;
  if (covered != cfg.tileM * cfg.tileN)
    return "per-thread tiles (" + str(cfg.threads) + " threads x " +
           str(cfg.threadTileM) + "x" + str(cfg.threadTileN) + ") cover " +
           str(covered) + " elements but the block tile " + str(cfg.tileM) +
           "x" + str(cfg.tileN) + " has " + str(cfg.tileM * cfg.tileN);
  return "";
}

} // namespace

std::string checkStructure(const KernelConfig &cfg, int64_t cpuLanes) {
  if (std::string err = checkPositive(cfg); !err.empty())
    return err;
  if (!isPowerOfTwo(cfg.vectorWidth))
    return "vector width (" + str(cfg.vectorWidth) + ") must be a power of two";
  if (cfg.stages > kMaxStages)
    return "stages (" + str(cfg.stages) + ") exceeds the maximum pipeline " +
           "depth (" + str(kMaxStages) + ")";
  InstShape shape = instShape(cfg.inst, cpuLanes);
  std::string inst(stringify(cfg.inst));
  const struct {
    const char *dim;
    int64_t tile, step;
  } dims[] = {{"M", cfg.tileM, shape.m},
              {"N", cfg.tileN, shape.n},
              {"K", cfg.tileK, shape.k}};
  for (const auto &d : dims)
    if (d.tile % d.step != 0)
      return std::string("tile ") + d.dim + " (" + str(d.tile) +
             ") is not a multiple of the instruction's " + d.dim + " (" +
             str(d.step) + ") for " + inst;
  // Operands are loaded in vectors along K (A, row-major) and N (B).
  if (cfg.tileK % cfg.vectorWidth != 0)
    return "tile K (" + str(cfg.tileK) +
           ") is not a multiple of the vector width (" + str(cfg.vectorWidth) +
           ")";
  if (cfg.tileN % cfg.vectorWidth != 0)
    return "tile N (" + str(cfg.tileN) +
           ") is not a multiple of the vector width (" + str(cfg.vectorWidth) +
           ")";
  if (cfg.inst == InstKind::CpuFma)
    return checkCpuStructure(cfg, std::max<int64_t>(cpuLanes, 1));
  return checkGpuStructure(cfg);
}

namespace {

/// Workgroup memory the driver keeps for itself in every block resident on
/// an SM, beside the kernel's: 1 KB on NVIDIA chips of compute capability
/// 8.0 and later (CUDA C++ Programming Guide, "Shared Memory" of compute
/// capabilities 8.x and 9.0; cudaDevAttrReservedSharedMemoryPerBlock), the
/// ones with cp.async; none on older ones and on AMD's LDS.
int64_t reservedSharedPerBlock(const TargetDesc &target) {
  constexpr int64_t kNvidiaReservedBytes = 1024;
  return target.vendor == Vendor::NVIDIA && target.hasAsyncCopies()
             ? kNvidiaReservedBytes
             : 0;
}

/// The blocks of `threads` threads at `registersPerThread` that a compute
/// unit's register file holds. A warp (wavefront) takes its registers from
/// the file of the one sub-partition (SIMD) it runs on, and a block's warps
/// spread over them: whole warps fit each sub-partition's share, not the
/// file as one pool (the CUDA occupancy calculator's rule). 88 registers x
/// 64 threads: 5 warps in each of four 16K shares, 10 blocks, where 65536 /
/// (88 x 64) would say 11.
int64_t blocksByRegisters(int64_t registersPerThread, int64_t threads,
                          const TargetDesc &target) {
  int64_t subPartitions = std::max<int64_t>(target.subPartitions, 1);
  int64_t warpSize = std::max<int64_t>(target.warpSize, 1);
  int64_t warpsPerSubPartition =
      target.registersPerCU / subPartitions / (registersPerThread * warpSize);
  int64_t warpsPerBlock = (threads + warpSize - 1) / warpSize;
  return warpsPerSubPartition * subPartitions / warpsPerBlock;
}

/// The registers a thread may have, in whole granules, when `blocks`
/// blocks of `threads` threads share a compute unit: the inverse of
/// blocksByRegisters.
int64_t registerBudget(int64_t blocks, int64_t threads,
                       const TargetDesc &target) {
  int64_t subPartitions = std::max<int64_t>(target.subPartitions, 1);
  int64_t warpSize = std::max<int64_t>(target.warpSize, 1);
  int64_t warpsPerBlock = (threads + warpSize - 1) / warpSize;
  int64_t warpsPerSubPartition =
      (blocks * warpsPerBlock + subPartitions - 1) / subPartitions;
  int64_t perThread =
      target.registersPerCU / subPartitions / warpsPerSubPartition / warpSize;
  return std::min(perThread / kRegisterGranule * kRegisterGranule,
                  target.maxRegistersPerThread);
}

} // namespace

ResourceUsage estimateResources(const KernelConfig &cfg, ElemType elem,
                                const TargetDesc &target) {
  ResourceUsage usage;
  int64_t tileM = std::max<int64_t>(cfg.tileM, 1);
  int64_t tileN = std::max<int64_t>(cfg.tileN, 1);
  int64_t tileK = std::max<int64_t>(cfg.tileK, 1);
  int64_t threads = std::max<int64_t>(cfg.threads, 1);
  int64_t stages = std::max<int64_t>(cfg.stages, 1);
  if (!target.isGpu()) {
    // The packed A block and B panel, stored as f32 (f64 for f64) whatever
    // the input type.
    usage.sharedMemBytes = (tileM + tileN) * tileK * computeBytes(elem);
    usage.registersPerThread = cpuVectorRegisters(cfg, target.cpuLanes(elem));
    usage.blocksPerCU = usage.blocksPerCUBesidesRegisters = 1;
    usage.occupancy = 1.0;
    return usage;
  }
  // Without cp.async the code generator pipelines at most two stages, the
  // next K step's tiles in flight in registers during the multiply.
  bool asyncCopies = target.hasAsyncCopies();
  if (!asyncCopies)
    stages = std::min<int64_t>(stages, 2);
  // The bytes the kernel asks for, from the layout it builds: padded or
  // swizzled tiles of A (K-contiguous but in SIMT kernels) and B, each stage
  // aligned, the swizzle's slack.
  bool simt = cfg.inst == InstKind::SimtFma;
  SharedStageLayout layout(cfg, /*aKContiguous=*/!simt,
                           /*bKContiguous=*/false, sharedTileFormat(cfg, elem));
  usage.sharedMemBytes = layout.kernelBytes(stages);
  if (cfg.sharesTiles())
    usage.sharedMemBytes = withSplitKFlag(usage.sharedMemBytes);
  int64_t staging = 0;
  if (!asyncCopies && stages > 1)
    staging = ((tileM + tileN) * tileK * elemBytes(elem) + 4 * threads - 1) /
              (4 * threads);
  int64_t overhead = target.vendor == Vendor::AMD ? kAmdRegisterOverhead
                                                  : kNvidiaRegisterOverhead;
  // An f64 value takes two 32-bit registers.
  int64_t regsPerValue = computeBytes(elem) / 4;
  int64_t accumulators = cfg.threadTileM * cfg.threadTileN * regsPerValue;
  int64_t regs =
      accumulators + operandRegisters(cfg) * regsPerValue + staging + overhead;
  if (cfg.sharesTiles())
    regs += kSplitKFixupRegisters;
  if (cfg.streamK > 0)
    regs += kStreamKLoopRegisters;
  // CDNA's unified file: past the 256 architectural VGPRs the compiler
  // moves MFMA accumulators (only they can live there) into AGPRs and still
  // fills the architectural ones (the 256x256 MFMA tile with 256 accumulators:
  // 498-512, spilling).
  bool mfma =
      cfg.inst == InstKind::Mfma32x32x8 || cfg.inst == InstKind::Mfma16x16x16;
  if (mfma && regs > kArchitecturalVgprs &&
      target.maxRegistersPerThread > kArchitecturalVgprs)
    regs = kArchitecturalVgprs + accumulators;
  usage.registersPerThread =
      (regs + kRegisterGranule - 1) / kRegisterGranule * kRegisterGranule;

  int64_t blocks = target.maxBlocksPerCU;
  blocks = std::min(blocks, target.maxThreadsPerCU / threads);
  if (usage.sharedMemBytes > 0)
    blocks = std::min(
        blocks, target.sharedMemPerCU /
                    (usage.sharedMemBytes + reservedSharedPerBlock(target)));
  usage.blocksPerCUBesidesRegisters = std::max<int64_t>(blocks, 0);
  if (usage.registersPerThread > 0) {
    blocks = std::min(
        blocks, blocksByRegisters(usage.registersPerThread, threads, target));
    usage.registerBudgetPerThread =
        registerBudget(std::max<int64_t>(blocks, 1), threads, target);
  }
  usage.blocksPerCU = std::max<int64_t>(blocks, 0);
  usage.occupancy = target.maxThreadsPerCU > 0
                        ? std::min(1.0, double(usage.blocksPerCU * threads) /
                                            double(target.maxThreadsPerCU))
                        : 0.0;
  return usage;
}

std::optional<ProducerWarpgroup>
producerWarpgroupFor(const KernelConfig &cfg, ElemType elem,
                     const TargetDesc &target) {
  constexpr int64_t kProducer = ProducerWarpgroup::kThreads;
  if (target.vendor != Vendor::NVIDIA || cfg.streamK > 0 || cfg.threads <= 0 ||
      cfg.threads % kProducer != 0)
    return std::nullopt;
  ResourceUsage usage = estimateResources(cfg, elem, target);
  int64_t blocks = usage.blocksPerCU;
  int64_t threads = cfg.threads + kProducer;
  if (blocks < 1 || threads > target.maxThreadsPerBlock ||
      blocks * threads > target.maxThreadsPerCU)
    return std::nullopt;
  ProducerWarpgroup producer;
  producer.blocksPerCU = blocks;
  producer.launchRegisters = registerBudget(blocks, threads, target);
  // setmaxnreg counts in granules of 8, up to the most a thread may have.
  int64_t most =
      target.maxRegistersPerThread / kRegisterGranule * kRegisterGranule;
  int64_t pool = producer.launchRegisters * threads;
  int64_t consumer =
      (pool - kProducer * ProducerWarpgroup::kRegisters) / cfg.threads;
  consumer = std::min(consumer / kRegisterGranule * kRegisterGranule, most);
  producer.consumerRegisters = std::max(consumer, producer.launchRegisters);
  if (producer.consumerRegisters < usage.registersPerThread)
    return std::nullopt;
  return producer;
}

namespace {

std::string checkCpuTarget(const KernelConfig &cfg, ElemType elem,
                           const TargetDesc &target) {
  int64_t vectorBytes = target.vectorBits / 8;
  if (cfg.vectorWidth * elemBytes(elem) > vectorBytes)
    return "vector accesses of " + str(cfg.vectorWidth) + " x " +
           std::string(stringify(elem)) + " = " +
           str(cfg.vectorWidth * elemBytes(elem)) + " bytes exceed the " +
           str(vectorBytes) + "-byte vector register";
  int64_t lanes = target.cpuLanes(elem);
  int64_t regs = cpuVectorRegisters(cfg, lanes);
  if (regs > target.maxRegistersPerThread)
    return "register block " + str(cfg.threadTileM) + "x" +
           str(cfg.threadTileN) + " needs " + str(regs) +
           " vector registers (" +
           str(cfg.threadTileM * (cfg.threadTileN / lanes)) +
           " accumulators, " + str(cfg.threadTileN / lanes) +
           " B vectors, 1 broadcast), above the " +
           str(target.maxRegistersPerThread) + " of " + target.name;
  // BLIS blocking: a kc x nr micro-panel of B stays in L1 (half of it, the
  // rest streams A and C), the mc x kc block of A in L2. Packed data is f32
  // (f64 for f64).
  int64_t packedBytes = computeBytes(elem);
  const char *packedType = elem == ElemType::F64 ? " f64 = " : " f32 = ";
  int64_t panelB = cfg.tileK * cfg.threadTileN * packedBytes;
  if (target.l1Bytes > 0 && panelB > target.l1Bytes / 2)
    return "B micro-panel (tile K x register block N = " + str(cfg.tileK) +
           "x" + str(cfg.threadTileN) + packedType + kib(panelB) +
           ") exceeds half the L1 cache (" + kib(target.l1Bytes / 2) + ")";
  int64_t blockA = cfg.tileM * cfg.tileK * packedBytes;
  if (target.l2Bytes > 0 && blockA > target.l2Bytes)
    return "A block (tile M x tile K = " + str(cfg.tileM) + "x" +
           str(cfg.tileK) + packedType + kib(blockA) +
           ") exceeds the L2 cache (" + kib(target.l2Bytes) + ")";
  return "";
}

std::string checkGpuTarget(const KernelConfig &cfg, ElemType elem,
                           const TargetDesc &target) {
  if (cfg.threads % target.warpSize != 0)
    return "threads (" + str(cfg.threads) +
           ") is not a multiple of the warp size (" + str(target.warpSize) +
           ")";
  if (cfg.threads > target.maxThreadsPerBlock)
    return "threads (" + str(cfg.threads) +
           ") exceed the target's maximum per block (" +
           str(target.maxThreadsPerBlock) + ")";
  if (cfg.warps() * target.warpSize != cfg.threads)
    return "warp layout " + str(cfg.warpsM) + "x" + str(cfg.warpsN) +
           " x warp size " + str(target.warpSize) + " = " +
           str(cfg.warps() * target.warpSize) + " threads, but threads is " +
           str(cfg.threads);
  int64_t accessBytes = cfg.vectorWidth * elemBytes(elem);
  if (accessBytes > kMaxGpuAccessBytes)
    return "vector accesses of " + str(cfg.vectorWidth) + " x " +
           std::string(stringify(elem)) + " = " + str(accessBytes) +
           " bytes exceed the " + str(kMaxGpuAccessBytes) +
           "-byte maximum access";
  ResourceUsage usage = estimateResources(cfg, elem, target);
  if (usage.sharedMemBytes > target.sharedMemPerBlock)
    return "shared memory (" + kib(usage.sharedMemBytes) + " for " +
           str(cfg.stages) + " stages) exceeds the per-block limit (" +
           kib(target.sharedMemPerBlock) + ")";
  // An estimate that takes the whole register file leaves the compiler no
  // room: both AMD candidates estimated at their limit spilled.
  if (usage.registersPerThread > target.maxRegistersPerThread)
    return "needs about " + str(usage.registersPerThread) +
           " registers per thread, above the limit (" +
           str(target.maxRegistersPerThread) + ")";
  if (usage.registersPerThread == target.maxRegistersPerThread)
    return "needs about " + str(usage.registersPerThread) +
           " registers per thread, the whole register file, with no room "
           "for the compiler";
  if (usage.registersPerThread * cfg.threads > target.registersPerBlock)
    return "needs about " + str(usage.registersPerThread * cfg.threads) +
           " registers per block, above the limit (" +
           str(target.registersPerBlock) + ")";
  if (usage.blocksPerCU < 1)
    return "no block fits on one compute unit (shared memory " +
           kib(usage.sharedMemBytes) + ", " +
           str(usage.registersPerThread * cfg.threads) + " registers)";
  return "";
}

} // namespace

std::string checkForTarget(const KernelConfig &cfg, ElemType elem,
                           const TargetDesc &target) {
  if (std::string err = checkStructure(cfg, target.cpuLanes(elem));
      !err.empty())
    return err;
  std::string inst(stringify(cfg.inst));
  bool needsGpu = cfg.inst != InstKind::CpuFma;
  if (needsGpu != target.isGpu())
    return "instruction " + inst + " needs a " + (needsGpu ? "GPU" : "CPU") +
           "; target " + target.name + " is " +
           std::string(stringify(target.vendor));
  if (cfg.inst != InstKind::SimtFma && cfg.inst != InstKind::CpuFma &&
      instVendor(cfg.inst) != target.vendor)
    return "instruction " + inst + " is an " +
           std::string(stringify(instVendor(cfg.inst))) +
           " instruction; target " + target.name + " is " +
           std::string(stringify(target.vendor));
  if (!target.hasInst(cfg.inst))
    return "target " + target.name + " (" + target.chip + ") has no " + inst +
           " instruction";
  if (!instAcceptsElemType(cfg.inst, elem))
    return "instruction " + inst + " does not accept " +
           std::string(stringify(elem)) + " inputs";
  if (!(target.peak(cfg.inst, elem) > 0))
    return "target " + target.name + " has no " + std::string(stringify(elem)) +
           " rate for " + inst + " (f64_tflops in its target description)";
  return target.isGpu() ? checkGpuTarget(cfg, elem, target)
                        : checkCpuTarget(cfg, elem, target);
}

} // namespace quilt
