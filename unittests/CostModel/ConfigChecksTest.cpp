//===- ConfigChecksTest.cpp - One test per rejection reason ---------------===//
//
// Part of the Quilt project. Every sentence checkStructure/checkForTarget can
// produce is asserted here, so the dialect's diagnostics stay stable.
//
//===----------------------------------------------------------------------===//

#include "CostModel/GpuSharedMemory.h"
#include "CostModel/KernelConfig.h"
#include "TestUtil.h"

using namespace quilt;

namespace {

std::string forA100(const KernelConfig &c, ElemType e = ElemType::F16) {
  return checkForTarget(c, e, builtinTarget("a100"));
}

TEST(ConfigChecks, ValidConfigsPass) {
  EXPECT_EQ(forA100(mmaConfig()), "");
  EXPECT_EQ(checkForTarget(wgmmaConfig(), ElemType::F16, builtinTarget("h100")),
            "");
  EXPECT_EQ(
      checkForTarget(avx2Config(), ElemType::F32, builtinTarget("host-avx2")),
      "");
}

TEST(ConfigChecks, NonPositiveField) {
  KernelConfig c = mmaConfig();
  c.tileM = 0;
  EXPECT_EQ(checkStructure(c), "tile M must be positive (got 0)");
  c = mmaConfig();
  c.splitK = -2;
  EXPECT_EQ(checkStructure(c), "split-K must be positive (got -2)");
}

TEST(ConfigChecks, StreamK) {
  // The persistent loop's registers count: 128 accumulators a thread leave
  // too few; two warpgroups of 64 each fit.
  KernelConfig c = wgmmaConfig();
  c.streamK = 132;
  EXPECT_EQ(checkForTarget(c, ElemType::F16, builtinTarget("h100")),
            "needs about 256 registers per thread, above the limit (255)");
  c.threads = 256, c.warpsM = 8, c.threadTileM = 2;
  EXPECT_EQ(checkForTarget(c, ElemType::F16, builtinTarget("h100")), "");
  c.streamK = -1;
  EXPECT_EQ(checkStructure(c), "stream-K must be 0 (off) or the number of "
                               "blocks that share the tiles (got -1)");
  c.streamK = 132, c.splitK = 2;
  EXPECT_EQ(checkStructure(c), "a configuration splits K (split-K 2) or "
                               "streams it (stream-K 132), not both");
  KernelConfig cpu = avx2Config();
  cpu.streamK = 2;
  EXPECT_EQ(checkForTarget(cpu, ElemType::F32, builtinTarget("host-avx2")),
            "stream-K schedules GPU blocks: a CPU micro-kernel's stream-K "
            "must be 0 (got 2)");
  // The fixup's word of workgroup memory and registers, as split-K's.
  KernelConfig whole = c, streamed = c;
  whole.splitK = streamed.splitK = 1;
  whole.streamK = 0;
  ResourceUsage a = estimateResources(whole, ElemType::F16,
                                      builtinTarget("h100")),
                b = estimateResources(streamed, ElemType::F16,
                                      builtinTarget("h100"));
  EXPECT_GT(b.sharedMemBytes, a.sharedMemBytes);
  EXPECT_GT(b.registersPerThread, a.registersPerThread);
}

TEST(ConfigChecks, VectorWidthNotPowerOfTwo) {
  KernelConfig c = mmaConfig();
  c.vectorWidth = 3;
  EXPECT_EQ(checkStructure(c), "vector width (3) must be a power of two");
}

TEST(ConfigChecks, TooManyStages) {
  KernelConfig c = mmaConfig();
  c.stages = 9;
  EXPECT_EQ(checkStructure(c),
            "stages (9) exceeds the maximum pipeline depth (8)");
}

TEST(ConfigChecks, TileNotMultipleOfInstruction) {
  KernelConfig c = mmaConfig();
  c.tileM = 100;
  EXPECT_EQ(checkStructure(c), "tile M (100) is not a multiple of the "
                               "instruction's M (16) for mma_sync_f16");
  c = mmaConfig();
  c.tileK = 24;
  EXPECT_EQ(checkStructure(c), "tile K (24) is not a multiple of the "
                               "instruction's K (16) for mma_sync_f16");
}

TEST(ConfigChecks, TileNotMultipleOfVectorWidth) {
  KernelConfig c = mmaConfig();
  c.vectorWidth = 64;
  EXPECT_EQ(checkStructure(c),
            "tile K (32) is not a multiple of the vector width (64)");
  c = avx2Config();
  c.tileK = 64, c.tileN = 20, c.vectorWidth = 8, c.threadTileN = 4;
  c.inst = InstKind::SimtFma;
  EXPECT_EQ(checkStructure(c),
            "tile N (20) is not a multiple of the vector width (8)");
}

TEST(ConfigChecks, CpuNeedsOneThread) {
  KernelConfig c = avx2Config();
  c.threads = 4;
  EXPECT_EQ(checkStructure(c, 8), "a CPU micro-kernel runs one thread per "
                                  "core: threads must be 1 (got 4)");
}

TEST(ConfigChecks, CpuHasNoWarps) {
  KernelConfig c = avx2Config();
  c.warpsM = 2;
  EXPECT_EQ(checkStructure(c, 8), "a CPU micro-kernel has no warp layout: "
                                  "warps must be 1x1 (got 2x1)");
}

TEST(ConfigChecks, CpuRegisterBlockNotWholeVectors) {
  KernelConfig c = avx2Config();
  c.threadTileN = 12;
  EXPECT_EQ(checkStructure(c, 8),
            "register block N (12) is not a multiple of the vector lanes (8)");
}

TEST(ConfigChecks, CpuTileNotMultipleOfRegisterBlock) {
  KernelConfig c = avx2Config();
  c.tileM = 100;
  EXPECT_EQ(checkStructure(c, 8),
            "tile M (100) is not a multiple of the register block M (6)");
  c = avx2Config();
  c.threadTileN = 24;
  EXPECT_EQ(checkStructure(c, 8),
            "tile N (256) is not a multiple of the register block N (24)");
}

TEST(ConfigChecks, TileNotDivisibleByWarps) {
  KernelConfig c = mmaConfig();
  c.warpsM = 3;
  EXPECT_EQ(checkStructure(c), "tile M (128) is not divisible by warps M (3)");
  c = mmaConfig();
  c.warpsN = 3;
  EXPECT_EQ(checkStructure(c), "tile N (128) is not divisible by warps N (3)");
}

TEST(ConfigChecks, WgmmaNeedsWarpgroups) {
  KernelConfig c = wgmmaConfig();
  c.warpsM = 2, c.warpsN = 2;
  EXPECT_EQ(checkStructure(c), "wgmma needs warps M in multiples of 4 (a "
                               "warpgroup spans 64 rows), got 2");
}

TEST(ConfigChecks, WarpTileNotMultipleOfInstruction) {
  KernelConfig c = mmaConfig();
  c.warpsM = 16, c.threads = 512 * 2; // warp tile M = 8
  EXPECT_EQ(checkStructure(c), "warp tile M (8) is not a multiple of the "
                               "instruction's per-warp M (16) for "
                               "mma_sync_f16");
  c = mmaConfig();
  c.warpsN = 32; // warp tile N = 4
  EXPECT_EQ(checkStructure(c), "warp tile N (4) is not a multiple of the "
                               "instruction's N (8) for mma_sync_f16");
}

TEST(ConfigChecks, WgmmaWarpTileTooWide) {
  KernelConfig c = wgmmaConfig();
  c.tileN = 512, c.threadTileN = 128;
  EXPECT_EQ(checkStructure(c),
            "warp tile N (512) exceeds wgmma's largest N (256)");
}

TEST(ConfigChecks, ThreadTilesDoNotCoverBlock) {
  KernelConfig c = mmaConfig();
  c.threadTileN = 8;
  EXPECT_EQ(checkStructure(c),
            "per-thread tiles (128 threads x 8x8) cover 8192 elements but "
            "the block tile 128x128 has 16384");
}

TEST(ConfigChecks, InstructionNeedsOtherKindOfTarget) {
  EXPECT_EQ(
      checkForTarget(mmaConfig(), ElemType::F16, builtinTarget("host-avx2")),
      "instruction mma_sync_f16 needs a GPU; target host-avx2 is cpu");
  EXPECT_EQ(forA100(avx2Config(), ElemType::F32),
            "instruction cpu_fma needs a CPU; target a100 is nvidia");
}

TEST(ConfigChecks, InstructionOfOtherVendor) {
  EXPECT_EQ(
      checkForTarget(mmaConfig(), ElemType::F16, builtinTarget("mi300x")),
      "instruction mma_sync_f16 is an nvidia instruction; target mi300x is "
      "amd");
}

TEST(ConfigChecks, InstructionMissingOnTarget) {
  EXPECT_EQ(forA100(wgmmaConfig()),
            "target a100 (sm_80) has no wgmma instruction");
  // sm_75 has m16n8k8 but not the m16n8k16 shape of mma_sync_f16.
  EXPECT_EQ(checkForTarget(mmaConfig(), ElemType::F16, builtinTarget("t4")),
            "target t4 (sm_75) has no mma_sync_f16 instruction");
}

TEST(ConfigChecks, ElementTypeNotAccepted) {
  EXPECT_EQ(forA100(mmaConfig(), ElemType::F32),
            "instruction mma_sync_f16 does not accept f32 inputs");
}

TEST(ConfigChecks, ThreadsNotWholeWarps) {
  KernelConfig simt;
  simt.tileM = 48, simt.tileN = 32, simt.tileK = 8;
  simt.threads = 48, simt.warpsM = 1, simt.warpsN = 1;
  simt.threadTileM = 8, simt.threadTileN = 4, simt.vectorWidth = 4;
  EXPECT_EQ(checkForTarget(simt, ElemType::F32, builtinTarget("a100")),
            "threads (48) is not a multiple of the warp size (32)");
}

TEST(ConfigChecks, TooManyThreads) {
  KernelConfig simt;
  simt.tileM = 256, simt.tileN = 256, simt.tileK = 8;
  simt.threads = 2048, simt.warpsM = 8, simt.warpsN = 8;
  simt.threadTileM = 4, simt.threadTileN = 8, simt.vectorWidth = 4;
  EXPECT_EQ(checkForTarget(simt, ElemType::F32, builtinTarget("a100")),
            "threads (2048) exceed the target's maximum per block (1024)");
}

TEST(ConfigChecks, WarpLayoutDisagreesWithThreads) {
  KernelConfig c = mmaConfig();
  c.threads = 256, c.threadTileN = 8;
  EXPECT_EQ(forA100(c), "warp layout 2x2 x warp size 32 = 128 threads, but "
                        "threads is 256");
}

TEST(ConfigChecks, GpuVectorAccessTooWide) {
  KernelConfig c = mmaConfig();
  c.vectorWidth = 16;
  EXPECT_EQ(forA100(c), "vector accesses of 16 x f16 = 32 bytes exceed the "
                        "16-byte maximum access");
}

TEST(ConfigChecks, SharedMemoryOverLimit) {
  KernelConfig c = mmaConfig();
  // 8 x (128 x 64 + 64 x 128) x 2 B = 256 KiB of swizzled tiles, and 128
  // bytes to align them.
  c.stages = 8, c.tileK = 64;
  EXPECT_EQ(forA100(c), "shared memory (256.1 KiB for 8 stages) exceeds the "
                        "per-block limit (163.0 KiB)");
}

TEST(ConfigChecks, TooManyRegistersPerThread) {
  KernelConfig c = mmaConfig();
  c.threads = 32, c.warpsM = 1, c.warpsN = 1; // one warp owns 128x128
  c.threadTileM = 16, c.threadTileN = 32;
  EXPECT_EQ(forA100(c), "needs about 640 registers per thread, above the "
                        "limit (255)");
}

TEST(ConfigChecks, TooManyRegistersPerBlock) {
  KernelConfig simt;
  simt.tileM = 128, simt.tileN = 256, simt.tileK = 8;
  simt.threads = 1024, simt.warpsM = 4, simt.warpsN = 8;
  simt.threadTileM = 4, simt.threadTileN = 8, simt.vectorWidth = 4;
  simt.stages = 2;
  EXPECT_EQ(checkForTarget(simt, ElemType::F32, builtinTarget("a100")),
            "needs about 90112 registers per block, above the limit (65536)");
}

TEST(ConfigChecks, NoBlockFitsOnComputeUnit) {
  TargetDesc t = builtinTarget("a100");
  t.registersPerCU = 8192; // inconsistent on purpose: below one block's need
  EXPECT_EQ(checkForTarget(mmaConfig(), ElemType::F16, t),
            "no block fits on one compute unit (shared memory 48.1 KiB, "
            "26624 registers)");
}

TEST(ConfigChecks, CpuVectorAccessTooWide) {
  KernelConfig c = avx2Config();
  c.vectorWidth = 16, c.threadTileN = 16;
  EXPECT_EQ(checkForTarget(c, ElemType::F32, builtinTarget("host-avx2")),
            "vector accesses of 16 x f32 = 64 bytes exceed the 32-byte "
            "vector register");
}

TEST(ConfigChecks, CpuRegisterBlockTooLarge) {
  KernelConfig c = avx2Config();
  c.threadTileM = 8, c.tileM = 96;
  EXPECT_EQ(checkForTarget(c, ElemType::F32, builtinTarget("host-avx2")),
            "register block 8x16 needs 19 vector registers (16 accumulators, "
            "2 B vectors, 1 broadcast), above the 16 of host-avx2");
}

TEST(ConfigChecks, CpuPanelOverflowsL1) {
  KernelConfig c = avx2Config();
  c.tileK = 512;
  EXPECT_EQ(checkForTarget(c, ElemType::F32, builtinTarget("host-avx2")),
            "B micro-panel (tile K x register block N = 512x16 f32 = 32.0 "
            "KiB) exceeds half the L1 cache (16.0 KiB)");
}

TEST(ConfigChecks, CpuBlockOverflowsL2) {
  KernelConfig c = avx2Config();
  c.tileM = 600, c.tileK = 256;
  EXPECT_EQ(checkForTarget(c, ElemType::F32, builtinTarget("host-avx2")),
            "A block (tile M x tile K = 600x256 f32 = 600.0 KiB) exceeds the "
            "L2 cache (512.0 KiB)");
}

TEST(ConfigChecks, ResourcesAreEstimated) {
  ResourceUsage u =
      estimateResources(mmaConfig(), ElemType::F16, builtinTarget("a100"));
  // Three stages of the tiles the kernel stages, XOR-swizzled and so
  // unpadded: A 128 x 32 halves, B 32 x 128; and 128 bytes of slack to
  // start them on a 128-byte boundary.
  EXPECT_EQ(u.sharedMemBytes, 128 + 3 * (128 * 32 + 32 * 128) * 2);
  // 128 accumulators + 2 x 16 A + 16 B fragment registers + 32 overhead.
  EXPECT_EQ(u.registersPerThread, 208);
  EXPECT_EQ(u.blocksPerCU, 2); // registers: 65536 / (208 x 128)
  // Shared memory alone would allow 164 KB / (49280 + the 1024 bytes the
  // driver reserves a block) = 3. Registers bind, so a kernel asks ptxas
  // for no occupancy (.minnctapersm) of its own.
  EXPECT_EQ(u.blocksPerCUBesidesRegisters, 3);
  // Two blocks leave a thread 256 registers: 255, the most there are.
  EXPECT_EQ(u.registerBudgetPerThread, 255);
  EXPECT_DOUBLE_EQ(u.occupancy, 256.0 / 2048.0);
}

TEST(ConfigChecks, RegistersFillEachSubPartitionWithWholeWarps) {
  // 32 f32 accumulators + 2 x (8 + 4) fragment registers + 32 overhead = 88
  // registers a thread, 2816 a warp: five warps fit each of the A100's four
  // 16K sub-partition files (20 warps, 10 blocks of two), not the 11.6
  // blocks the file as one pool would hold (CUDA's occupancy calculator
  // agrees with the first: ptxas's 82 registers allocate as 88).
  KernelConfig simt;
  simt.tileM = 32, simt.tileN = 64, simt.tileK = 8;
  simt.threads = 64, simt.warpsM = 1, simt.warpsN = 2;
  simt.threadTileM = 8, simt.threadTileN = 4, simt.vectorWidth = 4;
  ResourceUsage u =
      estimateResources(simt, ElemType::F32, builtinTarget("a100"));
  EXPECT_EQ(u.registersPerThread, 88);
  EXPECT_EQ(u.blocksPerCU, 10);
  EXPECT_GT(u.blocksPerCUBesidesRegisters, 10);
  // Ten blocks, 20 warps, five of them a sub-partition: 102 registers a
  // thread, 96 in whole granules of 8.
  EXPECT_EQ(u.registerBudgetPerThread, 96);
}

TEST(ConfigChecks, ProducerWarpgroupMovesRegistersToTheConsumers) {
  const TargetDesc &h100 = builtinTarget("h100");
  // Two consumer warpgroups of a 128 x 256 tile, one block an SM (three
  // stages of 48 KiB): 384 threads at launch have 168 registers each (12
  // warps, three a sub-partition: 16384 / 96 = 170, in granules of 8), and
  // the producer's 128 x (168 - 40) go to the 256 consumers: 232, CUTLASS's
  // figures for the same block.
  KernelConfig wide = parseOrDie("128x256x64 t256 w4x2 tt4x32 v8 s3 wgmma");
  std::optional<ProducerWarpgroup> p =
      producerWarpgroupFor(wide, ElemType::F16, h100);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->blocksPerCU,
            estimateResources(wide, ElemType::F16, h100).blocksPerCU);
  EXPECT_EQ(p->blocksPerCU, 1);
  EXPECT_EQ(p->launchRegisters, 168);
  EXPECT_EQ(p->consumerRegisters, 232);
  EXPECT_TRUE(p->movesRegisters());
  EXPECT_LE(ProducerWarpgroup::kThreads * ProducerWarpgroup::kRegisters +
                wide.threads * p->consumerRegisters,
            (wide.threads + ProducerWarpgroup::kThreads) * p->launchRegisters);

