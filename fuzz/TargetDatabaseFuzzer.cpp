//===- TargetDatabaseFuzzer.cpp - libFuzzer target: --target-file ---------===//
//
// Part of the Quilt project. A target file as quiltc --target-file,
// quilt-opt's target-file= options and quilt.TargetDatabase read it, then
// every target it adds through what compiling for it does first:
// candidates, pruning, selection and explain for each workload of
// FuzzWorkloads.h. A field the parser accepts but a reader cannot use (a
// warp size of 1 once divided by zero in candidate enumeration) shows up
// here as a crash or a sanitizer report.
//
//===----------------------------------------------------------------------===//

#include "FuzzWorkloads.h"

#include "CostModel/TargetDatabase.h"

#include <cstdint>
#include <string_view>

using namespace quilt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  // An empty database: every target the input describes is a new one.
  TargetDatabase db;
  std::string error;
  bool parsed = db.addFromText(text, "fuzz.db", error);
  fuzz::requireReason(parsed, error, "TargetDatabase::addFromText");
  if (!parsed)
    return 0;
  (void)renderTargetTable(db);

  // Bounded work per input: the first few targets (a file may hold many).
  size_t checked = 0;
  for (const TargetDesc &target : db.targets()) {
    if (checked++ == 4)
      break;
    fuzz::explainEveryWorkload(target, ExplainOptions());
  }
  return 0;
}
