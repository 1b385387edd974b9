//===- TargetDatabaseTest.cpp - Built-in targets and the file format ------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/TargetDatabase.h"
#include "TestUtil.h"

#include <fstream>

using namespace quilt;

namespace {

const char *const kBuiltinNames[] = {
    "h100",      "a100",      "v100",   "rtx4090",   "rtx3090",
    "t4",        "mi300x",    "mi250x", "rx7900xtx", "host-avx512",
    "host-avx2", "host-neon", "host"};

TEST(TargetDatabase, EveryBuiltinTargetIsPresentAndComplete) {
  const TargetDatabase &db = TargetDatabase::builtin();
  std::vector<std::string> names = db.names();
  ASSERT_EQ(names.size(), std::size(kBuiltinNames));
  for (size_t i = 0; i < names.size(); ++i)
    EXPECT_EQ(names[i], kBuiltinNames[i]); // database order, host last
  for (const TargetDesc &t : db.targets()) {
    SCOPED_TRACE(t.name);
    EXPECT_FALSE(t.chip.empty());
    EXPECT_FALSE(t.description.empty());
    EXPECT_GT(t.computeUnits, 0);
    EXPECT_GT(t.memBandwidthGBs, 0);
    EXPECT_GT(t.clockGHz, 0);
    EXPECT_GT(t.onChipBytesPerClock, 0);
    EXPECT_GT(t.calibration.computeEfficiency, 0);
    bool anyPeak = false;
    for (double p : t.peakTflops)
      anyPeak |= p > 0;
    EXPECT_TRUE(anyPeak);
    if (t.isGpu()) {
      EXPECT_GT(t.sharedMemPerBlock, 0);
      EXPECT_EQ(t.maxThreadsPerBlock % t.warpSize, 0);
    } else {
      EXPECT_GT(t.vectorBits, 0);
      EXPECT_GT(t.peak(InstKind::CpuFma), 0);
    }
  }
}

TEST(TargetDatabase, PublishedFiguresAndMissingInstructions) {
  const TargetDesc &h100 = builtinTarget("h100");
  EXPECT_EQ(h100.computeUnits, 132);
  EXPECT_EQ(h100.sharedMemPerBlock, 227 * 1024);
  EXPECT_EQ(h100.sharedMemPerCU, 228 * 1024);
  EXPECT_EQ(h100.registersPerCU, 65536);
  EXPECT_DOUBLE_EQ(h100.peak(InstKind::Wgmma), 989.4);
  EXPECT_FALSE(builtinTarget("a100").hasInst(InstKind::Wgmma));
  EXPECT_FALSE(builtinTarget("v100").hasInst(InstKind::MmaSyncF16));
  EXPECT_FALSE(builtinTarget("t4").hasInst(InstKind::MmaSyncF16));
  EXPECT_TRUE(builtinTarget("mi300x").hasInst(InstKind::Mfma32x32x8));
  EXPECT_TRUE(builtinTarget("rx7900xtx").hasInst(InstKind::Wmma16x16x16));
  EXPECT_EQ(builtinTarget("mi300x").warpSize, 64);
}

TEST(TargetDatabase, HostIsDetected) {
  const TargetDesc &host = builtinTarget("host");
  EXPECT_EQ(host.vendor, Vendor::CPU);
  EXPECT_GE(host.computeUnits, 1);
  EXPECT_GT(host.vectorBits, 0);
  EXPECT_GT(host.peak(InstKind::CpuFma), 0);
  EXPECT_NE(host.description.find("detected"), std::string::npos);
}

/// Parses `text` as "user.db" into a fresh copy of the built-ins and
/// returns the error (empty on success).
std::string parseError(const std::string &text) {
  TargetDatabase db = TargetDatabase::withBuiltins();
  std::string error;
  bool ok = db.addFromText(text, "user.db", error);
  EXPECT_EQ(ok, error.empty());
  EXPECT_EQ(db.targets().size(), TargetDatabase::builtin().targets().size())
      << "a failed parse must leave the database unchanged";
  return error;
}

const char *const kMinimalGpu = "[mygpu]\n"
                                "vendor = nvidia\n"
                                "chip = sm_80\n"
                                "description = test GPU\n"
                                "compute_units = 10\n"
                                "warp_size = 32\n"
                                "sub_partitions = 4\n"
                                "max_threads_per_block = 1024\n"
                                "max_threads_per_cu = 2048\n"
                                "max_blocks_per_cu = 32\n"
                                "registers_per_block = 65536\n"
                                "registers_per_cu = 65536\n"
                                "max_registers_per_thread = 255\n"
                                "shared_mem_per_block = 48 KiB\n"
                                "shared_mem_per_cu = 64 KiB\n"
                                "l1_bytes = 128 KiB\n"
                                "l2_bytes = 4 MiB\n"
                                "mem_bandwidth_gbs = 500\n"
                                "clock_ghz = 1.5\n"
                                "onchip_bytes_per_clock = 128\n"
                                "peak.simt_fma = 10\n";

TEST(TargetDatabase, UserTargetParses) {
  TargetDatabase db = TargetDatabase::withBuiltins();
  std::string error;
  ASSERT_TRUE(db.addFromText(kMinimalGpu, "user.db", error)) << error;
  const TargetDesc *t = db.lookup("mygpu");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->sharedMemPerBlock, 48 * 1024);
  EXPECT_EQ(t->l2Bytes, 4 * 1024 * 1024);
  EXPECT_EQ(t->calibration, defaultCalibration(Vendor::NVIDIA));
  EXPECT_EQ(db.names().back(), "mygpu");
}