  // One warpgroup and the producer, one block an SM (four stages): 255
  // registers at launch already, 248 in granules; nothing to move.
  std::optional<ProducerWarpgroup> one =
      producerWarpgroupFor(wgmmaConfig(), ElemType::F16, h100);
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->blocksPerCU, 1);
  EXPECT_EQ(one->consumerRegisters, one->launchRegisters);
  EXPECT_FALSE(one->movesRegisters());
}

TEST(ConfigChecks, ProducerWarpgroupKeepsTheModelsBlocks) {
  const TargetDesc &h100 = builtinTarget("h100");
  // Two blocks an SM of 256 consumers: 768 threads at launch leave 80
  // registers a thread, and the consumers at most (80 x 384 - 40 x 128) /
  // 256 = 100, fewer than the 128 the model counts for them. A producer
  // would cost a block: the kernel keeps its thread 0 as the issuer.
  KernelConfig two = parseOrDie("128x128x64 t256 w4x2 tt4x16 v8 s3 wgmma");
  ASSERT_EQ(estimateResources(two, ElemType::F16, h100).blocksPerCU, 2);
  EXPECT_FALSE(producerWarpgroupFor(two, ElemType::F16, h100).has_value());
  // A single-stage tile of 24 KiB: eight blocks an SM, whose 2048 threads
  // leave no room for a producer's.
  KernelConfig small = parseOrDie("64x128x64 t128 w4x1 tt2x32 v8 s1 wgmma");
  EXPECT_FALSE(producerWarpgroupFor(small, ElemType::F16, h100).has_value());
  // A stream-K block walks segments of tiles, which the producer does not
  // follow; a split-K block's one range of K it does.
  KernelConfig streamed = wgmmaConfig();
  streamed.streamK = 132;
  EXPECT_FALSE(producerWarpgroupFor(streamed, ElemType::F16, h100).has_value());
  KernelConfig split = wgmmaConfig();
  split.splitK = 2;
  EXPECT_TRUE(producerWarpgroupFor(split, ElemType::F16, h100).has_value());
  // Nor on AMD, nor for blocks that are not whole warpgroups.
  EXPECT_FALSE(
      producerWarpgroupFor(mmaConfig(), ElemType::F16, builtinTarget("mi300x"))
          .has_value());
  KernelConfig simt = mmaConfig();
  simt.threads = 96;
  EXPECT_FALSE(producerWarpgroupFor(simt, ElemType::F16, h100).has_value());
}

