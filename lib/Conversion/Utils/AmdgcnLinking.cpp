//===- AmdgcnLinking.cpp - One AMDGCN file from kernels compiled apart ----===//
//
// Part of the Quilt project. What the AMDGPU backend writes for a module is
// a header (`.amdgcn_target`, `.amdhsa_code_object_version`), the code and
// kernel descriptors of each function, module-wide register maximums
// (`.set amdgpu.max_num_vgpr, N`) and one YAML metadata block
// (`.amdgpu_metadata`) whose `amdhsa.kernels` list describes every kernel;
// the assembler encodes that block as the code object's metadata note.
// Joining files is keeping one header, putting the code one part after
// another with the names that would clash renamed, and writing one metadata
// block that lists every part's kernels.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/AmdgcnLinking.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <vector>

using llvm::StringRef;

namespace {

bool isSymbolStart(char c) {
  return llvm::isAlpha(c) || c == '_' || c == '.' || c == '$';
}

bool isSymbolChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$';
}

constexpr StringRef kMaximumPrefix = "amdgpu.max_num_";
constexpr StringRef kKernelsKey = "amdhsa.kernels";

/// A top-level key of the metadata block with its value's lines.
struct MetadataEntry {
  std::string key;
  std::string text;
};

struct ParsedPart {
  /// `.amdgcn_target` and `.amdhsa_code_object_version` lines.
  std::vector<StringRef> header;
  /// Every other line outside the metadata block, in order.
  std::vector<StringRef> body;
  /// Indices into `body` of the `.set amdgpu.max_num_*` lines, in order.
  std::vector<size_t> maximumLines;
  /// Indices into `body` of the padding after the code (`.p2alignl 6, X`
  /// then `.fill N, 4, X`, X an s_code_end), which the backend writes once
  /// at the end of a module so the instruction prefetcher reads no further.
  llvm::DenseSet<size_t> codeEndLines;
  /// Symbols defined by a label (`name:`) or as common storage (`.comm`),
  /// `.L*` ones aside.
  std::vector<std::string> defined;
  /// Names given to `.amdhsa_kernel`.
  llvm::StringSet<> kernels;
  /// The metadata block's top-level entries, in order; `amdhsa.kernels`
  /// holds its list items.
  std::vector<MetadataEntry> metadata;
};

/// The directive or mnemonic a line starts with, and its first operand.
std::pair<StringRef, StringRef> firstTokens(StringRef line) {
  StringRef rest = line.ltrim();
  StringRef first = rest.take_until([](char c) { return llvm::isSpace(c); });
  StringRef operand = rest.drop_front(first.size()).ltrim();
  operand = operand.take_while(isSymbolChar);
  return {first, operand};
}

ParsedPart parse(StringRef text) {
  ParsedPart part;
  bool inMetadata = false;
  llvm::SmallVector<StringRef> lines;
  text.split(lines, '\n');
  if (!lines.empty() && lines.back().empty())
    lines.pop_back();
  for (StringRef line : lines) {
    StringRef trimmed = line.trim();
    if (trimmed == ".amdgpu_metadata") {
      inMetadata = true;
      continue;
    }
    if (trimmed == ".end_amdgpu_metadata") {
      inMetadata = false;
      continue;
    }
    if (inMetadata) {
      if (line == "---" || line == "...")
        continue;
      // A top-level key starts its line; its value's lines are indented.
      if (!line.empty() && !llvm::isSpace(line.front())) {
        StringRef key = line.take_until([](char c) { return c == ':'; });
        part.metadata.push_back({key.str(), ""});
        if (key != kKernelsKey)
          part.metadata.back().text = (line + "\n").str();
      } else if (!part.metadata.empty() && !trimmed.empty()) {
        part.metadata.back().text += (line + "\n").str();
      }
      continue;
    }
    auto [first, operand] = firstTokens(line);
    if (first == ".amdgcn_target" || first == ".amdhsa_code_object_version") {
      part.header.push_back(trimmed);
      continue;
    }
    if (first == ".amdhsa_kernel")
      part.kernels.insert(operand);
    if (first == ".set" && operand.starts_with(kMaximumPrefix))
      part.maximumLines.push_back(part.body.size());
    if ((first == ".comm" || first == ".lcomm") && !operand.starts_with(".L"))
      part.defined.push_back(operand.str());
    if (first == ".fill" && !part.body.empty() &&
        firstTokens(part.body.back()).first == ".p2alignl" &&
        line.rsplit(',').second.trim() ==
            part.body.back().rsplit(',').second.trim()) {
      part.codeEndLines.insert(part.body.size() - 1);
      part.codeEndLines.insert(part.body.size());
    }
    // A label: a symbol at the start of the line, then a colon.
    if (!line.empty() && isSymbolStart(line.front())) {
      StringRef name = line.take_while(isSymbolChar);
      if (line.drop_front(name.size()).starts_with(":") &&
          !name.starts_with(".L"))
        part.defined.push_back(name.str());
    }
    part.body.push_back(line);
  }
  return part;
}

/// Renames, in one part: `.L*` labels get `localPrefix` after `.L` (when
/// not empty), and each symbol in `renamed` (or a symbol named after it,
/// `name.num_vgpr`) its new name.
class Renamer {
public:
  Renamer(std::string localPrefix, llvm::StringMap<std::string> renamed)
      : localPrefix(std::move(localPrefix)), renamed(std::move(renamed)) {}

  bool empty() const { return localPrefix.empty() && renamed.empty(); }

