//===- TargetDatabase.cpp - Parsing the target database format ------------===//
//
// Part of the Quilt project. The format is documented in docs/targets.md:
//
//   [name]                 starts a target
//   key = value  # note    sets a field; sizes take KiB/MiB/GiB
//
// Parsing is all-or-nothing: any error leaves the database unchanged and is
// reported as "<file>:<line>: <field>: <what is wrong>".
//
//===----------------------------------------------------------------------===//

#include "CostModel/TargetDatabase.h"
#include "CostModel/SelectionSpec.h"
#include "TextUtil.h"

#include <cstdio>

namespace quilt {

/// The compute capability in an NVIDIA chip name ("sm_90a" -> 90); 0 for
/// any other name.
static int nvidiaSmVersion(const std::string &chip) {
  if (chip.rfind("sm_", 0) != 0)
    return 0;
  int version = 0;
  for (size_t i = 3; i < chip.size() && chip[i] >= '0' && chip[i] <= '9'; ++i)
    version = version * 10 + (chip[i] - '0');
  return version;
}

bool TargetDesc::hasAsyncCopies() const {
  return vendor == Vendor::NVIDIA && nvidiaSmVersion(chip) >= 80;
}

double TargetDesc::peak(InstKind k, ElemType elem) const {
  if (elem != ElemType::F64)
    return peak(k);
  if (k == InstKind::SimtFma)
    return f64PeakTflops;
  if (k == InstKind::CpuFma)
    return peak(k) * double(cpuLanes(elem)) / double(cpuLanes());
  return 0; // No matrix instruction of the targets takes f64.
}

namespace {

// The generated array holding data/targets.db (see CMakeLists.txt).
#include "TargetsDb.inc"

enum class FieldKind { String, Vendor, Int, Size, Double, Calib };

/// Which vendors must give a field explicitly.
enum Requirement : uint8_t { kOptional = 0, kGpu = 1, kCpu = 2, kAll = 3 };

struct FieldSpec {
  const char *key;
  FieldKind kind;
  uint8_t required;
  std::string TargetDesc::*stringField = nullptr;
  int64_t TargetDesc::*intField = nullptr;
  double TargetDesc::*doubleField = nullptr;
  double Calibration::*calibField = nullptr;
  /// Smallest accepted value for numbers (inclusive).
  double minValue = 1;
  /// Largest accepted value (inclusive): far above any hardware's, and low
  /// enough that the model's products of counts and sizes stay exact in
  /// 64 bits (a count of 2^63 made occupancy arithmetic wrap).
  double maxValue = kMaxCount;

