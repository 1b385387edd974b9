//===- TextUtil.cpp - Small strict text helpers ---------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "TextUtil.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace quilt {

static bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && isBlank(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && (isBlank(s.back()) || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

bool nextContentLine(std::string_view &text, std::string_view &line,
                     int &lineNo) {
  while (!text.empty()) {
    size_t eol = text.find('\n');
    line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    ++lineNo;
    line = trim(line.substr(0, line.find('#')));
    if (!line.empty())
      return true;
  }
  return false;
}

std::vector<std::string_view> splitWords(std::string_view s) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (isBlank(s[i]) || s[i] == '\n'))
      ++i;
    size_t start = i;
    while (i < s.size() && !isBlank(s[i]) && s[i] != '\n')
      ++i;
    if (i > start)
      words.push_back(s.substr(start, i - start));
  }
  return words;
}

std::vector<std::string_view> splitFields(std::string_view s, char sep) {
  std::vector<std::string_view> fields;
  while (true) {
    size_t pos = s.find(sep);
    fields.push_back(trim(s.substr(0, pos)));
    if (pos == std::string_view::npos)
      return fields;
    s.remove_prefix(pos + 1);
  }
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool parseInt64(std::string_view s, int64_t &out) {
  if (s.empty() || s.size() > 24)
    return false;
  bool negative = s.front() == '-';
  size_t i = negative ? 1 : 0;
  if (i == s.size())
    return false;
  // Accumulate as a negative number so INT64_MIN parses too.
  int64_t value = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    int digit = s[i] - '0';
    if (value < (INT64_MIN + digit) / 10)
      return false;
    value = value * 10 - digit;
  }
  if (!negative) {
    if (value == INT64_MIN)
      return false;
    value = -value;
  }
  out = value;
  return true;
}

bool parseDouble(std::string_view s, double &out) {
  if (s.empty() || s.size() > 64)
    return false;
  std::string buffer(s);
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(buffer.c_str(), &end);
  if (end != buffer.c_str() + buffer.size() || errno == ERANGE ||
      !std::isfinite(v))
    return false;
  out = v;
  return true;
}

std::string formatNumber(double v, int digits) {
  if (!std::isfinite(v))
    return "0";
  char buf[64];
  double mag = std::fabs(v);
  if (v == 0)
    return "0";
  if (mag >= 1e-4 && mag < 1e15)
    std::snprintf(buf, sizeof(buf), "%.*g", digits + (mag >= 1e4 ? 6 : 0), v);
  else
    std::snprintf(buf, sizeof(buf), "%.*e", digits - 1, v);
  return buf;
}

bool readFile(const std::string &path, std::string &text) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return true;
}

} // namespace quilt
