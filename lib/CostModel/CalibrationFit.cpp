//===- CalibrationFit.cpp - Least-squares calibration of the cost model ---===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/CalibrationFit.h"
#include "CostModel/CostModel.h"
#include "TextUtil.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace quilt {

namespace {

constexpr int kNumCoefficients = 4;
using Vector = std::array<double, kNumCoefficients>;
using Matrix = std::array<Vector, kNumCoefficients>;

const char *const kCoefficientNames[kNumCoefficients] = {
    "launch_overhead_us", "tile_overhead_us", "compute_efficiency",
    "memory_efficiency"};

/// Pulls the coefficients apart so they can be fitted linearly: the last two
/// enter the model as inverse efficiencies.
Vector toVector(const Calibration &c) {
  return {c.launchOverheadUs, c.tileOverheadUs, 1.0 / c.computeEfficiency,
          1.0 / c.memoryEfficiency};
}
Calibration fromVector(const Vector &v) {
  Calibration c;
  c.launchOverheadUs = v[0];
  c.tileOverheadUs = v[1];
  c.computeEfficiency = 1.0 / v[2];
  c.memoryEfficiency = 1.0 / v[3];
  return c;
}

/// The uncalibrated pieces of one prediction.
struct Features {
  double launches, rounds, chip, memory, exposed;
};

Features features(const Measurement &m, const TargetDesc &target) {
  // With unit efficiencies and a cost of 1 per launch and per tile, the
  // terms are the raw quantities the coefficients multiply.
  Calibration unit{1.0, 1.0, 1.0, 1.0};
  Prediction p = predict(m.shape, m.elem, m.config, target, unit);
  return {p[Term::LaunchUs], p[Term::TileOverheadUs],
          std::max(p[Term::ComputeUs], p[Term::OnChipUs]) + p[Term::PackUs],
          p[Term::MemoryUs], 1.0 - p[Term::Overlap]};
}

/// The regressors for fixed sides: the longer side counts fully, the
/// shorter by its exposed fraction.
Vector regressors(const Features &f, const Vector &theta) {
  bool chipLonger = theta[2] * f.chip >= theta[3] * f.memory;
  return {f.launches, f.rounds, f.chip * (chipLonger ? 1.0 : f.exposed),
          f.memory * (chipLonger ? f.exposed : 1.0)};
}

double predictWith(const Features &f, const Vector &theta) {
  Vector x = regressors(f, theta);
  double sum = 0;
  for (int j = 0; j < kNumCoefficients; ++j)
    sum += x[j] * theta[j];
  return sum;
}

/// Solves A x = b for the unknowns not in `fixedMask` (which keep x's
/// incoming value) by Gaussian elimination with partial pivoting. False
/// when the system is singular.
bool solve(Matrix a, Vector b, unsigned fixedMask, Vector &x) {
  // Move fixed unknowns to the right-hand side.
  std::array<int, kNumCoefficients> free{};
  int n = 0;
  for (int j = 0; j < kNumCoefficients; ++j)
    if (!(fixedMask & (1u << j)))
      free[n++] = j;
  for (int i = 0; i < kNumCoefficients; ++i)
    for (int j = 0; j < kNumCoefficients; ++j)
      if (fixedMask & (1u << j))
        b[i] -= a[i][j] * x[j];
  Matrix m{};
  Vector r{};
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      m[i][j] = a[free[i]][free[j]];
    r[i] = b[free[i]];
  }
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int row = col + 1; row < n; ++row)
      if (std::fabs(m[row][col]) > std::fabs(m[pivot][col]))
        pivot = row;
    if (std::fabs(m[pivot][col]) < 1e-300)
      return false;
    std::swap(m[pivot], m[col]);
    std::swap(r[pivot], r[col]);
    for (int row = col + 1; row < n; ++row) {
      double f = m[row][col] / m[col][col];
      for (int j = col; j < n; ++j)
        m[row][j] -= f * m[col][j];
      r[row] -= f * r[col];
    }
  }
  for (int i = n - 1; i >= 0; --i) {
    double sum = r[i];
    for (int j = i + 1; j < n; ++j)
      sum -= m[i][j] * r[j];
    r[i] = sum / m[i][i];
  }
  for (int i = 0; i < n; ++i)
    x[free[i]] = r[i];
  return true;
}

