//===- CalibrationTest.cpp - Fitting coefficients back from measurements --===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/CalibrationFit.h"
#include "CostModel/Candidates.h"
#include "CostModel/CostModel.h"
#include "TestUtil.h"

using namespace quilt;

namespace {

/// Deterministic noise in [-amplitude, amplitude].
struct Noise {
  uint64_t state = 12345;
  double next(double amplitude) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double unit = double(state >> 11) / double(uint64_t(1) << 53);
    return amplitude * (2 * unit - 1);
  }
};

/// Measurements of every candidate on a spread of shapes, "measured" with
/// the model itself under `truth`, plus relative noise.
std::vector<Measurement> synthesize(const TargetDesc &t, ElemType elem,
                                    const Calibration &truth, double noise) {
  std::vector<KernelConfig> cands =
      generateCandidates(OpKind::Matmul, elem, t, CandidateOptions{6, false});
  Noise rng;
  std::vector<Measurement> ms;
  for (GemmShape s :
       {GemmShape{1, 16, 64, 64}, GemmShape{1, 64, 256, 128},
        GemmShape{1, 1000, 768, 3072}, GemmShape{1, 4096, 4096, 4096},
        GemmShape{8, 512, 512, 64}, GemmShape{1, 35, 8457, 4096},
        GemmShape{1, 8192, 1024, 256}, GemmShape{1, 257, 255, 33}})
    for (const KernelConfig &c : cands) {
      Measurement m;
      m.elem = elem, m.shape = s, m.config = c;
      m.measuredUs =
          predict(s, elem, c, t, truth).totalUs * (1 + rng.next(noise));
      ms.push_back(m);
    }
  return ms;
}

void expectRecovers(const char *target, ElemType elem,
                    const Calibration &truth) {
  const TargetDesc &t = builtinTarget(target);
  std::vector<Measurement> ms = synthesize(t, elem, truth, 0.01);
  FitResult fit;
  std::string error;
  ASSERT_TRUE(fitCalibration(t, ms, fit, error)) << error;
  EXPECT_NEAR(fit.after.computeEfficiency, truth.computeEfficiency,
              0.05 * truth.computeEfficiency);
  EXPECT_NEAR(fit.after.memoryEfficiency, truth.memoryEfficiency,
              0.08 * truth.memoryEfficiency);
  EXPECT_NEAR(fit.after.launchOverheadUs, truth.launchOverheadUs,
              0.1 * truth.launchOverheadUs);
  EXPECT_NEAR(fit.after.tileOverheadUs, truth.tileOverheadUs,
              0.15 * truth.tileOverheadUs + 0.02);
  EXPECT_LT(fit.rmsRelErrorAfter, 0.02);
  EXPECT_LT(fit.rmsRelErrorAfter, fit.rmsRelErrorBefore);
}

TEST(Calibration, RecoversKnownCoefficientsOnAGpu) {
  expectRecovers("a100", ElemType::F16, Calibration{0.65, 0.6, 7.0, 0.9});
}

TEST(Calibration, RecoversKnownCoefficientsOnACpu) {
  expectRecovers("host-avx2", ElemType::F32, Calibration{0.7, 0.5, 3.0, 0.2});
}

TEST(Calibration, ExactDataIsFitExactly) {
  const TargetDesc &t = builtinTarget("h100");
  Calibration truth{0.72, 0.9, 3.5, 0.4};
  FitResult fit;
  std::string error;
  ASSERT_TRUE(
      fitCalibration(t, synthesize(t, ElemType::F16, truth, 0.0), fit, error))
      << error;
  EXPECT_NEAR(fit.after.computeEfficiency, 0.72, 1e-3);
  EXPECT_LT(fit.rmsRelErrorAfter, 1e-6);
}

TEST(Calibration, RejectsBadInput) {
  const TargetDesc &t = builtinTarget("a100");
  FitResult fit;
  std::string error;
  EXPECT_FALSE(fitCalibration(t, {}, fit, error));
  EXPECT_EQ(error, "no measurements to fit");
  Measurement m;
  m.elem = ElemType::F16, m.shape = {1, 64, 64, 64};
  m.config = wgmmaConfig(), m.measuredUs = 10;
  EXPECT_FALSE(fitCalibration(t, {m}, fit, error));
  EXPECT_EQ(error, "measurement 1: config '128x128x64 t128 w4x1 tt4x32 v8 s4 "
                   "wgmma' is invalid for a100: target a100 (sm_80) has no "
                   "wgmma instruction");
}

