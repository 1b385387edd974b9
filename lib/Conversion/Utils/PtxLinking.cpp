//===- PtxLinking.cpp - One PTX module from kernels compiled apart --------===//
//
// Part of the Quilt project. PTX is text, and what NVPTX emits at module
// scope is a short list of statements: the header (.version, .target,
// .address_size), variables (`.global .align 4 .b8 name[16] = {...};`,
// `.extern .shared ... name[];`), function prototypes (`.func (...) name
// (...);`) and function bodies (`.entry name(...) .maxntid ... { ... }`).
// Joining modules is joining those lists.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/PtxLinking.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <vector>

using llvm::StringRef;

namespace {

bool isIdentifierStart(char c) {
  return llvm::isAlpha(c) || c == '_' || c == '$';
}

bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$';
}

/// `.version`, `.target` and `.address_size`: one line each, no `;`.
bool isHeaderDirective(StringRef text) {
  return text.starts_with(".version") || text.starts_with(".target") ||
         text.starts_with(".address_size");
}

/// A module-scope statement.
struct Statement {
  std::string text;
  /// The function or variable it declares or defines; empty for others.
  std::string symbol;
  /// A function body, or a variable that is not `.extern`.
  bool defines = false;
  /// Linked by name across modules (.visible, .extern, .weak, .common):
  /// never renamed.
  bool visible = false;
};

struct ParsedPtx {
  /// .version, .target and .address_size, one per line.
  std::string header;
  std::vector<Statement> statements;
};

/// Fills `statement`'s symbol and kind from its text: the symbol is the
/// first identifier outside parentheses before any body or initializer
/// (return parameters come in parentheses before a function's name).
void classify(Statement &statement) {
  StringRef text = statement.text;
  bool isFunction = false;
  bool isExtern = false;
  int parens = 0;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '(' || c == '[') {
      ++parens;
      ++i;
    } else if (c == ')' || c == ']') {
      --parens;
      ++i;
    } else if (parens == 0 && (c == '{' || c == '=' || c == ';')) {
      break;
    } else if (c == '.' && i + 1 < text.size() &&
               isIdentifierStart(text[i + 1])) {
      size_t end = i + 1;
      while (end < text.size() && isIdentifierChar(text[end]))
        ++end;
      if (parens == 0) {
        StringRef directive = text.slice(i, end);
        isFunction |= directive == ".func" || directive == ".entry";
        isExtern |= directive == ".extern";
        statement.visible |= directive == ".visible" ||
                             directive == ".extern" || directive == ".weak" ||
                             directive == ".common";
      }
      i = end;
    } else if (isIdentifierStart(c) && parens == 0) {
      size_t end = i;
      while (end < text.size() && isIdentifierChar(text[end]))
        ++end;
      statement.symbol = text.slice(i, end).str();
      break;
    } else {
      ++i;
    }
  }
  statement.defines = isFunction ? text.ends_with("}") : !isExtern;
}

/// Splits `ptx` into its header and module-scope statements. Comments
/// outside function bodies are dropped.
ParsedPtx parse(StringRef ptx) {
  ParsedPtx parsed;
  std::string current;
  int parens = 0, braces = 0;
  // A variable's initializer is in braces too, but the statement goes on
  // to its `;`.
  bool initializer = false;
  auto finish = [&] {
    StringRef text = StringRef(current).trim();
    if (isHeaderDirective(text)) {
      parsed.header += text.str() + "\n";
    } else if (!text.empty()) {
      Statement statement;
      statement.text = text.str();
      classify(statement);
      parsed.statements.push_back(std::move(statement));
    }
    current.clear();
    initializer = false;
  };
  for (size_t i = 0; i < ptx.size(); ++i) {
    char c = ptx[i];
    bool atModuleScope = parens == 0 && braces == 0;
    if (c == '/' && i + 1 < ptx.size() &&
        (ptx[i + 1] == '/' || ptx[i + 1] == '*')) {
      bool line = ptx[i + 1] == '/';
      size_t end = line ? ptx.find('\n', i) : ptx.find("*/", i + 2);
      end = end == StringRef::npos ? ptx.size() : end + (line ? 0 : 2);
      if (!atModuleScope)
        current += ptx.slice(i, end).str();
      i = end - 1;
      continue;
    }
    if (c == '"') {
      size_t end = i + 1;
      while (end < ptx.size() && ptx[end] != '"')
        end += ptx[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, ptx.size());
      current += ptx.slice(i, end).str();
      i = end - 1;
      continue;
    }
    // The header directives end at their line.
    if (c == '\n' && atModuleScope &&
        isHeaderDirective(StringRef(current).trim())) {
      finish();
      continue;
    }
    current += c;
    if (c == '=' && atModuleScope)
      initializer = true;
    if (c == '(')
      ++parens;
    else if (c == ')')
      --parens;
    else if (c == '{')
      ++braces;
    else if (c == '}' && --braces == 0 && parens == 0 && !initializer)
      finish();
    else if (c == ';' && atModuleScope)
      finish();
  }
  finish();
  return parsed;
}

