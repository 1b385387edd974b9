//===- ResidualModelFuzzer.cpp - libFuzzer target: residual models --------===//
//
// Part of the Quilt project. A residual model file as `--residual-model`
// reads it, then its trees evaluated where compiling and explaining
// evaluate them: the learned ranking of every candidate of each workload of
// FuzzWorkloads.h on a GPU and a CPU target (with and without a head for
// them). A tree whose children point anywhere but forward, or a leaf value
// that overflows, shows up here.
//
//===----------------------------------------------------------------------===//

#include "FuzzWorkloads.h"

#include "CostModel/ResidualModel.h"
#include "CostModel/TargetDatabase.h"

#include <cstdint>
#include <string_view>

using namespace quilt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  ResidualModel model;
  std::string error;
  bool parsed = model.parse(text, "fuzz.qrm", error);
  fuzz::requireReason(parsed, error, "ResidualModel::parse");
  if (!parsed)
    return 0;

  ExplainOptions options;
  options.residual = &model;
  options.candidates.residual = &model;
  const TargetDatabase &targets = TargetDatabase::builtin();
  for (const char *name : {"h100", "mi300x", "host-avx512"})
    if (const TargetDesc *target = targets.lookup(name))
      fuzz::explainEveryWorkload(*target, options);
  return 0;
}
