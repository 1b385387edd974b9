//===- CalibrationFit.h - Fitting coefficients from measurements ----------===//
//
// Part of the Quilt project. Given a few measured run times on a target, fit
// the four coefficients of Calibration by linear least squares over the
// model's terms:
//
//   measured ~ launch_us * 1 + tile_overhead_us * rounds
//            + (1 / compute_efficiency) * chip' + (1 / memory_efficiency) *
//            memory'
//
// where chip' and memory' are the uncalibrated on-chip and DRAM times, the
// shorter one weighted by its exposed (non-overlapped) fraction. Which side
// is the longer depends on the coefficients, so the fit alternates: fix the
// sides with the current coefficients, solve the 4x4 normal equations
// (relative-error weighting), repeat until the sides stop changing.
//
// Measurements come from a CSV file (docs/cost-model.md, "Calibration"):
//
//   op,dtype,b,m,n,k,config,measured_us
//   matmul,f16,1,1000,768,3072,128x128x64 t128 w4x1 tt4x32 v8 s4 wgmma,21.5
//
// or with a single `workload` column ("matmul f16 M=1000 N=768 K=3072")
// instead of op..k. `#` comments and blank lines are skipped.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_CALIBRATIONFIT_H
#define QUILT_COSTMODEL_CALIBRATIONFIT_H

#include "CostModel/Calibration.h"
#include "CostModel/Json.h"
#include "CostModel/KernelConfig.h"
#include "CostModel/Target.h"
#include "CostModel/Workload.h"

#include <string>
#include <string_view>
#include <vector>

namespace quilt {

struct Measurement {
  OpKind op = OpKind::Matmul;
  ElemType elem = ElemType::F32;
  GemmShape shape;
  KernelConfig config;
  double measuredUs = 0;
};

/// Errors read "<file>:<line>: <column>: <what is wrong>".
bool parseMeasurementsCsv(std::string_view text, std::string_view fileName,
                          std::vector<Measurement> &out, std::string &error);
bool readMeasurementsCsv(const std::string &path, std::vector<Measurement> &out,
                         std::string &error);

struct FitResult {
  Calibration before, after;
  int measurements = 0;
  int iterations = 0;
  /// Relative error |predicted - measured| / measured, before and after.
  double rmsRelErrorBefore = 0, rmsRelErrorAfter = 0;
  double maxRelErrorBefore = 0, maxRelErrorAfter = 0;
  /// Coefficients held at their previous value and why.
  std::vector<std::string> notes;
};

/// Fits starting from target.calibration. Fails on an empty measurement set,
/// a non-positive measurement, or a configuration invalid for the target.
bool fitCalibration(const TargetDesc &target,
                    const std::vector<Measurement> &measurements,
                    FitResult &result, std::string &error);

/// Coefficients before/after, the fit error, and a target-file section that
/// applies the result (save it and pass it with --target-file).
std::string renderFitText(const FitResult &fit, const TargetDesc &target);
void writeFitJson(JsonWriter &json, const FitResult &fit,
                  const TargetDesc &target);
/// Just the target-file section.
std::string renderCalibrationSection(const Calibration &calibration,
                                     const TargetDesc &target);

} // namespace quilt

#endif // QUILT_COSTMODEL_CALIBRATIONFIT_H
