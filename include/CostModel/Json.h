//===- Json.h - A minimal streaming JSON writer ---------------------------===//
//
// Part of the Quilt project. Enough JSON for explain and calibrate output:
// objects, arrays, strings (escaped per RFC 8259), finite numbers (non-finite
// ones are written as null), booleans. Commas and indentation are tracked
// here so callers only say what they write.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_JSON_H
#define QUILT_COSTMODEL_JSON_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace quilt {

/// `s` as a quoted JSON string literal.
std::string jsonQuote(std::string_view s);

class JsonWriter {
public:
  explicit JsonWriter(std::string &out, bool pretty = true)
      : out(out), pretty(pretty) {}

  void beginObject() { open('{'); }
  void endObject() { close('}'); }
  void beginArray() { open('['); }
  void endArray() { close(']'); }
  /// The key of the next value inside an object.
  void key(std::string_view name);

  void value(std::string_view s);
  void value(const char *s) { value(std::string_view(s)); }
  void value(const std::string &s) { value(std::string_view(s)); }
  void value(double v);
  void value(int64_t v);
  void value(int v) { value(int64_t(v)); }
  void value(bool v);
  void null();

  template <typename T> void field(std::string_view name, const T &v) {
    key(name);
    value(v);
  }

private:
  void open(char bracket);
  void close(char bracket);
  /// Comma and newline before a value or key, unless right after a key.
  void separate();
  void newline();

  std::string &out;
  bool pretty;
  /// Per open container: whether it has an element yet.
  std::vector<bool> nonEmpty;
  bool afterKey = false;
};

} // namespace quilt

#endif // QUILT_COSTMODEL_JSON_H