TEST(ConfigChecks, ResourcesWithoutAsyncCopies) {
  // Turing has no cp.async: the code generator pipelines two stages through
  // registers, so the third stage's shared memory is never allocated and
  // each thread holds its share of the next K step's tiles.
  ResourceUsage u =
      estimateResources(mmaConfig(), ElemType::F16, builtinTarget("t4"));
  EXPECT_EQ(u.sharedMemBytes, 128 + 2 * (128 * 32 + 32 * 128) * 2);
  // 208 as on the A100 + (128 + 128) x 32 halves / (128 threads x 2 halves
  // per register) = 32 staging registers.
  EXPECT_EQ(u.registersPerThread, 240);
}

TEST(ConfigChecks, SharedMemoryIsTheKernelsLayout) {
  // A native wgmma candidate: tiles in the 128-byte swizzle, unpadded, each
  // stage at a 1024-byte boundary, and 1024 bytes of slack to find one.
  KernelConfig c = parseOrDie("128x256x64 t256 w8x1 tt2x64 v8 s3 wgmma");
  TargetDesc h100 = builtinTarget("h100");
  ResourceUsage u = estimateResources(c, ElemType::F16, h100);
  EXPECT_EQ(u.sharedMemBytes, 1024 + 3 * (128 + 256) * 64 * 2);
  // 148480 bytes + the 1 KB the driver reserves a block: one fits in the
  // SM's 228 KB, registers do not bind, and it leaves a thread of its 256
  // all the registers there are.
  EXPECT_EQ(u.blocksPerCU, 1);
  EXPECT_EQ(u.blocksPerCUBesidesRegisters, 1);
  EXPECT_EQ(u.registerBudgetPerThread, 255);

  // Two stages of 64 x 64 tiles (34 KB with the slack and the reserve)
  // fit six times in 228 KB, not the seven 32 KB would (with registers to
  // spare, so that shared memory is the limit).
  c = parseOrDie("64x64x64 t128 w4x1 tt2x16 v8 s2 wgmma");
  h100.registersPerCU = 1 << 20;
  u = estimateResources(c, ElemType::F16, h100);
  EXPECT_EQ(u.sharedMemBytes, 1024 + 2 * (64 + 64) * 64 * 2);
  EXPECT_EQ(u.blocksPerCU, 6);

  // SIMT tiles are K-major, in the compute type (f32 for f16 operands).
  c = parseOrDie("64x64x8 t64 w2x1 tt8x8 v4 s2 simt_fma");
  u = estimateResources(c, ElemType::F16, h100);
  EXPECT_EQ(u.sharedMemBytes, 2 * (8 * 64 + 8 * 64) * 4);
}

