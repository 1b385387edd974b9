//===- TuningDatabase.h - Measured kernel choices, kept in a file ---------===//
//
// Part of the Quilt project. `quiltc tune` measures configurations around
// the cost model's picks and writes the winners here; compiling with the
// file adds them to the dispatches' candidates and makes run-time selection
// take the measured winner for shapes inside a tuned region (the model
// decides elsewhere). The format (docs/tuning.md):
//
//   quilt-tuning-db 1
//   target = host
//   target_description = AMD EPYC (detected; ...)
//   threads = 1
//
//   [matmul f32]
//   epilogue = any
//   b = 1
//   m = 96..181
//   n = 768
//   k = 768
//   config = 96x1024x256 t1 w1x1 tt6x32 v16 s1 cpu_fma
//   measured_us = 812.4
//   model_config = 48x2048x256 t1 w1x1 tt12x32 v16 s1 cpu_fma
//   model_measured_us = 901.3
//
// Every error names the file, the line and the field.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_TUNINGDATABASE_H
#define QUILT_COSTMODEL_TUNINGDATABASE_H

#include "CostModel/KernelConfig.h"
#include "CostModel/TargetDatabase.h"
#include "CostModel/TunedRegion.h"
#include "CostModel/Types.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quilt {

/// The format version this build reads and writes.
inline constexpr int kTuningDatabaseVersion = 1;

/// Matches every epilogue: tuning measures the product, and an epilogue's
/// work per element of C does not depend on the tile.
inline constexpr std::string_view kAnyEpilogue = "any";

struct TuningEntry {
  OpKind op = OpKind::Matmul;
  ElemType elem = ElemType::F32;
  /// "any", "none", "fused" (a fused body), or the named steps joined by
  /// '+' ("bias_add+gelu"), as dispatchEpilogueKey spells a dispatch's.
  std::string epilogue = std::string(kAnyEpilogue);
  ShapeRegion region;
  KernelConfig config;
  /// What tuning measured (informational; kept on rewrite).
  std::optional<double> measuredUs;
  std::optional<KernelConfig> modelConfig;
  std::optional<double> modelMeasuredUs;
  /// The line of the entry's section header, for diagnostics.
  int line = 0;
};

struct TuningDatabase {
  /// The file read, or the name given to parse; diagnostics start with it.
  std::string path;
  std::string target;
  std::string targetDescription;
  int64_t threads = 1;
  int targetLine = 0, descriptionLine = 0, threadsLine = 0;
  std::vector<TuningEntry> entries;

  /// Reads a database; every configuration must pass checkForTarget on the
  /// database's target, looked up in `targets`. Errors read
  /// "<file>:<line>: field '<field>': <reason>".
  static bool parse(std::string_view text, std::string_view fileName,
                    const TargetDatabase &targets, TuningDatabase &out,
                    std::string &error);
  static bool load(const std::string &path, const TargetDatabase &targets,
                   TuningDatabase &out, std::string &error);

  /// The text parse reads back to the same entries.
  std::string render() const;

  /// Whether the database was tuned for this compilation: the same target
  /// (name and, for a detected host, description) and, on CPUs, the same
  /// thread count. Otherwise false with an error naming the field's line.
  bool checkApplies(const TargetDesc &compileTarget, int64_t compileThreads,
                    std::string &error) const;

  /// Entries for a dispatch, in file order.
  std::vector<const TuningEntry *> matching(OpKind op, ElemType elem,
                                            std::string_view epilogue) const;

  /// Adds (or replaces: same op, type, epilogue and region) an entry.
  void put(const TuningEntry &entry);

  /// "<path>:<line>".
  std::string where(int line) const;
};

/// What compiling with the database does to a dispatch: appends the
/// configurations of the entries matching (op, elem, epilogue) that
/// `candidates` lacks, and appends to `regions` one region per entry
/// selecting its configuration. False with an error when the candidates
/// would exceed the prepared-table limit (kMaxPreparedCandidates) or the
/// regions theirs (kMaxTunedRegions).
bool addTunedCandidates(const TuningDatabase &db, OpKind op, ElemType elem,
                        std::string_view epilogue,
                        std::vector<KernelConfig> &candidates,
                        std::vector<TunedRegion> &regions, std::string &error);

} // namespace quilt

#endif // QUILT_COSTMODEL_TUNINGDATABASE_H