/// `text` with every identifier in `renames` replaced (registers, `%r1`,
/// and directives, `.b8`, are not identifiers).
std::string rename(StringRef text,
                   const llvm::StringMap<std::string> &renames) {
  if (renames.empty())
    return text.str();
  std::string result;
  result.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char previous = i ? text[i - 1] : ' ';
    if (!isIdentifierStart(text[i]) || isIdentifierChar(previous) ||
        previous == '%' || previous == '.') {
      result += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && isIdentifierChar(text[end]))
      ++end;
    StringRef word = text.slice(i, end);
    auto found = renames.find(word);
    result += found == renames.end() ? word.str() : found->second;
    i = end;
  }
  return result;
}

} // namespace

std::optional<std::string>
quilt::linkPtxModules(llvm::ArrayRef<std::string> modules, std::string &error) {
  std::vector<ParsedPtx> parts;
  llvm::StringSet<> everySymbol;
  for (const std::string &module : modules) {
    parts.push_back(parse(module));
    if (parts.back().header != parts.front().header) {
      error = "PTX modules for different targets:\n" + parts.front().header +
              "and\n" + parts.back().header;
      return std::nullopt;
    }
    for (const Statement &statement : parts.back().statements)
      if (!statement.symbol.empty())
        everySymbol.insert(statement.symbol);
  }
  if (parts.empty()) {
    error = "no PTX modules to link";
    return std::nullopt;
  }

  std::string linked = "//\n// Generated by LLVM NVPTX Back-End, linked by "
                       "Quilt from one module per kernel\n//\n\n" +
                       parts.front().header + "\n";
  // What the linked module has: definitions (with their text), prototypes
  // and extern declarations, and symbol-less statements.
  llvm::StringMap<std::string> defined;
  llvm::StringSet<> declared;
  llvm::StringSet<> others;
  for (auto [index, part] : llvm::enumerate(parts)) {
    // An internal symbol whose definition differs from the one linked so far
    // gets a fresh name in this part; renaming one can make another differ
    // (a caller's text names its callee), so repeat until nothing changes.
    llvm::StringMap<std::string> renames;
    for (bool changed = true; changed;) {
      changed = false;
      for (const Statement &statement : part.statements) {
        if (!statement.defines || statement.symbol.empty() ||
            renames.count(statement.symbol))
          continue;
        auto previous = defined.find(statement.symbol);
        if (previous == defined.end() ||
            previous->second == rename(statement.text, renames))
          continue;
        if (statement.visible) {
          error = "two different definitions of the visible symbol '" +
                  statement.symbol + "'";
          return std::nullopt;
        }
        std::string fresh;
        for (unsigned suffix = index;; ++suffix) {
          fresh = statement.symbol + "_k" + std::to_string(suffix);
          if (!everySymbol.contains(fresh))
            break;
        }
        everySymbol.insert(fresh);
        renames[statement.symbol] = fresh;
        changed = true;
      }
    }

    for (const Statement &statement : part.statements) {
      std::string text = rename(statement.text, renames);
      auto renamed = renames.find(statement.symbol);
      std::string symbol =
          renamed == renames.end() ? statement.symbol : renamed->second;
      if (symbol.empty()) {
        if (!others.insert(text).second)
          continue;
      } else if (statement.defines) {
        if (!defined.try_emplace(symbol, text).second)
          continue;
      } else if (defined.count(symbol) || !declared.insert(symbol).second) {
        continue;
      }
      linked += text + "\n\n";
    }
  }
  return linked;
}