TEST(TargetDatabase, InheritsAndOverrides) {
  TargetDatabase db = TargetDatabase::withBuiltins();
  std::string error;
  ASSERT_TRUE(db.addFromText("[h100-pcie]\ninherits = h100\n"
                             "compute_units = 114\n"
                             "mem_bandwidth_gbs = 2000  # note\n"
                             "calib.compute_efficiency = 0.7\n",
                             "user.db", error))
      << error;
  const TargetDesc *t = db.lookup("h100-pcie");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->computeUnits, 114);
  EXPECT_DOUBLE_EQ(t->memBandwidthGBs, 2000);
  EXPECT_DOUBLE_EQ(t->calibration.computeEfficiency, 0.7);
  EXPECT_DOUBLE_EQ(t->peak(InstKind::Wgmma), 989.4);
  // Replacing a built-in keeps its position.
  ASSERT_TRUE(db.addFromText("[a100]\ninherits = a100\nclock_ghz = 1.2\n",
                             "user.db", error))
      << error;
  EXPECT_DOUBLE_EQ(db.lookup("a100")->clockGHz, 1.2);
  EXPECT_EQ(db.names()[1], "a100");
}

TEST(TargetDatabase, F64PeakIsAGpuFigure) {
  TargetDatabase db = TargetDatabase::withBuiltins();
  std::string error;
  ASSERT_TRUE(db.addFromText("[h100-f64]\ninherits = h100\n"
                             "f64_tflops = 26\n",
                             "user.db", error))
      << error;
  EXPECT_DOUBLE_EQ(db.lookup("h100-f64")->f64PeakTflops, 26);
  EXPECT_DOUBLE_EQ(db.lookup("a100")->f64PeakTflops, 9.7);
  EXPECT_FALSE(db.addFromText("[cpu-f64]\ninherits = host-avx2\n"
                              "f64_tflops = 1\n",
                              "user.db", error));
  EXPECT_EQ(error, "user.db:1: f64_tflops: is a GPU figure; a CPU's f64 rate "
                   "follows from its vector_bits, in [cpu-f64]");
  EXPECT_EQ(parseError("[x]\nf64_tflops = -1\n"),
            "user.db:2: f64_tflops: must be positive, got '-1'");
}