TEST(ConfigChecks, MmaSyncTilesSwizzleWhereTheirRowsAllow) {
  // 16-bit mma.sync tiles (read with ldmatrix) are XOR-swizzled, each at a
  // 128-byte boundary (the kernels permute indices from one): rows of 128
  // bytes or a multiple take 128-byte panels, rows of 32 or 64 bytes are
  // their own panel.
  SharedTileFormat f16 = sharedTileFormat(mmaConfig(), ElemType::F16);
  EXPECT_EQ(f16.swizzleBytes, 128);
  EXPECT_EQ(f16.alignment, 128);
  EXPECT_EQ(swizzlePanelBytes(512, f16), 128);
  EXPECT_EQ(swizzlePanelBytes(128, f16), 128);
  EXPECT_EQ(swizzlePanelBytes(64, f16), 64);
  EXPECT_EQ(swizzlePanelBytes(32, f16), 32);
  // Other lengths are padded: 16-byte chunks that XOR would not permute
  // among themselves (3 or 6 of them), or a row that no panel divides.
  EXPECT_EQ(swizzlePanelBytes(48, f16), 0);
  EXPECT_EQ(swizzlePanelBytes(96, f16), 0);
  EXPECT_EQ(swizzlePanelBytes(192, f16), 0);
  EXPECT_EQ(swizzlePanelBytes(16, f16), 0);

  // A K tile of 48 halves: A's 96-byte rows padded to 48 + 8 halves, B's
  // 48 rows of 128 halves swizzled.
  KernelConfig c = mmaConfig();
  c.tileK = 48;
  TargetDesc a100 = builtinTarget("a100");
  EXPECT_EQ(estimateResources(c, ElemType::F16, a100).sharedMemBytes,
            128 + 3 * (128 * 56 + 48 * 128) * 2);

  // tf32 fragments are scalar loads, which the chunk permutation does not
  // spread: its tiles stay padded by 4 floats a row.
  c = mmaConfig();
  c.inst = InstKind::MmaSyncTf32;
  EXPECT_EQ(sharedTileFormat(c, ElemType::F32).swizzleBytes, 0);
  EXPECT_EQ(estimateResources(c, ElemType::F32, a100).sharedMemBytes,
            3 * (128 * 36 + 32 * 132) * 4);

  // A wgmma candidate's swizzle is read by the hardware from the address
  // bits: 1024-byte alignment.
  EXPECT_EQ(sharedTileFormat(wgmmaConfig(), ElemType::F16).alignment, 1024);
}

