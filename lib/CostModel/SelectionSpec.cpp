//===- SelectionSpec.cpp - What run-time selection needs, as text ---------===//
//
// Part of the Quilt project. Layout:
//
//   # quilt selection spec 1
//   elem f16
//   policy cost-model              (or pad, patch, fixed=<index>)
//   candidate 128x128x32 t256 w2x4 tt8x8 v8 s3 mma_sync_f16
//   ...
//   tuned 3 b=1 m=96..181 n=768 k=768 from tuned.db:12   (a TunedRegion)
//   [h100]                         the target, in database syntax, to the end
//   vendor = nvidia
//   ...
//
//===----------------------------------------------------------------------===//

#include "CostModel/SelectionSpec.h"
#include "CostModel/TargetDatabase.h"
#include "TextUtil.h"

namespace quilt {

namespace {
constexpr std::string_view kHeader = "# quilt selection spec 1";
} // namespace

std::string formatSelectionSpec(const SelectionSpec &spec) {
  std::string out(kHeader);
  out += "\nelem ";
  out += stringify(spec.elem);
  out += "\npolicy ";
  out += spec.policy == SelectionPolicy::Fixed
             ? "fixed=" + std::to_string(spec.fixedIndex)
             : std::string(stringify(spec.policy));
  out += "\n";
  for (const KernelConfig &cfg : spec.candidates)
    out += "candidate " + cfg.str() + "\n";
  for (const TunedRegion &region : spec.tuned)
    out += "tuned " + std::to_string(region.candidate) + " " +
           formatShapeRegion(region.region) + " from " + region.source + "\n";
  out += formatTargetSection(spec.target);
  return out;
}

bool parseSelectionSpec(std::string_view text, SelectionSpec &spec,
                        std::string &error) {
  SelectionSpec parsed;
  int lineNumber = 0;
  bool sawHeader = false, sawElem = false, sawPolicy = false;
  while (!text.empty() && text.front() != '[') {
    size_t end = text.find('\n');
    std::string_view line = trim(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++lineNumber;
    auto fail = [&](const std::string &message) {
      error =
          "selection spec line " + std::to_string(lineNumber) + ": " + message;
      return false;
    };
    if (lineNumber == 1) {
      if (line != kHeader)
        return fail("expected '" + std::string(kHeader) + "'");
      sawHeader = true;
      continue;
    }
    if (line.empty())
      continue;
    size_t space = line.find(' ');
    std::string_view key = line.substr(0, space);
    std::string_view value =
        space == std::string_view::npos ? "" : trim(line.substr(space + 1));
    if (key == "elem") {
      std::optional<ElemType> elem = parseElemType(value);
      if (!elem)
        return fail("unknown element type '" + std::string(value) + "'");
      parsed.elem = *elem;
      sawElem = true;
    } else if (key == "policy") {
      if (!parseSelectionPolicy(value, parsed.policy, parsed.fixedIndex))
        return fail("unknown policy '" + std::string(value) + "'");
      sawPolicy = true;
    } else if (key == "candidate") {
      std::string configError;
      std::optional<KernelConfig> cfg = parseKernelConfig(value, configError);
      if (!cfg)
        return fail(configError);
      parsed.candidates.push_back(*cfg);
    } else if (key == "tuned") {
      std::vector<std::string_view> words = splitWords(value);
      TunedRegion region;
      int64_t candidate = -1;
      std::string regionError;
      if (words.size() < 7 || words[5] != "from" ||
          !parseInt64(words[0], candidate) || candidate < 0 ||
          candidate >= kMaxPreparedCandidates)
        return fail("expected 'tuned <candidate> b=.. m=.. n=.. k=.. from "
                    "<source>'");
      if (!parseShapeRegion({words.begin() + 1, words.begin() + 5},
                            region.region, regionError))
        return fail(regionError);
      region.candidate = int32_t(candidate);
      region.source = std::string(trim(value.substr(value.find(" from ") + 6)));
      parsed.tuned.push_back(std::move(region));
    } else {
      return fail("unknown key '" + std::string(key) + "'");
    }
  }
  if (!sawHeader || !sawElem || !sawPolicy || parsed.candidates.empty()) {
    error = "selection spec: missing header, elem, policy or candidates";
    return false;
  }
  TargetDatabase db;
  if (!db.addFromText(text, "selection spec", error))
    return false;
  if (db.targets().size() != 1) {
    error = "selection spec: expected exactly one target section";
    return false;
  }
  parsed.target = db.targets().front();
  spec = std::move(parsed);
  return true;
}

} // namespace quilt