/// One weighted least-squares solve with the sides fixed by `theta`. A
/// small ridge toward `prior` keeps coefficients the data cannot determine
/// (e.g. memory efficiency when every measurement is compute-bound) at
/// their previous value instead of making the system singular. Coefficients
/// that come out out of range are pinned to the prior and the rest re-solved.
Vector leastSquares(const std::vector<Features> &fs,
                    const std::vector<double> &measured, const Vector &theta,
                    const Vector &prior, std::vector<std::string> &notes) {
  Matrix ata{};
  Vector atb{};
  for (size_t i = 0; i < fs.size(); ++i) {
    Vector x = regressors(fs[i], theta);
    double w = 1.0 / measured[i]; // relative error
    for (int r = 0; r < kNumCoefficients; ++r) {
      atb[r] += x[r] * w * w * measured[i];
      for (int c = 0; c < kNumCoefficients; ++c)
        ata[r][c] += x[r] * w * x[c] * w;
    }
  }
  for (int j = 0; j < kNumCoefficients; ++j) {
    double ridge = 1e-6 * std::max(ata[j][j], 1e-12);
    ata[j][j] += ridge;
    atb[j] += ridge * prior[j];
  }
  unsigned fixedMask = 0;
  Vector x = prior;
  for (int attempt = 0; attempt <= kNumCoefficients; ++attempt) {
    Vector trial = x;
    if (!solve(ata, atb, fixedMask, trial))
      return prior;
    unsigned bad = 0;
    // Overheads must not be negative; inverse efficiencies must be positive.
    for (int j = 0; j < kNumCoefficients; ++j)
      if (!(fixedMask & (1u << j)) &&
          (j < 2 ? trial[j] < 0 : trial[j] <= 1e-3 || !std::isfinite(trial[j])))
        bad |= 1u << j;
    if (!bad)
      return trial;
    for (int j = 0; j < kNumCoefficients; ++j)
      if (bad & (1u << j)) {
        x[j] = j < 2 ? 0.0 : prior[j];
        notes.push_back(std::string(kCoefficientNames[j]) +
                        (j < 2 ? " fitted negative: held at 0"
                               : " fitted out of range: held at its "
                                 "previous value"));
      }
    fixedMask |= bad;
  }
  return x;
}

void errors(const std::vector<Features> &fs, const std::vector<double> &y,
            const Vector &theta, double &rms, double &worst) {
  double sum = 0;
  worst = 0;
  for (size_t i = 0; i < fs.size(); ++i) {
    double rel = std::fabs(predictWith(fs[i], theta) - y[i]) / y[i];
    sum += rel * rel;
    worst = std::max(worst, rel);
  }
  rms = fs.empty() ? 0 : std::sqrt(sum / double(fs.size()));
}

} // namespace

bool fitCalibration(const TargetDesc &target,
                    const std::vector<Measurement> &ms, FitResult &result,
                    std::string &error) {
  if (ms.empty()) {
    error = "no measurements to fit";
    return false;
  }
  std::vector<Features> fs;
  std::vector<double> y;
  for (size_t i = 0; i < ms.size(); ++i) {
    const Measurement &m = ms[i];
    if (!(m.measuredUs > 0) || !std::isfinite(m.measuredUs)) {
      error = "measurement " + std::to_string(i + 1) +
              ": measured time must be positive";
      return false;
    }
    if (std::string why = checkForTarget(m.config, m.elem, target);
        !why.empty()) {
      error = "measurement " + std::to_string(i + 1) + ": config '" +
              m.config.str() + "' is invalid for " + target.name + ": " + why;
      return false;
    }
    if (std::string why = checkGemmShape(m.shape); !why.empty()) {
      error = "measurement " + std::to_string(i + 1) + ": " + why;
      return false;
    }
    fs.push_back(features(m, target));
    y.push_back(m.measuredUs);
  }

  FitResult r;
  r.before = target.calibration;
  r.measurements = int(ms.size());
  if (ms.size() < size_t(kNumCoefficients))
    r.notes.push_back("fewer measurements than coefficients: the fit leans "
                      "on the previous values");
  Vector prior = toVector(r.before);
  Vector theta = prior;
  errors(fs, y, theta, r.rmsRelErrorBefore, r.maxRelErrorBefore);
  // Alternate: sides from the current coefficients, then a linear solve.
  constexpr int kMaxIterations = 25;
  std::vector<std::string> pinned; // from the last solve only
  for (r.iterations = 1;; ++r.iterations) {
    pinned.clear();
    Vector next = leastSquares(fs, y, theta, prior, pinned);
    double change = 0;
    for (int j = 0; j < kNumCoefficients; ++j)
      change = std::max(change, std::fabs(next[j] - theta[j]) /
                                    std::max(std::fabs(theta[j]), 1e-9));
    theta = next;
    if (change < 1e-9 || r.iterations == kMaxIterations)
      break;
  }
  r.notes.insert(r.notes.end(), pinned.begin(), pinned.end());
  r.after = fromVector(theta);
  errors(fs, y, theta, r.rmsRelErrorAfter, r.maxRelErrorAfter);
  result = r;
  return true;
}

