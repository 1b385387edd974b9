//===- TuningDatabase.cpp - Measured kernel choices, kept in a file -------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/TuningDatabase.h"
#include "CostModel/CostModel.h"
#include "TextUtil.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace quilt {

namespace {

constexpr std::string_view kMagic = "quilt-tuning-db";
constexpr const char *kDimNames[4] = {"b", "m", "n", "k"};

/// "N" or "LO..HI".
bool parseRange(std::string_view text, int64_t &lower, int64_t &upper) {
  size_t dots = text.find("..");
  if (dots == std::string_view::npos) {
    if (!parseInt64(text, lower))
      return false;
    upper = lower;
    return true;
  }
  return parseInt64(trim(text.substr(0, dots)), lower) &&
         parseInt64(trim(text.substr(dots + 2)), upper);
}

bool validEpilogueKey(std::string_view key) {
  if (key.empty() || key.front() == '+' || key.back() == '+')
    return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '+';
  });
}

class Parser {
public:
  Parser(std::string_view fileName, const TargetDatabase &targets)
      : fileName(fileName), targets(targets) {}

  bool parse(std::string_view text, TuningDatabase &db, std::string &error) {
    db = TuningDatabase();
    db.path = std::string(fileName);
    std::string_view line;
    int lineNo = 0;
    if (!nextContentLine(text, line, lineNo))
      return fail(error, lineNo, "version",
                  "empty file; expected '" + std::string(kMagic) + " " +
                      std::to_string(kTuningDatabaseVersion) + "'");
    std::vector<std::string_view> words = splitWords(line);
    int64_t version = 0;
    if (words.size() != 2 || words[0] != kMagic ||
        !parseInt64(words[1], version))
      return fail(error, lineNo, "version",
                  "expected '" + std::string(kMagic) + " " +
                      std::to_string(kTuningDatabaseVersion) +
                      "' as the first line, got '" + std::string(line) + "'");
    if (version != kTuningDatabaseVersion)
      return fail(error, lineNo, "version",
                  "the file is version " + std::to_string(version) +
                      "; this build of Quilt reads version " +
                      std::to_string(kTuningDatabaseVersion) +
                      " (tune again to rewrite it)");

    TuningEntry *entry = nullptr;
    std::set<std::string> seen;
    while (nextContentLine(text, line, lineNo)) {
      if (line.front() == '[') {
        if (entry && !finishEntry(*entry, db, seen, error))
          return false;
        if (!startEntry(line, lineNo, db, error))
          return false;
        entry = &db.entries.back();
        seen.clear();
        continue;
      }
      size_t eq = line.find('=');
      if (eq == std::string_view::npos)
        return fail(error, lineNo, "",
                    "expected 'key = value' or '[op type]', got '" +
                        std::string(line) + "'");
      std::string key(trim(line.substr(0, eq)));
      std::string_view value = trim(line.substr(eq + 1));
      if (!seen.insert(key).second)
        return fail(error, lineNo, key, "given twice");
      if (!(entry ? entryField(*entry, key, value, lineNo, error)
                  : headerField(db, key, value, lineNo, error)))
        return false;
    }
    if (entry && !finishEntry(*entry, db, seen, error))
      return false;
    if (db.target.empty())
      return fail(error, lineNo, "target", "missing: the file names no target");
    return true;
  }

private:
  bool fail(std::string &error, int lineNo, const std::string &field,
            const std::string &message) {
    error = std::string(fileName) + ":" + std::to_string(lineNo) + ": ";
    if (!field.empty())
      error += "field '" + field + "': ";
    error += message;
    return false;
  }

  bool headerField(TuningDatabase &db, const std::string &key,
                   std::string_view value, int lineNo, std::string &error) {
    if (key == "target") {
      if (!targets.lookup(value))
        return fail(error, lineNo, key,
                    "unknown target '" + std::string(value) +
                        "' (see quiltc targets)");
      db.target = std::string(value);
      db.targetLine = lineNo;
      return true;
    }
    if (key == "target_description") {
      db.targetDescription = std::string(value);
      db.descriptionLine = lineNo;
      return true;
    }
    if (key == "threads") {
      if (!parseInt64(value, db.threads) || db.threads < 1)
        return fail(error, lineNo, key,
                    "expected a positive thread count, got '" +
                        std::string(value) + "'");
      db.threadsLine = lineNo;
      return true;
    }
    return fail(error, lineNo, key,
                "unknown field before the first entry (expected target, "
                "target_description or threads)");
  }