TEST(TargetDatabase, L2RateIsAGpuFigureAboveDram) {
  TargetDatabase db = TargetDatabase::withBuiltins();
  std::string error;
  EXPECT_DOUBLE_EQ(db.lookup("a100")->l2BytesPerClock, 5120);
  // Targets without the figure read 0: partial sums at the DRAM rate.
  EXPECT_DOUBLE_EQ(db.lookup("mi300x")->l2BytesPerClock, 0);
  // 2039 GB/s of HBM at 1.41 GHz is 1446 bytes per clock: an L2 figure
  // below it is in the wrong unit (per SM, or GB/s).
  EXPECT_FALSE(db.addFromText("[a100-slow-l2]\ninherits = a100\n"
                              "l2_bytes_per_clock = 64\n",
                              "user.db", error));
  EXPECT_EQ(error, "user.db:1: l2_bytes_per_clock: is below mem_bandwidth_gbs "
                   "at clock_ghz (bytes per clock over the whole chip are "
                   "expected) in [a100-slow-l2]");
  EXPECT_FALSE(db.addFromText("[cpu-l2]\ninherits = host-avx2\n"
                              "l2_bytes_per_clock = 4096\n",
                              "user.db", error));
  EXPECT_EQ(error, "user.db:1: l2_bytes_per_clock: is a GPU figure (the "
                   "partial sums it prices are a GPU kernel's), in [cpu-l2]");
}

TEST(TargetDatabase, UnknownKey) {
  EXPECT_EQ(parseError("[x]\nvendor = nvidia\ncolour = red\n"),
            "user.db:3: colour: unknown key");
}

TEST(TargetDatabase, BadNumber) {
  EXPECT_EQ(parseError("[x]\ncompute_units = lots\n"),
            "user.db:2: compute_units: expected an integer, got 'lots'");
  EXPECT_EQ(parseError("[x]\nclock_ghz = 1.5GHz\n"),
            "user.db:2: clock_ghz: expected a number, got '1.5GHz'");
  EXPECT_EQ(parseError("[x]\nl2_bytes = 4 MB\n"),
            "user.db:2: l2_bytes: expected a byte count (optionally "
            "KiB/MiB/GiB), got '4 MB'");
  EXPECT_EQ(parseError("[x]\ncompute_units = 0\n"),
            "user.db:2: compute_units: must be at least 1, got '0'");
  EXPECT_EQ(parseError("[x]\nmem_bandwidth_gbs = -3\n"),
            "user.db:2: mem_bandwidth_gbs: must be positive, got '-3'");
}

TEST(TargetDatabase, NumbersBeyondAnyHardwareAreErrors) {
  // Counts up to 2^20, sizes up to 2^40 bytes, rates up to 1e9: the
  // model's products of them stay exact (a count of 2^63 wrapped).
  EXPECT_EQ(parseError("[x]\ncompute_units = 9223372036854775807\n"),
            "user.db:2: compute_units: must be at most 1048576, got "
            "'9223372036854775807'");
  EXPECT_EQ(parseError("[x]\nl2_bytes = 2048 GiB\n"),
            "user.db:2: l2_bytes: must be at most 1099511627776, got "
            "'2048 GiB'");
  EXPECT_EQ(parseError("[x]\nclock_ghz = 1e308\n"),
            "user.db:2: clock_ghz: must be at most 1000000000, got '1e308'");
}

TEST(TargetDatabase, MissingRequiredField) {
  std::string text = kMinimalGpu;
  size_t at = text.find("warp_size = 32\n");
  text.erase(at, std::string("warp_size = 32\n").size());
  EXPECT_EQ(parseError(text),
            "user.db:1: warp_size: missing required field in [mygpu]");
  EXPECT_EQ(parseError("[x]\nchip = sm_80\n"),
            "user.db:1: vendor: missing required field in [x]");
}

TEST(TargetDatabase, DuplicateSection) {
  std::string text = std::string(kMinimalGpu) + "\n" + kMinimalGpu;
  EXPECT_EQ(parseError(text), "user.db:23: section: duplicate target [mygpu] "
                              "(first defined at line 1)");
}

