//===- DeviceFactsTest.cpp - A target refreshed from the running device ---===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/DeviceFacts.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

namespace quilt {
namespace {

TEST(DeviceFacts, H100PcieFromTheSxmEntry) {
  TargetDesc target = builtinTarget("h100");
  const TargetDesc sxm = target;
  DeviceFacts pcie;
  pcie.vendor = Vendor::NVIDIA;
  pcie.computeUnits = 114;
  pcie.clockGHz = 1.755;
  pcie.sharedMemPerBlock = 227 * 1024;
  pcie.sharedMemPerCU = 228 * 1024;
  ASSERT_TRUE(applyDeviceFacts(target, pcie));
  EXPECT_EQ(target.computeUnits, 114);
  EXPECT_DOUBLE_EQ(target.clockGHz, 1.755);
  // Throughput per SM per clock is the chip's: the peaks scale.
  double ratio = (114 * 1.755) / (double(sxm.computeUnits) * sxm.clockGHz);
  for (int i = 0; i < kNumInstKinds; ++i)
    EXPECT_DOUBLE_EQ(target.peakTflops[i], sxm.peakTflops[i] * ratio);
  // What was not measured stays.
  EXPECT_EQ(target.memBandwidthGBs, sxm.memBandwidthGBs);
  EXPECT_EQ(target.name, sxm.name);
}

TEST(DeviceFacts, UnmeasuredFieldsAndLimitsKeepTheEntry) {
  TargetDesc target = builtinTarget("mi300x");
  const TargetDesc entry = target;
  DeviceFacts facts;
  facts.vendor = Vendor::AMD;
  facts.sharedMemPerBlock = 1 << 30; // More than per CU: clamped.
  ASSERT_TRUE(applyDeviceFacts(target, facts));
  EXPECT_EQ(target.computeUnits, entry.computeUnits);
  EXPECT_EQ(target.clockGHz, entry.clockGHz);
  EXPECT_EQ(target.peakTflops, entry.peakTflops);
  EXPECT_EQ(target.sharedMemPerBlock, target.sharedMemPerCU);
}

TEST(DeviceFacts, OtherVendorsAndCpusAreLeftAlone) {
  DeviceFacts amd;
  amd.vendor = Vendor::AMD;
  amd.computeUnits = 7;
  TargetDesc h100 = builtinTarget("h100");
  EXPECT_FALSE(applyDeviceFacts(h100, amd));
  EXPECT_EQ(h100.computeUnits, builtinTarget("h100").computeUnits);
  DeviceFacts cpu;
  cpu.vendor = Vendor::CPU;
  cpu.computeUnits = 7;
  TargetDesc host = builtinTarget("host-avx2");
  EXPECT_FALSE(applyDeviceFacts(host, cpu));
}

} // namespace
} // namespace quilt