  bool startEntry(std::string_view line, int lineNo, TuningDatabase &db,
                  std::string &error) {
    if (line.back() != ']')
      return fail(error, lineNo, "",
                  "expected '[op type]', got '" + std::string(line) + "'");
    if (db.target.empty())
      return fail(error, lineNo, "target",
                  "missing before the first entry: the file names no target");
    std::vector<std::string_view> words =
        splitWords(line.substr(1, line.size() - 2));
    if (words.size() != 2)
      return fail(error, lineNo, "",
                  "expected '[op type]', e.g. '[matmul f32]', got '" +
                      std::string(line) + "'");
    TuningEntry entry;
    entry.line = lineNo;
    std::optional<OpKind> op = parseOpKind(words[0]);
    if (!op)
      return fail(error, lineNo, "op",
                  "unknown op '" + std::string(words[0]) +
                      "' (expected matmul, batch_matmul, conv2d_nhwc or "
                      "conv2d_nchw)");
    std::optional<ElemType> elem = parseElemType(words[1]);
    if (!elem)
      return fail(error, lineNo, "type",
                  "unknown element type '" + std::string(words[1]) +
                      "' (expected f32, f16, bf16 or f64)");
    entry.op = *op;
    entry.elem = *elem;
    // The default region is no shape at all until m, n and k are given.
    db.entries.push_back(entry);
    return true;
  }

  bool entryField(TuningEntry &entry, const std::string &key,
                  std::string_view value, int lineNo, std::string &error) {
    for (int d = 0; d < 4; ++d) {
      if (key != kDimNames[d])
        continue;
      int64_t lower = 0, upper = 0;
      if (!parseRange(value, lower, upper))
        return fail(error, lineNo, key,
                    "expected a size or a range 'LO..HI', got '" +
                        std::string(value) + "'");
      if (lower < 0 || upper < lower)
        return fail(error, lineNo, key,
                    "expected 0 <= LO <= HI, got '" + std::string(value) + "'");
      entry.region.lower[d] = lower;
      entry.region.upper[d] = upper;
      return true;
    }
    if (key == "epilogue") {
      if (!validEpilogueKey(value))
        return fail(error, lineNo, key,
                    "expected any, none, fused or steps joined by '+' "
                    "(bias_add+gelu), got '" +
                        std::string(value) + "'");
      entry.epilogue = std::string(value);
      return true;
    }
    if (key == "config" || key == "model_config") {
      std::string configError;
      std::optional<KernelConfig> config =
          parseKernelConfig(value, configError);
      if (!config)
        return fail(error, lineNo, key, configError);
      if (key == "config") {
        entry.config = *config;
        configLine = lineNo;
      } else {
        entry.modelConfig = *config;
      }
      return true;
    }
    if (key == "measured_us" || key == "model_measured_us") {
      double us = 0;
      if (!parseDouble(value, us) || us < 0)
        return fail(error, lineNo, key,
                    "expected a time in microseconds, got '" +
                        std::string(value) + "'");
      (key == "measured_us" ? entry.measuredUs : entry.modelMeasuredUs) = us;
      return true;
    }
    return fail(error, lineNo, key,
                "unknown field (expected epilogue, b, m, n, k, config, "
                "measured_us, model_config or model_measured_us)");
  }

  bool finishEntry(TuningEntry &entry, const TuningDatabase &db,
                   const std::set<std::string> &seen, std::string &error) {
    for (const char *required : {"m", "n", "k", "config"})
      if (!seen.count(required))
        return fail(error, entry.line, required,
                    "missing in this entry (every entry needs m, n, k and "
                    "config)");
    const TargetDesc *target = targets.lookup(db.target);
    std::string invalid = checkForTarget(entry.config, entry.elem, *target);
    if (!invalid.empty())
      return fail(error, configLine, "config",
                  "not a valid " + std::string(stringify(entry.elem)) +
                      " kernel for " + db.target + ": " + invalid);
    return true;
  }

  std::string_view fileName;
  const TargetDatabase &targets;
  int configLine = 0;
};

std::string formatRange(int64_t lower, int64_t upper) {
  return lower == upper ? std::to_string(lower)
                        : std::to_string(lower) + ".." + std::to_string(upper);
}

} // namespace

ShapeRegion ShapeRegion::exactly(const GemmShape &s) {
  ShapeRegion region;
  region.lower = region.upper = {s.b, s.m, s.n, s.k};
  return region;
}

bool ShapeRegion::contains(const GemmShape &s) const {
  const int64_t dims[4] = {s.b, s.m, s.n, s.k};
  for (int d = 0; d < 4; ++d)
    if (dims[d] < lower[d] || dims[d] > upper[d])
      return false;
  return true;
}

std::string ShapeRegion::check() const {
  for (int d = 0; d < 4; ++d)
    if (lower[d] < 0 || upper[d] < lower[d])
      return std::string("dimension ") + kDimNames[d] + " has bounds " +
             std::to_string(lower[d]) + ".." + std::to_string(upper[d]) +
             "; expected 0 <= lower <= upper";
  return "";
}

std::string formatShapeRegion(const ShapeRegion &region) {
  std::string out;
  for (int d = 0; d < 4; ++d) {
    if (d)
      out += ' ';
    out += std::string(kDimNames[d]) + "=" +
           formatRange(region.lower[d], region.upper[d]);
  }
  return out;
}