  static constexpr double kMaxCount = double(int64_t(1) << 20);
  static constexpr double kMaxBytes = double(int64_t(1) << 40);
  static constexpr double kMaxReal = 1e9;
};

FieldSpec str(const char *key, uint8_t req, std::string TargetDesc::*f) {
  return {key, FieldKind::String, req, f, nullptr, nullptr, nullptr, 0, 0};
}
FieldSpec integer(const char *key, uint8_t req, int64_t TargetDesc::*f,
                  FieldKind kind = FieldKind::Int, double minValue = 1) {
  return {key,     kind,     req,      nullptr, f,
          nullptr, nullptr,  minValue,
          kind == FieldKind::Size ? FieldSpec::kMaxBytes
                                  : FieldSpec::kMaxCount};
}
FieldSpec real(const char *key, uint8_t req, double TargetDesc::*f) {
  return {key,     FieldKind::Double, req,  nullptr,
          nullptr, f,                 nullptr, 1e-9,
          FieldSpec::kMaxReal};
}
FieldSpec calib(const char *key, double Calibration::*f, double minValue) {
  return {key,     FieldKind::Calib, kOptional, nullptr,         nullptr,
          nullptr, f,                minValue,  FieldSpec::kMaxReal};
}

const std::vector<FieldSpec> &fieldSpecs() {
  static const std::vector<FieldSpec> specs = {
      {"vendor", FieldKind::Vendor, kAll},
      str("chip", kAll, &TargetDesc::chip),
      str("description", kAll, &TargetDesc::description),
      integer("compute_units", kAll, &TargetDesc::computeUnits),
      integer("warp_size", kGpu, &TargetDesc::warpSize),
      integer("sub_partitions", kGpu, &TargetDesc::subPartitions),
      integer("max_threads_per_block", kGpu, &TargetDesc::maxThreadsPerBlock),
      integer("max_threads_per_cu", kGpu, &TargetDesc::maxThreadsPerCU),
      integer("max_blocks_per_cu", kGpu, &TargetDesc::maxBlocksPerCU),
      integer("registers_per_block", kGpu, &TargetDesc::registersPerBlock),
      integer("registers_per_cu", kGpu, &TargetDesc::registersPerCU),
      integer("max_registers_per_thread", kAll,
              &TargetDesc::maxRegistersPerThread),
      integer("shared_mem_per_block", kGpu, &TargetDesc::sharedMemPerBlock,
              FieldKind::Size),
      integer("shared_mem_per_cu", kGpu, &TargetDesc::sharedMemPerCU,
              FieldKind::Size),
      integer("l1_bytes", kAll, &TargetDesc::l1Bytes, FieldKind::Size),
      integer("l2_bytes", kAll, &TargetDesc::l2Bytes, FieldKind::Size),
      integer("l3_bytes", kOptional, &TargetDesc::l3Bytes, FieldKind::Size, 0),
      real("mem_bandwidth_gbs", kAll, &TargetDesc::memBandwidthGBs),
      real("clock_ghz", kAll, &TargetDesc::clockGHz),
      real("onchip_bytes_per_clock", kAll, &TargetDesc::onChipBytesPerClock),
      real("f64_tflops", kOptional, &TargetDesc::f64PeakTflops),
      real("l2_bytes_per_clock", kOptional, &TargetDesc::l2BytesPerClock),
      integer("vector_bits", kCpu, &TargetDesc::vectorBits),
      integer("fma_units_per_core", kCpu, &TargetDesc::fmaUnitsPerCore),
      calib("calib.compute_efficiency", &Calibration::computeEfficiency, 1e-3),
      calib("calib.memory_efficiency", &Calibration::memoryEfficiency, 1e-3),
      calib("calib.launch_overhead_us", &Calibration::launchOverheadUs, 0),
      calib("calib.tile_overhead_us", &Calibration::tileOverheadUs, 0),
  };
  return specs;
}

constexpr std::string_view kPeakPrefix = "peak.";

/// One section while it is being read.
struct Draft {
  TargetDesc desc;
  int line = 0;
  /// Line that set each field of fieldSpecs(), 0 when unset; -1 = inherited.
  std::vector<int> fieldLine;
  std::array<int, kNumInstKinds> peakLine{};
  bool anyKey = false;
};

class Parser {
public:
  Parser(std::string_view fileName, const TargetDatabase &existing)
      : fileName(fileName), existing(existing) {}

  bool parse(std::string_view text, std::vector<TargetDesc> &out,
             std::string &error);

private:
  bool fail(int line, std::string_view field, const std::string &message) {
    error = std::string(fileName) + ":" + std::to_string(line) + ": " +
            std::string(field) + ": " + message;
    return false;
  }
  bool startSection(std::string_view header, int line);
  bool setKey(std::string_view key, std::string_view value, int line);
  bool setPeak(std::string_view inst, std::string_view value, int line);
  bool inherit(std::string_view base, int line);
  bool finishSection();
  const TargetDesc *findTarget(std::string_view name) const;

