//===- PtxLexer.h - Tokens of PTX text --------------------------*- C++ -*-===//
//
// Part of the Quilt project.
//
// PTX identifiers may contain '.', '%', '$' and "::" (opcodes such as
// `cp.async.bulk.tensor.3d.shared::cluster`), so an identifier token here is
// a whole dotted name; a single ':' ends a label.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_PTXLEXER_H
#define QUILT_EMULATOR_PTXLEXER_H

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace quilt::emu {

struct Token {
  enum class Kind : uint8_t { Ident, Number, String, Punct, End };
  Kind kind = Kind::End;
  std::string_view text;
  uint32_t line = 0;

  bool is(char c) const {
    return kind == Kind::Punct && text.size() == 1 && text[0] == c;
  }
  bool isIdent(std::string_view s) const {
    return kind == Kind::Ident && text == s;
  }
};

/// Splits `text` into tokens; comments are dropped. An unterminated string
/// or block comment ends the stream with `error` set.
inline std::vector<Token> lexPtx(std::string_view text, std::string &error) {
  std::vector<Token> tokens;
  uint32_t line = 1;
  size_t i = 0, n = text.size();
  auto identChar = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '.' || c == '%' || c == '$';
  };
  while (i < n) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) || c == '\0') {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n')
        ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      size_t end = text.find("*/", i + 2);
      if (end == std::string_view::npos) {
        error = "ptx:" + std::to_string(line) + ": unterminated comment";
        break;
      }
      for (size_t j = i; j < end; ++j)
        line += text[j] == '\n';
      i = end + 2;
      continue;
    }
    Token token;
    token.line = line;
    size_t start = i;
    if (c == '"') {
      ++i;
      while (i < n && text[i] != '"' && text[i] != '\n')
        i += text[i] == '\\' ? 2 : 1;
      if (i >= n || text[i] != '"') {
        error = "ptx:" + std::to_string(line) + ": unterminated string";
        break;
      }
      ++i;
      token.kind = Token::Kind::String;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      // 12, 0x1F, 0f3F800000, 0d3FF0000000000000, 8.0 (.version), 1U.
      while (i < n && (std::isalnum(static_cast<unsigned char>(text[i])) ||
                       text[i] == '.'))
        ++i;
      token.kind = Token::Kind::Number;
    } else if (identChar(c)) {
      while (i < n) {
        if (identChar(text[i])) {
          ++i;
        } else if (text[i] == ':' && i + 1 < n && text[i + 1] == ':') {
          i += 2;
        } else {
          break;
        }
      }
      token.kind = Token::Kind::Ident;
    } else {
      ++i;
      token.kind = Token::Kind::Punct;
    }
    token.text = text.substr(start, i - start);
    tokens.push_back(token);
  }
  Token end;
  end.line = line;
  tokens.push_back(end);
  return tokens;
}

} // namespace quilt::emu

#endif // QUILT_EMULATOR_PTXLEXER_H