  void apply(StringRef line, std::string &out) const {
    size_t i = 0;
    while (i < line.size()) {
      char c = line[i];
      if (c == ';') // A comment runs to the end of the line.
        break;
      if (c == '"') {
        size_t end = line.find('"', i + 1);
        end = end == StringRef::npos ? line.size() : end + 1;
        out += line.slice(i, end);
        i = end;
        continue;
      }
      if (!isSymbolStart(c) || (i > 0 && isSymbolChar(line[i - 1]))) {
        out += c;
        ++i;
        continue;
      }
      size_t end = i;
      while (end < line.size() && isSymbolChar(line[end]))
        ++end;
      out += rename(line.slice(i, end));
      i = end;
    }
    out += line.drop_front(i);
  }

private:
  std::string rename(StringRef token) const {
    if (token.starts_with(".L"))
      return localPrefix.empty()
                 ? token.str()
                 : (".L" + localPrefix + token.drop_front(2)).str();
    if (renamed.empty())
      return token.str();
    // The symbol itself, or one named after it: the longest match wins.
    StringRef name = token;
    while (true) {
      auto it = renamed.find(name);
      if (it != renamed.end())
        return it->second + token.drop_front(name.size()).str();
      size_t dot = name.rfind('.');
      if (dot == StringRef::npos || dot == 0)
        return token.str();
      name = name.take_front(dot);
    }
  }

  std::string localPrefix;
  llvm::StringMap<std::string> renamed;
};

} // namespace

std::optional<std::string>
quilt::linkAmdgcnAssembly(llvm::ArrayRef<std::string> parts,
                          std::string &error) {
  if (parts.empty()) {
    error = "no assembly to link";
    return std::nullopt;
  }
  if (parts.size() == 1)
    return parts.front();

  std::vector<ParsedPart> parsed;
  for (const std::string &part : parts)
    parsed.push_back(parse(part));

  // One header: the parts must be for one chip and code object version.
  for (const ParsedPart &part : parsed)
    if (part.header != parsed.front().header) {
      error = "the parts were compiled for different targets ('" +
              llvm::join(parsed.front().header, " ") + "' and '" +
              llvm::join(part.header, " ") + "')";
      return std::nullopt;
    }

  // The names each part renames: a symbol an earlier part defines too.
  llvm::StringSet<> kernels;
  llvm::StringSet<> definedSoFar;
  std::vector<Renamer> renamers;
  for (auto [index, part] : llvm::enumerate(parsed)) {
    llvm::StringMap<std::string> renamed;
    for (const std::string &name : part.defined) {
      if (!definedSoFar.contains(name))
        continue;
      if (part.kernels.contains(name) || kernels.contains(name)) {
        error = "two parts define the kernel '" + name + "'";
        return std::nullopt;
      }
      renamed[name] = name + "__part" + std::to_string(index);
    }
    for (const std::string &name : part.defined)
      definedSoFar.insert(name);
    for (const auto &kernel : part.kernels)
      kernels.insert(kernel.getKey());
    renamers.emplace_back(index == 0 ? ""
                                     : "part" + std::to_string(index) + "_",
                          std::move(renamed));
  }

  // The register maximums: the largest of each, written where the last
  // part that sets any wrote its first.
  llvm::StringMap<long long> maximums;
  std::vector<std::string> maximumOrder;
  size_t lastWithMaximums = parsed.size();
  for (auto [index, part] : llvm::enumerate(parsed))
    for (size_t line : part.maximumLines) {
      // `.set amdgpu.max_num_vgpr, 24`
      auto [directive, name] = firstTokens(part.body[line]);
      StringRef value = part.body[line].rsplit(',').second.trim();
      long long number;
      if (value.getAsInteger(10, number)) {
        error = "cannot join the parts' '" + name.str() + "' (" + value.str() +
                " is not a number)";
        return std::nullopt;
      }
      auto [it, inserted] = maximums.try_emplace(name, number);
      if (inserted)
        maximumOrder.push_back(name.str());
      it->second = std::max(it->second, number);
      lastWithMaximums = index;
    }

  // One metadata block: every part's kernels, the other keys once.
  std::string kernelItems;
  std::vector<MetadataEntry> others;
  for (const ParsedPart &part : parsed)
    for (const MetadataEntry &entry : part.metadata) {
      if (entry.key == kKernelsKey) {
        kernelItems += entry.text;
        continue;
      }
      auto same = llvm::find_if(others, [&](const MetadataEntry &other) {
        return other.key == entry.key;
      });
      if (same == others.end()) {
        others.push_back(entry);
      } else if (same->text != entry.text) {
        error = "the parts' metadata disagree on '" + entry.key + "'";
        return std::nullopt;
      }
    }
  bool hasMetadata = llvm::any_of(
      parsed, [](const ParsedPart &part) { return !part.metadata.empty(); });

  std::string out;
  for (StringRef line : parsed.front().header)
    out += ("\t" + line + "\n").str();
  for (auto [index, part] : llvm::enumerate(parsed)) {
    bool maximumsWritten = false;
    for (auto [lineIndex, line] : llvm::enumerate(part.body)) {
      // The code ends once: after the last part's.
      if (index + 1 != parsed.size() && part.codeEndLines.contains(lineIndex))
        continue;
      if (llvm::is_contained(part.maximumLines, lineIndex)) {
        if (index != lastWithMaximums || maximumsWritten)
          continue;
        for (const std::string &name : maximumOrder)
          out +=
              "\t.set " + name + ", " + std::to_string(maximums[name]) + "\n";
        maximumsWritten = true;
        continue;
      }
      if (renamers[index].empty())
        out += line;
      else
        renamers[index].apply(line, out);
      out += "\n";
    }
  }
  if (hasMetadata) {
    out += "\t.amdgpu_metadata\n---\n";
    if (!kernelItems.empty())
      out += std::string(kKernelsKey) + ":\n" + kernelItems;
    for (const MetadataEntry &entry : others)
      out += entry.text;
    out += "...\n\n\t.end_amdgpu_metadata\n";
  }
  return out;
}
