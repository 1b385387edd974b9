//===- TuningDatabaseTest.cpp - Tuning database files and tuned selection -===//
//
// Part of the Quilt project. The database round-trips, every malformed or
// stale file is an error naming file, line and field, and a prepared table
// with tuned regions selects the region's candidate inside it (the nearest
// region's when several hold the shape) and the model's elsewhere.
//
//===----------------------------------------------------------------------===//

#include "CostModel/TuningDatabase.h"
#include "CostModel/Candidates.h"
#include "CostModel/CostModel.h"
#include "CostModel/SelectionSpec.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace quilt;

namespace {

constexpr const char *kGood = R"(# tuned by hand
quilt-tuning-db 1
target = host-avx512
threads = 1

[matmul f32]
epilogue = any
m = 100..140
n = 768
k = 768
config = 48x256x128 t1 w1x1 tt12x32 v16 s1 cpu_fma
measured_us = 812.5
model_config = 1024x128x64 t1 w1x1 tt2x64 v16 s1 cpu_fma
model_measured_us = 901

[batch_matmul f16]
epilogue = bias_add+gelu
b = 12..16
m = 64
n = 64
k = 0..64
config = 96x256x128 t1 w1x1 tt6x32 v16 s1 cpu_fma
)";

TuningDatabase parseOrFail(const std::string &text) {
  TuningDatabase db;
  std::string error;
  EXPECT_TRUE(TuningDatabase::parse(text, "tuned.db", TargetDatabase::builtin(),
                                    db, error))
      << error;
  return db;
}

/// The error parsing `text` gives ("" when it parses).
std::string parseError(const std::string &text) {
  TuningDatabase db;
  std::string error;
  if (TuningDatabase::parse(text, "tuned.db", TargetDatabase::builtin(), db,
                            error))
    return "";
  return error;
}

TEST(TuningDatabase, ParsesEveryField) {
  TuningDatabase db = parseOrFail(kGood);
  EXPECT_EQ(db.target, "host-avx512");
  EXPECT_EQ(db.threads, 1);
  ASSERT_EQ(db.entries.size(), 2u);
  const TuningEntry &first = db.entries[0];
  EXPECT_EQ(first.op, OpKind::Matmul);
  EXPECT_EQ(first.elem, ElemType::F32);
  EXPECT_EQ(first.epilogue, "any");
  EXPECT_EQ(first.line, 6);
  EXPECT_EQ(first.region.lower, (std::array<int64_t, 4>{1, 100, 768, 768}));
  EXPECT_EQ(first.region.upper, (std::array<int64_t, 4>{1, 140, 768, 768}));
  EXPECT_EQ(first.config.str(), "48x256x128 t1 w1x1 tt12x32 v16 s1 cpu_fma");
  EXPECT_EQ(first.measuredUs, 812.5);
  ASSERT_TRUE(first.modelConfig);
  EXPECT_EQ(first.modelMeasuredUs, 901);
  const TuningEntry &second = db.entries[1];
  EXPECT_EQ(second.op, OpKind::BatchMatmul);
  EXPECT_EQ(second.elem, ElemType::F16);
  EXPECT_EQ(second.epilogue, "bias_add+gelu");
  EXPECT_EQ(second.region.lower, (std::array<int64_t, 4>{12, 64, 64, 0}));
  EXPECT_FALSE(second.measuredUs);
}

TEST(TuningDatabase, RendersWhatItParses) {
  TuningDatabase db = parseOrFail(kGood);
  TuningDatabase back = parseOrFail(db.render());
  ASSERT_EQ(back.entries.size(), db.entries.size());
  for (size_t i = 0; i < db.entries.size(); ++i) {
    EXPECT_EQ(back.entries[i].op, db.entries[i].op);
    EXPECT_EQ(back.entries[i].elem, db.entries[i].elem);
    EXPECT_EQ(back.entries[i].epilogue, db.entries[i].epilogue);
    EXPECT_EQ(back.entries[i].region, db.entries[i].region);
    EXPECT_EQ(back.entries[i].config, db.entries[i].config);
    EXPECT_EQ(back.entries[i].measuredUs, db.entries[i].measuredUs);
    EXPECT_EQ(back.entries[i].modelConfig, db.entries[i].modelConfig);
  }
  EXPECT_EQ(back.render(), db.render());
}