bool parseMeasurementsCsv(std::string_view text, std::string_view fileName,
                          std::vector<Measurement> &out, std::string &error) {
  std::vector<Measurement> result;
  std::vector<std::string> header;
  int lineNo = 0;
  auto fail = [&](std::string_view column, const std::string &what) {
    error = std::string(fileName) + ":" + std::to_string(lineNo) + ": " +
            std::string(column) + ": " + what;
    return false;
  };
  auto column = [&](std::string_view name) {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name)
        return int(i);
    return -1;
  };
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    ++lineNo;
    line = trim(line);
    if (line.empty() || line.front() == '#')
      continue;
    std::vector<std::string_view> fields = splitFields(line, ',');
    if (header.empty()) {
      for (std::string_view f : fields)
        header.emplace_back(f);
      bool byWorkload = column("workload") >= 0;
      std::vector<const char *> needed = {"config", "measured_us"};
      if (!byWorkload)
        needed.insert(needed.end(), {"op", "dtype", "m", "n", "k"});
      for (const char *name : needed)
        if (column(name) < 0)
          return fail(name, byWorkload
                                ? "missing column in header"
                                : "missing column in header (give op,dtype,"
                                  "b,m,n,k or a workload column)");
      continue;
    }
    if (fields.size() != header.size())
      return fail("row", "expected " + std::to_string(header.size()) +
                             " fields, got " + std::to_string(fields.size()));
    Measurement m;
    if (int w = column("workload"); w >= 0) {
      Workload workload;
      std::string why;
      if (!parseWorkload(fields[w], workload, why))
        return fail("workload", why);
      m.op = workload.op, m.elem = workload.elem, m.shape = workload.gemm;
    } else {
      std::optional<OpKind> op = parseOpKind(fields[column("op")]);
      if (!op)
        return fail("op",
                    "unknown op '" + std::string(fields[column("op")]) + "'");
      std::optional<ElemType> elem = parseElemType(fields[column("dtype")]);
      if (!elem)
        return fail("dtype", "unknown element type '" +
                                 std::string(fields[column("dtype")]) + "'");
      m.op = *op, m.elem = *elem;
      const std::pair<const char *, int64_t *> dims[] = {{"b", &m.shape.b},
                                                         {"m", &m.shape.m},
                                                         {"n", &m.shape.n},
                                                         {"k", &m.shape.k}};
      for (const auto &[name, slot] : dims) {
        int c = column(name);
        if (c < 0)
          continue; // b defaults to 1
        if (!parseInt64(fields[c], *slot))
          return fail(name, "expected an integer, got '" +
                                std::string(fields[c]) + "'");
        if (*slot < 0)
          return fail(name, "negative dimension");
      }
    }
    std::string why;
    std::optional<KernelConfig> cfg =
        parseKernelConfig(fields[column("config")], why);
    if (!cfg)
      return fail("config", why);
    m.config = *cfg;
    if (!parseDouble(fields[column("measured_us")], m.measuredUs) ||
        m.measuredUs <= 0)
      return fail("measured_us",
                  "expected a positive time in microseconds, got '" +
                      std::string(fields[column("measured_us")]) + "'");
    result.push_back(m);
  }
  if (header.empty()) {
    lineNo = std::max(lineNo, 1);
    return fail("header", "missing header line");
  }
  out = std::move(result);
  return true;
}