  std::string_view fileName;
  const TargetDatabase &existing;
  std::vector<TargetDesc> parsed;
  std::vector<int> parsedLines;
  std::optional<Draft> draft;
  std::string error;
};

bool isSectionNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

/// "227 KiB" -> 232448. Plain integers are bytes.
bool parseSize(std::string_view value, int64_t &out) {
  std::vector<std::string_view> words = splitWords(value);
  if (words.empty() || words.size() > 2 || !parseInt64(words[0], out))
    return false;
  if (words.size() == 1)
    return true;
  int64_t scale = words[1] == "KiB"   ? 1024
                  : words[1] == "MiB" ? 1024 * 1024
                  : words[1] == "GiB" ? int64_t(1024) * 1024 * 1024
                                      : 0;
  if (scale == 0 || out > INT64_MAX / scale)
    return false;
  out *= scale;
  return true;
}

bool Parser::parse(std::string_view text, std::vector<TargetDesc> &out,
                   std::string &errorOut) {
  int lineNo = 0;
  std::string_view line;
  while (nextContentLine(text, line, lineNo)) {
    bool ok;
    if (line.front() == '[') {
      ok = startSection(line, lineNo);
    } else {
      size_t eq = line.find('=');
      if (eq == std::string_view::npos) {
        ok = fail(lineNo, trim(line), "expected 'key = value'");
      } else {
        std::string_view key = trim(line.substr(0, eq));
        std::string_view value = trim(line.substr(eq + 1));
        if (key.empty())
          ok = fail(lineNo, "syntax", "missing key before '='");
        else if (!draft)
          ok = fail(lineNo, key, "key outside of a [target] section");
        else
          ok = setKey(key, value, lineNo);
      }
    }
    if (!ok) {
      errorOut = error;
      return false;
    }
  }
  if (draft && !finishSection()) {
    errorOut = error;
    return false;
  }
  out = std::move(parsed);
  return true;
}

bool Parser::startSection(std::string_view header, int line) {
  if (draft && !finishSection())
    return false;
  if (header.back() != ']')
    return fail(line, "section",
                "expected ']' at the end of '" + std::string(header) + "'");
  std::string_view name = trim(header.substr(1, header.size() - 2));
  if (name.empty())
    return fail(line, "section", "empty target name");
  for (char c : name)
    if (!isSectionNameChar(c))
      return fail(line, "section",
                  "invalid character '" + std::string(1, c) +
                      "' in target name '" + std::string(name) +
                      "' (use letters, digits, '-', '_', '.')");
  for (size_t i = 0; i < parsed.size(); ++i)
    if (parsed[i].name == name)
      return fail(line, "section",
                  "duplicate target [" + std::string(name) +
                      "] (first defined at line " +
                      std::to_string(parsedLines[i]) + ")");
  draft.emplace();
  draft->desc.name = std::string(name);
  draft->line = line;
  draft->fieldLine.assign(fieldSpecs().size(), 0);
  return true;
}

const TargetDesc *Parser::findTarget(std::string_view name) const {
  for (const TargetDesc &t : parsed)
    if (t.name == name)
      return &t;
  return existing.lookup(name);
}

bool Parser::inherit(std::string_view base, int line) {
  if (draft->anyKey)
    return fail(line, "inherits", "must be the first key of a section");
  const TargetDesc *parent = findTarget(base);
  if (!parent)
    return fail(line, "inherits", "unknown target '" + std::string(base) + "'");
  std::string name = draft->desc.name;
  draft->desc = *parent;
  draft->desc.name = name;
  for (int &l : draft->fieldLine)
    l = -1;
  for (int i = 0; i < kNumInstKinds; ++i)
    draft->peakLine[i] = parent->peakTflops[i] > 0 ? -1 : 0;
  return true;
}

bool Parser::setKey(std::string_view key, std::string_view value, int line) {
  if (key == "inherits") {
    bool ok = inherit(value, line);
    draft->anyKey = true;
    return ok;
  }
  draft->anyKey = true;
  if (startsWith(key, kPeakPrefix))
    return setPeak(key.substr(kPeakPrefix.size()), value, line);
  const std::vector<FieldSpec> &specs = fieldSpecs();
  size_t index = 0;
  while (index < specs.size() && specs[index].key != key)
    ++index;
  if (index == specs.size())
    return fail(line, key, "unknown key");
  if (draft->fieldLine[index] > 0)
    return fail(line, key,
                "duplicate key (first set at line " +
                    std::to_string(draft->fieldLine[index]) + ")");
  if (value.empty())
    return fail(line, key, "missing value");
  const FieldSpec &spec = specs[index];
  TargetDesc &desc = draft->desc;
  std::string shown = "'" + std::string(value) + "'";
  switch (spec.kind) {
  case FieldKind::String:
    desc.*spec.stringField = std::string(value);
    break;
  case FieldKind::Vendor: {
    std::optional<Vendor> v = parseVendor(value);
    if (!v)
      return fail(line, key,
                  "unknown vendor " + shown + " (expected nvidia, amd or cpu)");
    desc.vendor = *v;
    break;
  }
  case FieldKind::Int:
  case FieldKind::Size: {
    int64_t v;
    bool ok = spec.kind == FieldKind::Size ? parseSize(value, v)
                                           : parseInt64(value, v);
    if (!ok)
      return fail(line, key,
                  spec.kind == FieldKind::Size
                      ? "expected a byte count (optionally KiB/MiB/GiB), got " +
                            shown
                      : "expected an integer, got " + shown);
    if (v < spec.minValue)
      return fail(line, key,
                  "must be at least " + formatNumber(spec.minValue) + ", got " +
                      shown);
    if (v > spec.maxValue)
      return fail(line, key,
                  "must be at most " +
                      std::to_string(static_cast<int64_t>(spec.maxValue)) +
                      ", got " + shown);
    desc.*spec.intField = v;
    break;
  }
  case FieldKind::Double:
  case FieldKind::Calib: {
    double v;
    if (!parseDouble(value, v))
      return fail(line, key, "expected a number, got " + shown);
    if (v < spec.minValue)
      return fail(line, key,
                  spec.minValue > 0 ? "must be positive, got " + shown
                                    : "must not be negative, got " + shown);
    if (v > spec.maxValue)
      return fail(line, key,
                  "must be at most " + formatNumber(spec.maxValue) + ", got " +
                      shown);
    if (spec.kind == FieldKind::Calib)
      desc.calibration.*spec.calibField = v;
    else
      desc.*spec.doubleField = v;
    break;
  }
  }
  draft->fieldLine[index] = line;
  return true;
}

bool Parser::setPeak(std::string_view instName, std::string_view value,
                     int line) {
  std::string key = std::string(kPeakPrefix) + std::string(instName);
  std::optional<InstKind> inst = parseInstKind(instName);
  if (!inst)
    return fail(line, key,
                "unknown instruction '" + std::string(instName) + "'");
  int i = static_cast<int>(*inst);
  if (draft->peakLine[i] > 0)
    return fail(line, key,
                "duplicate key (first set at line " +
                    std::to_string(draft->peakLine[i]) + ")");
  double v;
  if (!parseDouble(value, v))
    return fail(line, key,
                "expected TFLOP/s, got '" + std::string(value) + "'");
  if (v < 0)
    return fail(line, key,
                "must not be negative, got '" + std::string(value) + "'");
  draft->desc.peakTflops[i] = v;
  draft->peakLine[i] = line;
  return true;
}

bool Parser::finishSection() {
  Draft d = std::move(*draft);
  draft.reset();
  TargetDesc &desc = d.desc;
  const std::vector<FieldSpec> &specs = fieldSpecs();
  // The vendor decides which fields are required, so look at it first.
  if (d.fieldLine[0] == 0)
    return fail(d.line, "vendor",
                "missing required field in [" + desc.name + "]");
  uint8_t mask = desc.vendor == Vendor::CPU ? kCpu : kGpu;
  for (size_t i = 0; i < specs.size(); ++i)
    if ((specs[i].required & mask) && d.fieldLine[i] == 0)
      return fail(d.line, specs[i].key,
                  "missing required field in [" + desc.name + "]");

  bool anyPeak = false;
  for (int i = 0; i < kNumInstKinds; ++i) {
    if (desc.peakTflops[i] <= 0)
      continue;
    anyPeak = true;
    InstKind inst = static_cast<InstKind>(i);
    bool instIsGpu = inst != InstKind::CpuFma;
    bool vendorOk = inst == InstKind::SimtFma ? desc.isGpu()
                    : instIsGpu               ? instVendor(inst) == desc.vendor
                                              : !desc.isGpu();
    if (!vendorOk)
      return fail(d.peakLine[i] > 0 ? d.peakLine[i] : d.line,
                  std::string(kPeakPrefix) + std::string(stringify(inst)),
                  std::string(stringify(inst)) + " is not available on " +
                      std::string(stringify(desc.vendor)) + " targets");
  }
  if (!anyPeak)
    return fail(d.line, "peak",
                "no instruction has a positive peak in [" + desc.name +
                    "] (set at least one peak.<instruction>)");

  if (desc.isGpu()) {
    // Quilt's GPU kernels are written for these widths (warp-level matrix
    // instructions, lane arithmetic): NVIDIA warps of 32 lanes, AMD waves
    // of 64 (CDNA) or 32 (RDNA).
    bool amd = desc.vendor == Vendor::AMD;
    if (desc.warpSize != 32 && !(amd && desc.warpSize == 64))
      return fail(d.line, "warp_size",
                  "must be " + std::string(amd ? "32 or 64" : "32") +
                      " for an " + (amd ? "AMD" : "NVIDIA") + " target, got " +
                      std::to_string(desc.warpSize) + " in [" + desc.name +
                      "]");
    if (desc.maxThreadsPerBlock > desc.maxThreadsPerCU)
      return fail(d.line, "max_threads_per_block",
                  "exceeds max_threads_per_cu in [" + desc.name + "]");
    if (desc.sharedMemPerBlock > desc.sharedMemPerCU)
      return fail(d.line, "shared_mem_per_block",
                  "exceeds shared_mem_per_cu in [" + desc.name + "]");
    if (desc.maxThreadsPerBlock % desc.warpSize != 0)
      return fail(d.line, "max_threads_per_block",
                  "is not a multiple of warp_size in [" + desc.name + "]");
    // GB/s = bytes per clock x GHz: an L2 slower than DRAM is a figure in
    // the wrong unit.
    if (desc.l2BytesPerClock > 0 &&
        desc.l2BytesPerClock * desc.clockGHz < desc.memBandwidthGBs)
      return fail(d.line, "l2_bytes_per_clock",
                  "is below mem_bandwidth_gbs at clock_ghz (bytes per clock "
                  "over the whole chip are expected) in [" +
                      desc.name + "]");
    desc.vectorBits = 0;
    desc.fmaUnitsPerCore = 0;
  } else {
    if (desc.f64PeakTflops > 0)
      return fail(d.line, "f64_tflops",
                  "is a GPU figure; a CPU's f64 rate follows from its "
                  "vector_bits, in [" +
                      desc.name + "]");
    if (desc.l2BytesPerClock > 0)
      return fail(d.line, "l2_bytes_per_clock",
                  "is a GPU figure (the partial sums it prices are a GPU "
                  "kernel's), in [" +
                      desc.name + "]");
    if (desc.vectorBits % 32 != 0)
      return fail(d.line, "vector_bits",
                  "must be a multiple of 32 in [" + desc.name + "]");
    // CPU micro-kernels run one thread per core.
    desc.warpSize = 1;
    desc.subPartitions = 1;
    desc.maxThreadsPerBlock = desc.maxThreadsPerCU = desc.maxBlocksPerCU = 1;
  }
  // Unset calibration coefficients take the vendor's documented defaults.
  Calibration defaults = defaultCalibration(desc.vendor);
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].kind == FieldKind::Calib && d.fieldLine[i] == 0)
      desc.calibration.*specs[i].calibField = defaults.*specs[i].calibField;
  parsed.push_back(std::move(desc));
  parsedLines.push_back(d.line);
  return true;
}

} // namespace