TEST(TuningDatabase, EveryErrorNamesFileLineAndField) {
  std::string good = kGood;
  auto replaced = [&](const std::string &from, const std::string &to) {
    std::string text = good;
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  struct Case {
    std::string text, expected;
  };
  const Case cases[] = {
      {"", "tuned.db:0: field 'version': empty file"},
      {replaced("quilt-tuning-db 1", "quilt-tuning-db 2"),
       "tuned.db:2: field 'version': the file is version 2; this build of "
       "Quilt reads version 1"},
      {replaced("quilt-tuning-db 1", "tuning 1"),
       "tuned.db:2: field 'version': expected 'quilt-tuning-db 1'"},
      {replaced("target = host-avx512", "target = tpu9"),
       "tuned.db:3: field 'target': unknown target 'tpu9'"},
      {replaced("threads = 1", "threads = none"),
       "tuned.db:4: field 'threads': expected a positive thread count"},
      {replaced("threads = 1", "flavour = mild"),
       "tuned.db:4: field 'flavour': unknown field before the first entry"},
      {replaced("[matmul f32]", "[gemm f32]"),
       "tuned.db:6: field 'op': unknown op 'gemm'"},
      {replaced("[matmul f32]", "[matmul i8]"),
       "tuned.db:6: field 'type': unknown element type 'i8'"},
      {replaced("[matmul f32]", "[matmul]"),
       "tuned.db:6: expected '[op type]'"},
      {replaced("epilogue = any", "epilogue = Bias!"),
       "tuned.db:7: field 'epilogue': expected any, none, fused"},
      {replaced("m = 100..140", "m = 140..100"),
       "tuned.db:8: field 'm': expected 0 <= LO <= HI"},
      {replaced("m = 100..140", "m = lots"),
       "tuned.db:8: field 'm': expected a size or a range"},
      {replaced("m = 100..140\n", ""),
       "tuned.db:6: field 'm': missing in this entry"},
      {replaced("n = 768\n", "n = 768\nn = 769\n"),
       "tuned.db:10: field 'n': given twice"},
      {replaced("tt12x32 v16 s1 cpu_fma\nmeasured",
                "tt12x32 v16 s1 cpu_fmaa\nmeasured"),
       "tuned.db:11: field 'config': malformed instruction 'cpu_fmaa'"},
      {replaced("48x256x128 t1", "48x256x1024 t1"),
       "tuned.db:11: field 'config': not a valid f32 kernel for host-avx512: "
       "B micro-panel"},
      {replaced("measured_us = 812.5", "measured_us = fast"),
       "tuned.db:12: field 'measured_us': expected a time in microseconds"},
      {replaced("model_measured_us = 901", "tile_k = 64"),
       "tuned.db:14: field 'tile_k': unknown field (expected epilogue"},
      {replaced("target = host-avx512\n", ""),
       "tuned.db:5: field 'target': missing before the first entry"},
  };
  for (const Case &c : cases) {
    std::string error = parseError(c.text);
    EXPECT_EQ(error.rfind(c.expected, 0), 0u)
        << "expected '" << c.expected << "...', got '" << error << "'";
  }
}

TEST(TuningDatabase, RefusesAnotherTargetOrThreadCount) {
  TuningDatabase db = parseOrFail(kGood);
  std::string error;
  EXPECT_TRUE(db.checkApplies(builtinTarget("host-avx512"), 1, error)) << error;
  EXPECT_FALSE(db.checkApplies(builtinTarget("host-avx2"), 1, error));
  EXPECT_EQ(error, "tuned.db:3: field 'target': the database was tuned for "
                   "host-avx512, this compilation targets host-avx2");
  EXPECT_FALSE(db.checkApplies(builtinTarget("host-avx512"), 4, error));
  EXPECT_EQ(error, "tuned.db:4: field 'threads': the database was tuned for "
                   "1 thread(s), this compilation runs 4");
  db.targetDescription = "another machine";
  db.descriptionLine = 3;
  EXPECT_FALSE(db.checkApplies(builtinTarget("host-avx512"), 1, error));
  EXPECT_NE(error.find("field 'target_description'"), std::string::npos);
}

TEST(TuningDatabase, MatchesOpTypeAndEpilogue) {
  TuningDatabase db = parseOrFail(kGood);
  EXPECT_EQ(db.matching(OpKind::Matmul, ElemType::F32, "none").size(), 1u);
  EXPECT_EQ(db.matching(OpKind::Matmul, ElemType::F32, "fused").size(), 1u);
  EXPECT_EQ(db.matching(OpKind::Matmul, ElemType::F16, "none").size(), 0u);
  EXPECT_EQ(
      db.matching(OpKind::BatchMatmul, ElemType::F16, "bias_add+gelu").size(),
      1u);
  EXPECT_EQ(db.matching(OpKind::BatchMatmul, ElemType::F16, "none").size(), 0u);
}

TEST(TuningDatabase, PutReplacesTheSameRegion) {
  TuningDatabase db = parseOrFail(kGood);
  TuningEntry entry = db.entries[0];
  entry.config = parseOrDie("96x256x128 t1 w1x1 tt6x32 v16 s1 cpu_fma");
  db.put(entry);
  ASSERT_EQ(db.entries.size(), 2u);
  EXPECT_EQ(db.entries[0].config, entry.config);
  entry.region.upper[1] = 200;
  db.put(entry);
  EXPECT_EQ(db.entries.size(), 3u);
}

TEST(TuningDatabase, AddsConfigurationsOnceAndRegionsPerEntry) {
  TuningDatabase db = parseOrFail(kGood);
  db.put([&] {
    TuningEntry e = db.entries[0];
    e.region = ShapeRegion::exactly({1, 512, 512, 512});
    return e;
  }());
  std::vector<KernelConfig> candidates = {
      parseOrDie("1024x128x64 t1 w1x1 tt2x64 v16 s1 cpu_fma")};
  std::vector<TunedRegion> regions;
  std::string error;
  ASSERT_TRUE(addTunedCandidates(db, OpKind::Matmul, ElemType::F32, "none",
                                 candidates, regions, error))
      << error;
  ASSERT_EQ(candidates.size(), 2u);
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0].candidate, 1);
  EXPECT_EQ(regions[1].candidate, 1);
  EXPECT_EQ(regions[0].source, "tuned.db:6");

  std::vector<KernelConfig> full(kMaxPreparedCandidates, candidates[0]);
  regions.clear();
  EXPECT_FALSE(addTunedCandidates(db, OpKind::Matmul, ElemType::F32, "none",
                                  full, regions, error));
  EXPECT_EQ(error.rfind("tuned.db:6: field 'config': a dispatch holds at most "
                        "64 candidates",
                        0),
            0u)
      << error;
}

