//===- TargetDatabase.h - Named hardware targets --------------------------===//
//
// Part of the Quilt project. The built-in targets come from
// data/targets.db, embedded into the library at build time so that tools need
// no data path at run time; `host` is detected on the running machine. Users
// add targets from their own files in the same format.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_TARGETDATABASE_H
#define QUILT_COSTMODEL_TARGETDATABASE_H

#include "CostModel/Target.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace quilt {

class TargetDatabase {
public:
  /// The built-in database plus the detected `host`. Parsed once, on first
  /// use; thread-safe.
  static const TargetDatabase &builtin();

  /// An empty database, or a copy of the built-in one to extend.
  TargetDatabase();
  static TargetDatabase withBuiltins();

  /// Adds (or replaces) the targets in a database file. On failure returns
  /// false, leaves the database unchanged and sets `error` to
  /// "<file>:<line>: <field>: <what is wrong>".
  bool addFromFile(const std::string &path, std::string &error);
  bool addFromText(std::string_view text, std::string_view fileName,
                   std::string &error);

  /// nullptr when unknown.
  const TargetDesc *lookup(std::string_view name) const;
  /// Names in database order (built-ins first, then `host`, then user ones).
  std::vector<std::string> names() const;
  const std::vector<TargetDesc> &targets() const { return targets_; }

private:
  std::vector<TargetDesc> targets_;
};

/// Detects the running machine (CPUID on x86, /proc/cpuinfo and
/// sysconf elsewhere) and describes it as a CPU target named `host`, taking
/// per-core figures it cannot read from the closest host-* entry of `db`.
TargetDesc detectHostTarget(const TargetDatabase &db);

/// A CPU target as seen by code running on `cores` of its cores (kernels
/// with that many threads): the compute units and the peaks scale down,
/// per-core figures, caches and bandwidth stay. Returns `target` unchanged
/// for a GPU or when `cores` is not below its compute units (or below 1).
TargetDesc restrictToCores(TargetDesc target, int64_t cores);

} // namespace quilt

#endif // QUILT_COSTMODEL_TARGETDATABASE_H
