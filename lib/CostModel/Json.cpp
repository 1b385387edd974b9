//===- Json.cpp - A minimal streaming JSON writer -------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Json.h"

#include <cmath>
#include <cstdio>

namespace quilt {

std::string jsonQuote(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += ch; // UTF-8 bytes pass through unchanged.
      }
    }
  }
  out += '"';
  return out;
}

void JsonWriter::newline() {
  if (!pretty)
    return;
  out += '\n';
  out.append(2 * nonEmpty.size(), ' ');
}

void JsonWriter::separate() {
  if (afterKey) {
    afterKey = false;
    return;
  }
  if (nonEmpty.empty())
    return;
  if (nonEmpty.back())
    out += ',';
  nonEmpty.back() = true;
  newline();
}

void JsonWriter::open(char bracket) {
  separate();
  out += bracket;
  nonEmpty.push_back(false);
}

void JsonWriter::close(char bracket) {
  bool hadElements = !nonEmpty.empty() && nonEmpty.back();
  if (!nonEmpty.empty())
    nonEmpty.pop_back();
  if (hadElements)
    newline();
  out += bracket;
}

void JsonWriter::key(std::string_view name) {
  separate();
  out += jsonQuote(name);
  out += pretty ? ": " : ":";
  afterKey = true;
}

void JsonWriter::value(std::string_view s) {
  separate();
  out += jsonQuote(s);
}

void JsonWriter::value(double v) {
  separate();
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.10g", v);
  out += buf;
}

void JsonWriter::value(int64_t v) {
  separate();
  out += std::to_string(v);
}

void JsonWriter::value(bool v) {
  separate();
  out += v ? "true" : "false";
}

void JsonWriter::null() {
  separate();
  out += "null";
}

} // namespace quilt
