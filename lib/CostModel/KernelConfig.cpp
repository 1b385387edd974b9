//===- KernelConfig.cpp - Printing and parsing micro-kernel configs -------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/KernelConfig.h"
#include "TextUtil.h"

#include <vector>

namespace quilt {

bool KernelConfig::operator==(const KernelConfig &o) const {
  return tileM == o.tileM && tileN == o.tileN && tileK == o.tileK &&
         threads == o.threads && warpsM == o.warpsM && warpsN == o.warpsN &&
         threadTileM == o.threadTileM && threadTileN == o.threadTileN &&
         vectorWidth == o.vectorWidth && stages == o.stages &&
         splitK == o.splitK && streamK == o.streamK && inst == o.inst &&
         boundary == o.boundary;
}

bool cpuReadsAInPlace(int64_t tileN, int64_t threadTileM, int64_t threadTileN,
                      ElemType elem) {
  return elem == ElemType::F32 && threadTileN > 0 &&
         tileN <= kCpuInPlaceAMaxColumns * threadTileN &&
         threadTileM <= kCpuInPlaceAMaxRows;
}

std::string KernelConfig::str() const {
  std::string s = std::to_string(tileM) + "x" + std::to_string(tileN) + "x" +
                  std::to_string(tileK) + " t" + std::to_string(threads) +
                  " w" + std::to_string(warpsM) + "x" + std::to_string(warpsN) +
                  " tt" + std::to_string(threadTileM) + "x" +
                  std::to_string(threadTileN) + " v" +
                  std::to_string(vectorWidth) + " s" + std::to_string(stages) +
                  " " + std::string(stringify(inst));
  if (splitK != 1)
    s += " sk" + std::to_string(splitK);
  if (streamK != 0)
    s += " streamk" + std::to_string(streamK);
  if (boundary != BoundaryPolicy::Mask)
    s += " " + std::string(stringify(boundary));
  return s;
}

namespace {

/// Parses "AxB" (or "AxBxC" when `count` is 3) of positive-or-zero integers.
bool parseDims(std::string_view text, int count, int64_t *out) {
  for (int i = 0; i < count; ++i) {
    size_t x = i + 1 < count ? text.find('x') : std::string_view::npos;
    std::string_view part = text.substr(0, x);
    if (!parseInt64(part, out[i]))
      return false;
    if (i + 1 < count) {
      if (x == std::string_view::npos)
        return false;
      text.remove_prefix(x + 1);
    }
  }
  return true;
}

} // namespace

std::optional<KernelConfig> parseKernelConfig(std::string_view text,
                                              std::string &error) {
  std::vector<std::string_view> words = splitWords(text);
  if (words.size() < 7) {
    error = "expected 'MxNxK tT wMxN ttMxN vV sS INST', got '" +
            std::string(text) + "'";
    return std::nullopt;
  }
  KernelConfig cfg;
  auto fail = [&](std::string_view what, std::string_view word) {
    error = "malformed " + std::string(what) + " '" + std::string(word) +
            "' in config '" + std::string(text) + "'";
    return std::nullopt;
  };
  int64_t tile[3], warps[2], tt[2];
  if (!parseDims(words[0], 3, tile))
    return fail("tile", words[0]);
  cfg.tileM = tile[0], cfg.tileN = tile[1], cfg.tileK = tile[2];
  if (!startsWith(words[1], "t") ||
      !parseInt64(words[1].substr(1), cfg.threads))
    return fail("thread count", words[1]);
  if (!startsWith(words[2], "w") || !parseDims(words[2].substr(1), 2, warps))
    return fail("warp layout", words[2]);
  cfg.warpsM = warps[0], cfg.warpsN = warps[1];
  if (!startsWith(words[3], "tt") || !parseDims(words[3].substr(2), 2, tt))
    return fail("thread tile", words[3]);
  cfg.threadTileM = tt[0], cfg.threadTileN = tt[1];
  if (!startsWith(words[4], "v") ||
      !parseInt64(words[4].substr(1), cfg.vectorWidth))
    return fail("vector width", words[4]);
  if (!startsWith(words[5], "s") || !parseInt64(words[5].substr(1), cfg.stages))
    return fail("stage count", words[5]);
  std::optional<InstKind> inst = parseInstKind(words[6]);
  if (!inst)
    return fail("instruction", words[6]);
  cfg.inst = *inst;
  for (size_t i = 7; i < words.size(); ++i) {
    if (startsWith(words[i], "streamk")) {
      if (!parseInt64(words[i].substr(7), cfg.streamK))
        return fail("stream-K", words[i]);
    } else if (startsWith(words[i], "sk")) {
      if (!parseInt64(words[i].substr(2), cfg.splitK))
        return fail("split-K", words[i]);
    } else if (std::optional<BoundaryPolicy> b =
                   parseBoundaryPolicy(words[i])) {
      cfg.boundary = *b;
    } else {
      return fail("suffix", words[i]);
    }
  }
  return cfg;
}

} // namespace quilt