bool parseShapeRegion(const std::vector<std::string_view> &words,
                      ShapeRegion &region, std::string &error) {
  if (words.size() != 4) {
    error = "expected b=, m=, n= and k=";
    return false;
  }
  for (int d = 0; d < 4; ++d) {
    std::string prefix = std::string(kDimNames[d]) + "=";
    if (!startsWith(words[d], prefix) ||
        !parseRange(words[d].substr(prefix.size()), region.lower[d],
                    region.upper[d])) {
      error = "expected " + prefix + "N or " + prefix + "LO..HI, got '" +
              std::string(words[d]) + "'";
      return false;
    }
  }
  error = region.check();
  return error.empty();
}

bool TuningDatabase::parse(std::string_view text, std::string_view fileName,
                           const TargetDatabase &targets, TuningDatabase &out,
                           std::string &error) {
  return Parser(fileName, targets).parse(text, out, error);
}

bool TuningDatabase::load(const std::string &path,
                          const TargetDatabase &targets, TuningDatabase &out,
                          std::string &error) {
  std::string text;
  if (!readFile(path, text)) {
    error = path + ":0: cannot open the tuning database for reading";
    return false;
  }
  return parse(text, path, targets, out, error);
}

std::string TuningDatabase::render() const {
  std::ostringstream os;
  os << kMagic << " " << kTuningDatabaseVersion << "\n"
     << "target = " << target << "\n";
  if (!targetDescription.empty())
    os << "target_description = " << targetDescription << "\n";
  os << "threads = " << threads << "\n";
  for (const TuningEntry &e : entries) {
    os << "\n[" << stringify(e.op) << " " << stringify(e.elem) << "]\n"
       << "epilogue = " << e.epilogue << "\n";
    for (int d = 0; d < 4; ++d)
      os << kDimNames[d] << " = "
         << formatRange(e.region.lower[d], e.region.upper[d]) << "\n";
    os << "config = " << e.config.str() << "\n";
    if (e.measuredUs)
      os << "measured_us = " << formatNumber(*e.measuredUs, 6) << "\n";
    if (e.modelConfig)
      os << "model_config = " << e.modelConfig->str() << "\n";
    if (e.modelMeasuredUs)
      os << "model_measured_us = " << formatNumber(*e.modelMeasuredUs, 6)
         << "\n";
  }
  return os.str();
}

std::string TuningDatabase::where(int line) const {
  return path + ":" + std::to_string(line);
}

bool TuningDatabase::checkApplies(const TargetDesc &compileTarget,
                                  int64_t compileThreads,
                                  std::string &error) const {
  if (compileTarget.name != target) {
    error = where(targetLine) +
            ": field 'target': the database was tuned "
            "for " +
            target + ", this compilation targets " + compileTarget.name;
    return false;
  }
  if (!targetDescription.empty() &&
      compileTarget.description != targetDescription) {
    error = where(descriptionLine) +
            ": field 'target_description': the "
            "database was tuned on '" +
            targetDescription + "', this compilation's " + target + " is '" +
            compileTarget.description + "'";
    return false;
  }
  if (!compileTarget.isGpu() && compileThreads != threads) {
    error = where(threadsLine ? threadsLine : targetLine) +
            ": field 'threads': the database was tuned for " +
            std::to_string(threads) + " thread(s), this compilation runs " +
            std::to_string(compileThreads);
    return false;
  }
  return true;
}

std::vector<const TuningEntry *>
TuningDatabase::matching(OpKind op, ElemType elem,
                         std::string_view epilogue) const {
  std::vector<const TuningEntry *> result;
  for (const TuningEntry &e : entries)
    if (e.op == op && e.elem == elem &&
        (e.epilogue == kAnyEpilogue || e.epilogue == epilogue))
      result.push_back(&e);
  return result;
}

void TuningDatabase::put(const TuningEntry &entry) {
  for (TuningEntry &e : entries)
    if (e.op == entry.op && e.elem == entry.elem &&
        e.epilogue == entry.epilogue && e.region == entry.region) {
      int line = e.line;
      e = entry;
      e.line = line;
      return;
    }
  entries.push_back(entry);
}

bool addTunedCandidates(const TuningDatabase &db, OpKind op, ElemType elem,
                        std::string_view epilogue,
                        std::vector<KernelConfig> &candidates,
                        std::vector<TunedRegion> &regions, std::string &error) {
  for (const TuningEntry *e : db.matching(op, elem, epilogue)) {
    auto found = std::find(candidates.begin(), candidates.end(), e->config);
    int32_t index = int32_t(found - candidates.begin());
    if (found == candidates.end()) {
      if (candidates.size() >= size_t(kMaxPreparedCandidates)) {
        error = db.where(e->line) +
                ": field 'config': a dispatch holds at "
                "most " +
                std::to_string(kMaxPreparedCandidates) +
                " candidates; this entry's would be one more (lower "
                "--max-candidates or merge entries)";
        return false;
      }
      candidates.push_back(e->config);
    }
    if (regions.size() >= size_t(kMaxTunedRegions)) {
      error = db.where(e->line) + ": a dispatch holds at most " +
              std::to_string(kMaxTunedRegions) +
              " tuned regions; this entry would be one more";
      return false;
    }
    regions.push_back(TunedRegion{e->region, index, db.where(e->line)});
  }
  return true;
}

} // namespace quilt
