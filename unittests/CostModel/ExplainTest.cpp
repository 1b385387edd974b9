//===- ExplainTest.cpp - Reports, tables and JSON -------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Explain.h"
#include "TestUtil.h"

using namespace quilt;

namespace {

ExplainReport explain(const char *target, const char *line,
                      ExplainOptions options = {}) {
  Workload w;
  std::string error;
  EXPECT_TRUE(parseWorkload(line, w, error)) << error;
  ExplainReport report;
  EXPECT_TRUE(explainWorkload(w, builtinTarget(target), options, report, error))
      << error;
  return report;
}

TEST(Explain, RanksAndMarksTheChoice) {
  ExplainReport r = explain("h100", "matmul f16 M=1000 N=768 K=3072");
  ASSERT_EQ(r.predictions.size(), r.candidates.size());
  for (size_t i = 1; i < r.ranking.size(); ++i)
    EXPECT_LE(r.predictions[r.ranking[i - 1]].totalUs,
              r.predictions[r.ranking[i]].totalUs);
  EXPECT_EQ(r.ranking.front(), r.selection.candidate);
  EXPECT_NE(r.why.find(" wins over "), std::string::npos) << r.why;
  std::string text = renderExplainText(r, 3);
  EXPECT_NE(text.find("wave_efficiency"), std::string::npos);
  EXPECT_NE(text.find(" *   1"), std::string::npos) << text;
  EXPECT_NE(text.find("why:    "), std::string::npos);
}

TEST(Explain, WhyNamesWaveQuantization) {
  ExplainReport r = explain("mi300x", "matmul f16 M=1000 N=768 K=3072");
  EXPECT_NE(r.why.find("waves at"), std::string::npos) << r.why;
}

TEST(Explain, PatchIsReported) {
  ExplainReport r = explain("h100", "matmul f16 M=6241 N=4103 K=3726");
  ASSERT_EQ(r.selection.patchDim, PatchDim::N);
  EXPECT_EQ(r.why.rfind("patch wins: ", 0), 0u) << r.why;
  std::string json;
  JsonWriter writer(json);
  writeExplainJson(writer, r, 2);
  EXPECT_NE(json.find("\"patch\": {"), std::string::npos);
  EXPECT_NE(json.find("\"remainder\": {"), std::string::npos);
}

TEST(Explain, JsonHasTheDocumentedKeys) {
  ExplainReport r = explain("a100", "matmul f32 M=7 N=13 K=17");
  std::string json;
  JsonWriter writer(json);
  writeExplainJson(writer, r);
  for (const char *key :
       {"\"workload\"", "\"target\": \"a100\"", "\"chosen\"", "\"candidates\"",
        "\"config\"", "\"str\"", "\"predicted_us\"", "\"terms\"",
        "\"wave_efficiency\""})
    EXPECT_NE(json.find(key), std::string::npos) << key;
}

TEST(Explain, UnalignedRowsAreCopiedFirst) {
  // MikPoly's M=8457 N=2560 K=35 in f16: A's 70-byte rows are copied to
  // 80-byte ones (8457 x (35 + 40) x 2 bytes read and written), one launch;
  // B's 5120-byte rows are aligned.
  ExplainReport r = explain("h100", "matmul f16 M=8457 N=2560 K=35");
  EXPECT_TRUE(r.copies.copiesA);
  EXPECT_FALSE(r.copies.copiesB);
  EXPECT_DOUBLE_EQ(r.copies.bytes, 8457.0 * (35 + 40) * 2);
  const Calibration &cal = r.target.calibration;
  double bandwidthBytesPerUs = r.target.memBandwidthGBs * 1e3;
  EXPECT_NEAR(r.copies.us,
              cal.launchOverheadUs +
                  r.copies.bytes / cal.memoryEfficiency / bandwidthBytesPerUs,
              1e-9);
  std::string text = renderExplainText(r, 1);
  EXPECT_NE(text.find("copies: A rows are not multiples of 16 bytes"),
            std::string::npos)
      << text;
  std::string json;
  JsonWriter writer(json);
  writeExplainJson(writer, r);
  EXPECT_NE(json.find("\"operand_copies\": {\n    \"a\": true,\n    \"b\": "
                      "false,\n    \"mb\": 1.26855,"),
            std::string::npos)
      << json;

  // Both (odd K and odd N): two launches.
  ExplainReport both = explain("a100", "batch_matmul f16 B=3 M=43 N=43 K=43");
  EXPECT_TRUE(both.copies.copiesA && both.copies.copiesB);
  EXPECT_DOUBLE_EQ(both.copies.bytes, 2 * 3.0 * 43 * (43 + 48) * 2);
  // Aligned rows, CPUs and convolutions copy nothing.
  for (ExplainReport none :
       {explain("h100", "matmul f16 M=8457 N=2560 K=64"),
        explain("host", "matmul f32 M=7 N=13 K=17"),
        explain("h100", "conv2d_nhwc f16 N=1 H=9 W=9 C=3 F=5 R=3 S=3")}) {
    EXPECT_FALSE(none.copies.copiesA || none.copies.copiesB)
        << none.workload.str();
    EXPECT_EQ(none.copies.us, 0.0);
    EXPECT_EQ(renderExplainText(none).find("copies:"), std::string::npos);
  }
}

TEST(Explain, ZeroDimsAreExplained) {
  ExplainReport r = explain("host", "matmul f32 M=0 N=16 K=16");
  EXPECT_EQ(r.selection.candidate, 0);
  EXPECT_EQ(r.why.rfind("empty problem", 0), 0u) << r.why;
}

TEST(Explain, FixedIndexOutOfRange) {
  Workload w;
  std::string error;
  ASSERT_TRUE(parseWorkload("matmul f32 M=8 N=8 K=8", w, error));
  ExplainOptions options;
  options.policy = SelectionPolicy::Fixed;
  options.fixedIndex = 40;
  ExplainReport r;
  EXPECT_FALSE(explainWorkload(w, builtinTarget("a100"), options, r, error));
  EXPECT_EQ(error, "fixed=40 is out of range: there are 16 candidates");
}

TEST(Explain, TargetTableListsEveryTarget) {
  std::string table = renderTargetTable(TargetDatabase::builtin());
  for (const std::string &name : TargetDatabase::builtin().names())
    EXPECT_NE(table.find(name), std::string::npos) << name;
  EXPECT_NE(table.find("989.4 wgmma"), std::string::npos);
}

TEST(Json, EscapesAndNests) {
  EXPECT_EQ(jsonQuote("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\u0001\"");
  std::string out;
  JsonWriter json(out, /*pretty=*/false);
  json.beginObject();
  json.field("s", "x");
  json.field("n", 1.5);
  json.field("i", int64_t(-3));
  json.field("b", true);
  json.key("empty");
  json.beginArray();
  json.endArray();
  json.key("list");
  json.beginArray();
  json.value(1);
  json.null();
  json.value(1.0 / 0.0);
  json.endArray();
  json.endObject();
  EXPECT_EQ(out, "{\"s\":\"x\",\"n\":1.5,\"i\":-3,\"b\":true,\"empty\":[],"
                 "\"list\":[1,null,null]}");
}

} // namespace