TEST(ConfigChecks, CdnaAccumulatorsMoveToAgprs) {
  // 256x256 MFMA tile, 16x16 accumulators a thread: past 256 VGPRs the
  // accumulators go to AGPRs and the architectural file still fills. (One
  // stage: two of its padded tiles, 73 KiB, exceed the 64 KiB of LDS.)
  KernelConfig c =
      parseOrDie("256x256x32 t256 w2x2 tt16x16 v8 s1 mfma_32x32x8");
  ResourceUsage u =
      estimateResources(c, ElemType::F16, builtinTarget("mi300x"));
  EXPECT_EQ(u.registersPerThread, 256 + 256);
  EXPECT_EQ(checkForTarget(c, ElemType::F16, builtinTarget("mi300x")),
            "needs about 512 registers per thread, the whole register file, "
            "with no room for the compiler");
  // 16x8 accumulators stay below 256: counted as on any other target.
  c = parseOrDie("256x64x32 t128 w2x1 tt16x8 v8 s2 mfma_32x32x8");
  EXPECT_LT(estimateResources(c, ElemType::F16, builtinTarget("mi300x"))
                .registersPerThread,
            256);
  EXPECT_EQ(checkForTarget(c, ElemType::F16, builtinTarget("mi300x")), "");
}

TEST(ConfigChecks, StrRoundTrips) {
  KernelConfig c = mmaConfig();
  c.splitK = 4, c.boundary = BoundaryPolicy::Pad;
  EXPECT_EQ(c.str(), "128x128x32 t128 w2x2 tt8x16 v8 s3 mma_sync_f16 sk4 pad");
  std::string error;
  std::optional<KernelConfig> parsed = parseKernelConfig(c.str(), error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(*parsed, c);
  c.splitK = 1, c.streamK = 132;
  EXPECT_EQ(c.str(),
            "128x128x32 t128 w2x2 tt8x16 v8 s3 mma_sync_f16 streamk132 pad");
  parsed = parseKernelConfig(c.str(), error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(*parsed, c);
  EXPECT_FALSE(parseKernelConfig(
      "128x128x32 t128 w2x2 tt8x16 v8 s3 mma_sync_f16 streamkx", error));
  EXPECT_EQ(error, "malformed stream-K 'streamkx' in config '128x128x32 t128 "
                   "w2x2 tt8x16 v8 s3 mma_sync_f16 streamkx'");
  EXPECT_FALSE(
      parseKernelConfig("128x128 t128 w2x2 tt8x16 v8 s3 wgmma", error));
  EXPECT_EQ(error, "malformed tile '128x128' in config '128x128 t128 w2x2 "
                   "tt8x16 v8 s3 wgmma'");
  EXPECT_FALSE(
      parseKernelConfig("128x128x32 t128 w2x2 tt8x16 v8 s3 mma_sync", error));
  EXPECT_EQ(error, "malformed instruction 'mma_sync' in config '128x128x32 "
                   "t128 w2x2 tt8x16 v8 s3 mma_sync'");
}

} // namespace