TEST(Calibration, ParsesCsv) {
  std::vector<Measurement> ms;
  std::string error;
  ASSERT_TRUE(parseMeasurementsCsv(
      "# measured on a test machine\n"
      "op,dtype,b,m,n,k,config,measured_us\n"
      "matmul,f16,1,1000,768,3072,128x128x32 t128 w2x2 tt8x16 v8 s3 "
      "mma_sync_f16,41.5\n"
      "\n"
      "batch_matmul,f32,192,43,64,43,64x64x8 t64 w2x1 tt8x8 v4 s2 "
      "simt_fma,12\n",
      "m.csv", ms, error))
      << error;
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].shape, (GemmShape{1, 1000, 768, 3072}));
  EXPECT_EQ(ms[0].config, mmaConfig());
  EXPECT_EQ(ms[1].op, OpKind::BatchMatmul);
  EXPECT_DOUBLE_EQ(ms[1].measuredUs, 12);

  ASSERT_TRUE(parseMeasurementsCsv(
      "workload,config,measured_us\n"
      "conv2d_nhwc f32 N=1 H=8 W=8 C=4 F=8 R=3 S=3 stride=1 pad=1,"
      "64x64x8 t64 w2x1 tt8x8 v4 s2 simt_fma,3.5\n",
      "w.csv", ms, error))
      << error;
  EXPECT_EQ(ms[0].shape, (GemmShape{1, 64, 8, 36}));
}

TEST(Calibration, CsvErrorsNameFileLineAndColumn) {
  std::vector<Measurement> ms;
  std::string error;
  const std::string header = "op,dtype,b,m,n,k,config,measured_us\n";
  const std::string cfg = "128x128x32 t128 w2x2 tt8x16 v8 s3 mma_sync_f16";
  EXPECT_FALSE(
      parseMeasurementsCsv("op,m,n,k,measured_us\n", "m.csv", ms, error));
  EXPECT_EQ(error, "m.csv:1: config: missing column in header (give op,dtype,"
                   "b,m,n,k or a workload column)");
  EXPECT_FALSE(
      parseMeasurementsCsv(header + "matmul,f16,1,2,3\n", "m.csv", ms, error));
  EXPECT_EQ(error, "m.csv:2: row: expected 8 fields, got 5");
  EXPECT_FALSE(parseMeasurementsCsv(
      header + "matmul,i8,1,2,3,4," + cfg + ",1\n", "m.csv", ms, error));
  EXPECT_EQ(error, "m.csv:2: dtype: unknown element type 'i8'");
  EXPECT_FALSE(parseMeasurementsCsv(
      header + "matmul,f16,1,x,3,4," + cfg + ",1\n", "m.csv", ms, error));
  EXPECT_EQ(error, "m.csv:2: m: expected an integer, got 'x'");
  EXPECT_FALSE(parseMeasurementsCsv(
      header + "matmul,f16,1,2,3,4," + cfg + ",-1\n", "m.csv", ms, error));
  EXPECT_EQ(error, "m.csv:2: measured_us: expected a positive time in "
                   "microseconds, got '-1'");
  EXPECT_FALSE(parseMeasurementsCsv(header + "matmul,f16,1,2,3,4,bogus,1\n",
                                    "m.csv", ms, error));
  EXPECT_EQ(error, "m.csv:2: config: expected 'MxNxK tT wMxN ttMxN vV sS "
                   "INST', got 'bogus'");
  EXPECT_FALSE(parseMeasurementsCsv("", "m.csv", ms, error));
  EXPECT_EQ(error, "m.csv:1: header: missing header line");
}

TEST(Calibration, TargetFileSectionRoundTrips) {
  const TargetDesc &t = builtinTarget("h100");
  Calibration c{0.61, 0.77, 5.5, 0.25};
  TargetDatabase db = TargetDatabase::withBuiltins();
  std::string error;
  ASSERT_TRUE(db.addFromText(renderCalibrationSection(c, t), "fit.db", error))
      << error;
  EXPECT_EQ(db.lookup("h100")->calibration, c);
  EXPECT_EQ(db.lookup("h100")->computeUnits, 132);
}

} // namespace