/// A prepared table over the host's default candidates plus `regions`.
PreparedTable tunedTable(const std::vector<KernelConfig> &candidates,
                         const std::vector<TunedRegion> &regions) {
  const TargetDesc &target = builtinTarget("host-avx512");
  PreparedTable table;
  std::string error;
  EXPECT_TRUE(prepareTable(candidates, ElemType::F32, target,
                           target.calibration, table, error))
      << error;
  EXPECT_TRUE(addTunedRegions(regions, table, error)) << error;
  return table;
}

TEST(TunedSelection, RegionChoosesInsideAndModelOutside) {
  std::vector<KernelConfig> candidates = generateCandidates(
      OpKind::Matmul, ElemType::F32, builtinTarget("host-avx512"));
  ASSERT_GE(candidates.size(), 3u);
  GemmShape inside{1, 128, 768, 768}, outside{1, 200, 768, 768};
  PreparedTable plain = tunedTable(candidates, {});
  Selection model;
  ASSERT_EQ(selectKernel(plain, inside, model), SelectStatus::Ok);
  // The region picks a candidate the model would not.
  int32_t other = model.candidate == 0 ? 1 : 0;
  ShapeRegion box;
  box.lower = {1, 100, 768, 768};
  box.upper = {1, 140, 768, 768};
  PreparedTable table =
      tunedTable(candidates, {TunedRegion{box, other, "tuned.db:6"}});

  Selection s;
  ASSERT_EQ(selectKernel(table, inside, s), SelectStatus::Ok);
  EXPECT_EQ(s.candidate, other);
  EXPECT_EQ(s.tunedRegion, 0);
  EXPECT_DOUBLE_EQ(s.predictedUs, evaluateCandidate(table, other, inside));

  ASSERT_EQ(selectKernel(table, outside, s), SelectStatus::Ok);
  Selection modelOutside;
  ASSERT_EQ(selectKernel(plain, outside, modelOutside), SelectStatus::Ok);
  EXPECT_EQ(s.candidate, modelOutside.candidate);
  EXPECT_EQ(s.tunedRegion, -1);

  // Policies other than cost-model do what they say, regions or not.
  table.policy = SelectionPolicy::Fixed;
  table.fixedIndex = 2;
  ASSERT_EQ(selectKernel(table, inside, s), SelectStatus::Ok);
  EXPECT_EQ(s.candidate, 2);
  EXPECT_EQ(s.tunedRegion, -1);

  // Nothing to compute: no region applies.
  table.policy = SelectionPolicy::CostModel;
  ASSERT_EQ(selectKernel(table, GemmShape{1, 0, 768, 768}, s),
            SelectStatus::Ok);
  EXPECT_EQ(s.tunedRegion, -1);
}

