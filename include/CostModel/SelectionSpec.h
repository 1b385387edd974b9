//===- SelectionSpec.h - What run-time selection needs, as text -*- C++ -*-===//
//
// Part of the Quilt project. The compiler embeds one spec per dispatch in
// the program; the runtime parses it once and selects with it on every
// call. Text (the target in database syntax, one configuration per line)
// keeps one format for people and programs, and one parser: the target
// database's.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_SELECTIONSPEC_H
#define QUILT_COSTMODEL_SELECTIONSPEC_H

#include "CostModel/CostModel.h"
#include "CostModel/KernelConfig.h"
#include "CostModel/Target.h"
#include "CostModel/TunedRegion.h"

#include <string>
#include <string_view>
#include <vector>

namespace quilt {

struct SelectionSpec {
  TargetDesc target;
  ElemType elem = ElemType::F32;
  SelectionPolicy policy = SelectionPolicy::CostModel;
  int fixedIndex = 0;
  std::vector<KernelConfig> candidates;
  /// Regions where a tuning database chose the kernel (TunedRegion.h).
  std::vector<TunedRegion> tuned;
};

/// The spec as text; parseSelectionSpec reads it back exactly.
std::string formatSelectionSpec(const SelectionSpec &spec);

/// Parses a spec. On failure returns false and says why in `error`.
bool parseSelectionSpec(std::string_view text, SelectionSpec &spec,
                        std::string &error);

/// A target as a database section ("[name]" and `key = value` lines) that
/// TargetDatabase::addFromText reads back to the same TargetDesc.
std::string formatTargetSection(const TargetDesc &target);

} // namespace quilt

#endif // QUILT_COSTMODEL_SELECTIONSPEC_H