bool readMeasurementsCsv(const std::string &path, std::vector<Measurement> &out,
                         std::string &error) {
  std::string text;
  if (!readFile(path, text)) {
    error = path + ":0: file: cannot open for reading";
    return false;
  }
  return parseMeasurementsCsv(text, path, out, error);
}

std::string renderCalibrationSection(const Calibration &c,
                                     const TargetDesc &target) {
  return "[" + target.name + "]\ninherits = " + target.name +
         "\ncalib.compute_efficiency = " +
         formatNumber(c.computeEfficiency, 6) +
         "   # fitted by quiltc calibrate\ncalib.memory_efficiency = " +
         formatNumber(c.memoryEfficiency, 6) +
         "   # fitted by quiltc calibrate\ncalib.launch_overhead_us = " +
         formatNumber(c.launchOverheadUs, 6) +
         "   # fitted by quiltc calibrate\ncalib.tile_overhead_us = " +
         formatNumber(c.tileOverheadUs, 6) +
         "   # fitted by quiltc calibrate\n";
}

std::string renderFitText(const FitResult &fit, const TargetDesc &target) {
  auto row = [](const char *name, double before, double after) {
    char buf[128];
    std::snprintf(buf, sizeof(buf), "  %-20s %12.4f %12.4f\n", name, before,
                  after);
    return std::string(buf);
  };
  std::string out = "calibration of " + target.name + " from " +
                    std::to_string(fit.measurements) + " measurements (" +
                    std::to_string(fit.iterations) + " iterations)\n";
  char buf[160];
  std::snprintf(buf, sizeof(buf), "  %-20s %12s %12s\n", "coefficient",
                "before", "after");
  out += buf;
  out += row("compute_efficiency", fit.before.computeEfficiency,
             fit.after.computeEfficiency);
  out += row("memory_efficiency", fit.before.memoryEfficiency,
             fit.after.memoryEfficiency);
  out += row("launch_overhead_us", fit.before.launchOverheadUs,
             fit.after.launchOverheadUs);
  out += row("tile_overhead_us", fit.before.tileOverheadUs,
             fit.after.tileOverheadUs);
  std::snprintf(buf, sizeof(buf),
                "fit error (relative): rms %.1f%% -> %.1f%%, max %.1f%% -> "
                "%.1f%%\n",
                100 * fit.rmsRelErrorBefore, 100 * fit.rmsRelErrorAfter,
                100 * fit.maxRelErrorBefore, 100 * fit.maxRelErrorAfter);
  out += buf;
  for (const std::string &note : fit.notes)
    out += "note: " + note + "\n";
  out += "\n# Save as a target file and pass it with --target-file:\n";
  out += renderCalibrationSection(fit.after, target);
  return out;
}

void writeFitJson(JsonWriter &json, const FitResult &fit,
                  const TargetDesc &target) {
  auto coefficients = [&](const Calibration &c) {
    json.beginObject();
    json.field("compute_efficiency", c.computeEfficiency);
    json.field("memory_efficiency", c.memoryEfficiency);
    json.field("launch_overhead_us", c.launchOverheadUs);
    json.field("tile_overhead_us", c.tileOverheadUs);
    json.endObject();
  };
  json.beginObject();
  json.field("target", target.name);
  json.field("measurements", fit.measurements);
  json.field("iterations", fit.iterations);
  json.key("before");
  coefficients(fit.before);
  json.key("after");
  coefficients(fit.after);
  json.field("rms_rel_error_before", fit.rmsRelErrorBefore);
  json.field("rms_rel_error_after", fit.rmsRelErrorAfter);
  json.field("max_rel_error_before", fit.maxRelErrorBefore);
  json.field("max_rel_error_after", fit.maxRelErrorAfter);
  json.key("notes");
  json.beginArray();
  for (const std::string &note : fit.notes)
    json.value(note);
  json.endArray();
  json.field("target_file", renderCalibrationSection(fit.after, target));
  json.endObject();
}

} // namespace quilt