TargetDatabase::TargetDatabase() = default;

const TargetDatabase &TargetDatabase::builtin() {
  static const TargetDatabase db = [] {
    TargetDatabase result;
    std::string error;
    // The embedded file is checked by the unit tests; should it ever fail to
    // parse, the database is empty and every lookup reports an unknown
    // target rather than aborting.
    if (!result.addFromText(kBuiltinTargetsDb, "<builtin>/targets.db", error))
      result.targets_.clear();
    TargetDesc host = detectHostTarget(result);
    if (!host.name.empty())
      result.targets_.push_back(std::move(host));
    return result;
  }();
  return db;
}

TargetDatabase TargetDatabase::withBuiltins() { return builtin(); }

bool TargetDatabase::addFromFile(const std::string &path, std::string &error) {
  std::string text;
  if (!readFile(path, text)) {
    error = path + ":0: file: cannot open for reading";
    return false;
  }
  return addFromText(text, path, error);
}

bool TargetDatabase::addFromText(std::string_view text,
                                 std::string_view fileName,
                                 std::string &error) {
  std::vector<TargetDesc> added;
  Parser parser(fileName, *this);
  if (!parser.parse(text, added, error))
    return false;
  for (TargetDesc &t : added) {
    bool replaced = false;
    for (TargetDesc &existing : targets_)
      if (existing.name == t.name) {
        existing = t;
        replaced = true;
      }
    if (!replaced)
      targets_.push_back(std::move(t));
  }
  return true;
}