TEST(TargetDatabase, DuplicateKey) {
  EXPECT_EQ(parseError("[x]\nchip = a\nchip = b\n"),
            "user.db:3: chip: duplicate key (first set at line 2)");
}

TEST(TargetDatabase, UnknownVendor) {
  EXPECT_EQ(parseError("[x]\nvendor = intel\n"),
            "user.db:2: vendor: unknown vendor 'intel' (expected nvidia, amd "
            "or cpu)");
}

TEST(TargetDatabase, SyntaxErrors) {
  EXPECT_EQ(parseError("vendor = nvidia\n"),
            "user.db:1: vendor: key outside of a [target] section");
  EXPECT_EQ(parseError("[x]\njust words\n"),
            "user.db:2: just words: expected 'key = value'");
  EXPECT_EQ(parseError("[x\n"),
            "user.db:1: section: expected ']' at the end of '[x'");
  EXPECT_EQ(parseError("[a b]\n"),
            "user.db:1: section: invalid character ' ' in target name 'a b' "
            "(use letters, digits, '-', '_', '.')");
}

TEST(TargetDatabase, BadInstructionPeaks) {
  EXPECT_EQ(parseError("[x]\npeak.tensor = 5\n"),
            "user.db:2: peak.tensor: unknown instruction 'tensor'");
  std::string amd = kMinimalGpu;
  amd.replace(amd.find("vendor = nvidia"), 15, "vendor = amd   ");
  amd += "peak.wgmma = 100\n";
  EXPECT_EQ(parseError(amd),
            "user.db:22: peak.wgmma: wgmma is not available on amd targets");
  std::string none = kMinimalGpu;
  none.replace(none.find("peak.simt_fma = 10"), 18, "peak.simt_fma = 0 ");
  EXPECT_EQ(parseError(none),
            "user.db:1: peak: no instruction has a positive peak in [mygpu] "
            "(set at least one peak.<instruction>)");
}

TEST(TargetDatabase, InheritsErrors) {
  EXPECT_EQ(parseError("[x]\ninherits = nosuch\n"),
            "user.db:2: inherits: unknown target 'nosuch'");
  EXPECT_EQ(parseError("[x]\nchip = a\ninherits = h100\n"),
            "user.db:3: inherits: must be the first key of a section");
}

TEST(TargetDatabase, MissingFile) {
  TargetDatabase db;
  std::string error;
  EXPECT_FALSE(db.addFromFile("/nonexistent/targets.db", error));
  EXPECT_EQ(error, "/nonexistent/targets.db:0: file: cannot open for reading");
}

TEST(TargetDatabase, SpellingsRoundTrip) {
  for (int i = 0; i < kNumInstKinds; ++i) {
    InstKind k = static_cast<InstKind>(i);
    EXPECT_EQ(parseInstKind(stringify(k)), k);
  }
  EXPECT_EQ(parseOpKind("conv2d_nhwc_hwcf"), OpKind::Conv2dNhwcHwcf);
  EXPECT_EQ(parseOpKind("conv2d_nchw"), OpKind::Conv2dNchwFchw);
  EXPECT_EQ(parseVendor("amd"), Vendor::AMD);
  EXPECT_EQ(parseElemType("bf16"), ElemType::BF16);
  EXPECT_EQ(parseElemType("f64"), ElemType::F64);
  EXPECT_EQ(stringify(ElemType::F64), "f64");
  EXPECT_EQ(elemBytes(ElemType::F64), 8);
  EXPECT_EQ(computeBytes(ElemType::F16), 4);
  EXPECT_EQ(parseBoundaryPolicy("patch"), BoundaryPolicy::Patch);
  EXPECT_FALSE(parseVendor("intel"));
  EXPECT_EQ(instShape(InstKind::CpuFma, 16).n, 16);
  EXPECT_EQ(instThreadsPerIssue(InstKind::Wgmma, 32), 128);
}

} // namespace
