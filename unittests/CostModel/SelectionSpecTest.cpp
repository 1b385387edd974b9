//===- SelectionSpecTest.cpp - Spec and target-section round trips --------===//
//
// Part of the Quilt project. The compiler writes a spec per dispatch and the
// runtime reads it: both ends must agree on every field, or the program
// would select with different numbers than `quiltc explain` shows.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Candidates.h"
#include "CostModel/SelectionSpec.h"
#include "CostModel/TargetDatabase.h"

#include <gtest/gtest.h>

using namespace quilt;

namespace {

void expectSameTarget(const TargetDesc &a, const TargetDesc &b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.vendor, b.vendor);
  EXPECT_EQ(a.chip, b.chip);
  EXPECT_EQ(a.computeUnits, b.computeUnits);
  EXPECT_EQ(a.warpSize, b.warpSize);
  EXPECT_EQ(a.subPartitions, b.subPartitions);
  EXPECT_EQ(a.maxThreadsPerBlock, b.maxThreadsPerBlock);
  EXPECT_EQ(a.maxThreadsPerCU, b.maxThreadsPerCU);
  EXPECT_EQ(a.maxBlocksPerCU, b.maxBlocksPerCU);
  EXPECT_EQ(a.registersPerBlock, b.registersPerBlock);
  EXPECT_EQ(a.registersPerCU, b.registersPerCU);
  EXPECT_EQ(a.maxRegistersPerThread, b.maxRegistersPerThread);
  EXPECT_EQ(a.sharedMemPerBlock, b.sharedMemPerBlock);
  EXPECT_EQ(a.sharedMemPerCU, b.sharedMemPerCU);
  EXPECT_EQ(a.l1Bytes, b.l1Bytes);
  EXPECT_EQ(a.l2Bytes, b.l2Bytes);
  EXPECT_EQ(a.l3Bytes, b.l3Bytes);
  EXPECT_EQ(a.memBandwidthGBs, b.memBandwidthGBs);
  EXPECT_EQ(a.clockGHz, b.clockGHz);
  EXPECT_EQ(a.onChipBytesPerClock, b.onChipBytesPerClock);
  EXPECT_EQ(a.peakTflops, b.peakTflops);
  EXPECT_EQ(a.vectorBits, b.vectorBits);
  EXPECT_EQ(a.fmaUnitsPerCore, b.fmaUnitsPerCore);
  EXPECT_EQ(a.calibration, b.calibration);
}

TEST(TargetSection, EveryBuiltinTargetRoundTrips) {
  for (const TargetDesc &target : TargetDatabase::builtin().targets()) {
    SCOPED_TRACE(target.name);
    std::string text = formatTargetSection(target);
    TargetDatabase db;
    std::string error;
    ASSERT_TRUE(db.addFromText(text, "section", error)) << error << "\n"
                                                         << text;
    ASSERT_EQ(db.targets().size(), 1u);
    expectSameTarget(db.targets().front(), target);
  }
}

TEST(SelectionSpec, RoundTripsWithEveryPolicy) {
  const TargetDesc *h100 = TargetDatabase::builtin().lookup("h100");
  ASSERT_TRUE(h100);
  SelectionSpec spec;
  spec.target = *h100;
  spec.elem = ElemType::F16;
  spec.candidates = generateCandidates(OpKind::Matmul, ElemType::F16, *h100);
  ASSERT_FALSE(spec.candidates.empty());
  for (SelectionPolicy policy :
       {SelectionPolicy::CostModel, SelectionPolicy::Pad,
        SelectionPolicy::Patch, SelectionPolicy::Fixed}) {
    spec.policy = policy;
    spec.fixedIndex = policy == SelectionPolicy::Fixed ? 3 : 0;
    SelectionSpec back;
    std::string error;
    ASSERT_TRUE(parseSelectionSpec(formatSelectionSpec(spec), back, error))
        << error;
    EXPECT_EQ(back.elem, spec.elem);
    EXPECT_EQ(back.policy, spec.policy);
    EXPECT_EQ(back.fixedIndex, spec.fixedIndex);
    EXPECT_EQ(back.candidates, spec.candidates);
    expectSameTarget(back.target, spec.target);
  }
}

TEST(SelectionSpec, TargetsWithoutDescriptionStillRoundTrip) {
  TargetDesc target = *TargetDatabase::builtin().lookup("host-avx2");
  target.name = "from-ir";
  target.description.clear();
  TargetDatabase db;
  std::string error;
  ASSERT_TRUE(db.addFromText(formatTargetSection(target), "ir", error))
      << error;
  EXPECT_EQ(db.targets().front().name, "from-ir");
}

TEST(SelectionSpec, RejectsMalformedSpecs) {
  const TargetDesc *host = TargetDatabase::builtin().lookup("host-avx2");
  SelectionSpec spec;
  spec.target = *host;
  spec.candidates = generateCandidates(OpKind::Matmul, ElemType::F32, *host);
  std::string good = formatSelectionSpec(spec);
  SelectionSpec out;
  std::string error;

  EXPECT_FALSE(parseSelectionSpec("", out, error));
  EXPECT_FALSE(parseSelectionSpec("# not a spec\n" + good, out, error));
  EXPECT_NE(error.find("line 1"), std::string::npos) << error;

  std::string badElem = good;
  badElem.replace(badElem.find("elem f32"), 8, "elem i8 ");
  EXPECT_FALSE(parseSelectionSpec(badElem, out, error));
  EXPECT_NE(error.find("unknown element type 'i8'"), std::string::npos)
      << error;

  std::string badPolicy = good;
  badPolicy.replace(badPolicy.find("policy cost-model"), 17, "policy fast");
  EXPECT_FALSE(parseSelectionSpec(badPolicy, out, error));
  EXPECT_NE(error.find("unknown policy 'fast'"), std::string::npos) << error;

  std::string noTarget = good.substr(0, good.find('['));
  EXPECT_FALSE(parseSelectionSpec(noTarget, out, error));
}

} // namespace