const TargetDesc *TargetDatabase::lookup(std::string_view name) const {
  for (const TargetDesc &t : targets_)
    if (t.name == name)
      return &t;
  return nullptr;
}

std::vector<std::string> TargetDatabase::names() const {
  std::vector<std::string> result;
  result.reserve(targets_.size());
  for (const TargetDesc &t : targets_)
    result.push_back(t.name);
  return result;
}

std::string formatTargetSection(const TargetDesc &target) {
  // Written from the same field table the parser reads, with every double
  // at round-trip precision, so that parsing gives back the same TargetDesc.
  auto exact = [](double v) {
    char text[40];
    std::snprintf(text, sizeof(text), "%.17g", v);
    return std::string(text);
  };
  std::string out = "[" + target.name + "]\n";
  const TargetDesc defaults;
  uint8_t vendorBit = target.isGpu() ? kGpu : kCpu;
  for (const FieldSpec &spec : fieldSpecs()) {
    // A field that does not apply to this vendor stays out, so the parser
    // leaves it at its default, as it was.
    bool required = spec.required & vendorBit;
    if (!required && spec.intField &&
        target.*spec.intField == defaults.*spec.intField)
      continue;
    if (!required && spec.doubleField &&
        target.*spec.doubleField == defaults.*spec.doubleField)
      continue;
    std::string value;
    switch (spec.kind) {
    case FieldKind::Vendor:
      value = std::string(stringify(target.vendor));
      break;
    case FieldKind::String:
      value = target.*spec.stringField;
      // The format requires a description; targets built in IR have none.
      if (value.empty())
        value = target.name;
      break;
    case FieldKind::Int:
    case FieldKind::Size:
      value = std::to_string(target.*spec.intField);
      break;
    case FieldKind::Double:
      value = exact(target.*spec.doubleField);
      break;
    case FieldKind::Calib:
      value = exact(target.calibration.*spec.calibField);
      break;
    }
    out += std::string(spec.key) + " = " + value + "\n";
  }
  for (int i = 0; i < kNumInstKinds; ++i)
    if (target.peakTflops[i] > 0)
      out += std::string(kPeakPrefix) +
             std::string(stringify(static_cast<InstKind>(i))) + " = " +
             exact(target.peakTflops[i]) + "\n";
  return out;
}

} // namespace quilt