TEST(TunedSelection, NearestCentreWinsWhereRegionsOverlap) {
  std::vector<KernelConfig> candidates = generateCandidates(
      OpKind::Matmul, ElemType::F32, builtinTarget("host-avx512"));
  ShapeRegion low, high;
  low.lower = {1, 64, 768, 768};
  low.upper = {1, 256, 768, 768}; // centre m = 128
  high.lower = {1, 128, 768, 768};
  high.upper = {1, 512, 768, 768}; // centre m = 256
  PreparedTable table = tunedTable(
      candidates, {TunedRegion{low, 1, "a"}, TunedRegion{high, 2, "b"}});
  Selection s;
  ASSERT_EQ(selectKernel(table, GemmShape{1, 170, 768, 768}, s),
            SelectStatus::Ok);
  EXPECT_EQ(s.tunedRegion, 0); // 170/128 = 1.33 < 256/170 = 1.51
  ASSERT_EQ(selectKernel(table, GemmShape{1, 200, 768, 768}, s),
            SelectStatus::Ok);
  EXPECT_EQ(s.tunedRegion, 1); // 200/128 = 1.56 > 256/200 = 1.28
  ASSERT_EQ(selectKernel(table, GemmShape{1, 300, 768, 768}, s),
            SelectStatus::Ok);
  EXPECT_EQ(s.candidate, 2);
}

TEST(TunedSelection, BadRegionsAreRefused) {
  std::vector<KernelConfig> candidates = {
      parseOrDie("1024x128x64 t1 w1x1 tt2x64 v16 s1 cpu_fma")};
  const TargetDesc &target = builtinTarget("host-avx512");
  PreparedTable table;
  std::string error;
  ASSERT_TRUE(prepareTable(candidates, ElemType::F32, target,
                           target.calibration, table, error));
  ShapeRegion box = ShapeRegion::exactly({1, 8, 8, 8});
  EXPECT_FALSE(addTunedRegions({TunedRegion{box, 1, "x.db:3"}}, table, error));
  EXPECT_EQ(error, "tuned region 0 (x.db:3) selects candidate 1, but there "
                   "are 1");
  box.upper[2] = 4;
  EXPECT_FALSE(addTunedRegions({TunedRegion{box, 0, "x.db:3"}}, table, error));
  EXPECT_EQ(error, "tuned region 0 (x.db:3): dimension n has bounds 8..4; "
                   "expected 0 <= lower <= upper");
  std::vector<TunedRegion> many(
      kMaxTunedRegions + 1,
      TunedRegion{ShapeRegion::exactly({1, 8, 8, 8}), 0, "x.db:3"});
  EXPECT_FALSE(addTunedRegions(many, table, error));
}

TEST(TunedSelection, SpecRoundTripsRegions) {
  SelectionSpec spec;
  spec.target = builtinTarget("host-avx512");
  spec.candidates = {parseOrDie("1024x128x64 t1 w1x1 tt2x64 v16 s1 cpu_fma"),
                     parseOrDie("48x256x128 t1 w1x1 tt12x32 v16 s1 cpu_fma")};
  ShapeRegion box;
  box.lower = {1, 100, 768, 0};
  box.upper = {4, 140, 768, 64};
  spec.tuned = {TunedRegion{box, 1, "/tmp/my tuned.db:12"}};
  SelectionSpec back;
  std::string error;
  ASSERT_TRUE(parseSelectionSpec(formatSelectionSpec(spec), back, error))
      << error;
  EXPECT_EQ(back.tuned, spec.tuned);

  std::string text = formatSelectionSpec(spec);
  for (const char *bad : {"tuned 1 b=1..4 m=100..140 n=768 k=0..64\n",
                          "tuned x b=1..4 m=100..140 n=768 k=0..64 from a\n",
                          "tuned 1 b=4..1 m=100..140 n=768 k=0..64 from a\n",
                          "tuned 1 q=1 m=100..140 n=768 k=0..64 from a\n"}) {
    std::string broken = text;
    size_t at = broken.find("tuned ");
    broken.replace(at, broken.find('\n', at) + 1 - at, bad);
    EXPECT_FALSE(parseSelectionSpec(broken, back, error)) << bad;
  }
}

} // namespace
