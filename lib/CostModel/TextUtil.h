//===- TextUtil.h - Small strict text helpers (library-private) -----------===//
//
// Part of the Quilt project. Strict number parsing for the database, workload
// and CSV readers: the whole token must be a number, and out-of-range values
// are errors rather than silently clamped.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_LIB_COSTMODEL_TEXTUTIL_H
#define QUILT_LIB_COSTMODEL_TEXTUTIL_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace quilt {

std::string_view trim(std::string_view s);
/// Takes lines off the front of `text` until one has content once its `#`
/// comment is cut and it is trimmed; stores it in `line`, counting every
/// line taken in `lineNo`. False when `text` has no such line left. Both
/// line formats (target databases, workload files) read this way.
bool nextContentLine(std::string_view &text, std::string_view &line,
                     int &lineNo);
/// Splits on runs of blanks (space, tab, CR).
std::vector<std::string_view> splitWords(std::string_view s);
/// Splits on `sep`, keeping empty fields, trimming each.
std::vector<std::string_view> splitFields(std::string_view s, char sep);
bool startsWith(std::string_view s, std::string_view prefix);

/// Whole-token decimal integer (optional leading '-'); false on anything
/// else, including overflow of int64_t.
bool parseInt64(std::string_view s, int64_t &out);
/// Whole-token finite floating-point number.
bool parseDouble(std::string_view s, double &out);

/// Shortest round-trippable-enough decimal form for tables: `digits`
/// significant digits, no exponent for ordinary magnitudes.
std::string formatNumber(double v, int digits = 4);

/// The whole file at `path` into `text`; false when it cannot be opened
/// (each caller words that error for its own file kind).
bool readFile(const std::string &path, std::string &text);

} // namespace quilt

#endif // QUILT_LIB_COSTMODEL_TEXTUTIL_H
