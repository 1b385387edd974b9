//===- TuningDatabaseFuzzer.cpp - libFuzzer target: tuning databases ------===//
//
// Part of the Quilt project. A tuning database as `--tuning-db` reads it.
// One that parses must render back to text that parses to the same
// database (quiltc tune rewrites files it extends), and its entries must
// survive what compiling with it does: joining the candidates of a
// dispatch, the tuned regions of the prepared table, and selection, through
// explain on the database's own target.
//
//===----------------------------------------------------------------------===//

#include "FuzzWorkloads.h"

#include "CostModel/TargetDatabase.h"
#include "CostModel/TuningDatabase.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

using namespace quilt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  const TargetDatabase &targets = TargetDatabase::builtin();
  TuningDatabase db;
  std::string error;
  bool parsed = TuningDatabase::parse(text, "fuzz.db", targets, db, error);
  fuzz::requireReason(parsed, error, "TuningDatabase::parse");
  if (!parsed)
    return 0;

  // Round trip: what render writes, parse reads back unchanged.
  std::string rendered = db.render();
  TuningDatabase reread;
  if (!TuningDatabase::parse(rendered, "rendered.db", targets, reread,
                             error) ||
      reread.render() != rendered) {
    std::fprintf(stderr,
                 "a parsed tuning database does not read back: %s\n%s\n",
                 error.c_str(), rendered.c_str());
    std::abort();
  }

  const TargetDesc *target = targets.lookup(db.target);
  if (!target)
    return 0; // parse checked the entries against it; unreachable in practice
  ExplainOptions options;
  options.tuning = &db;
  fuzz::explainEveryWorkload(*target, options);
  return 0;
}
