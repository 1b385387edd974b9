//===- PtxParser.cpp - PTX text to the emulator's decoded form ------------===//
//
// Part of the Quilt project.
//
// The grammar of PTX ISA chapter 4-5 that NVPTX and MLIR's inline PTX use:
// module directives, variable declarations with initializers, entries and
// functions with parameters and performance directives, and bodies made of
// scopes (`{ ... }`) that declare registers, labels, local/shared/param
// variables and instructions. Registers and labels are resolved through the
// scope chain as the body is read, so an inline-assembly block that declares
// `.reg .pred p;` and `LAB_WAIT:` may appear any number of times.
//
//===----------------------------------------------------------------------===//

#include "PtxParser.h"

#include "OpcodeDecoder.h"
#include "PtxLexer.h"
#include "Reconvergence.h"

#include <cstring>
#include <functional>
#include <unordered_map>

namespace quilt::emu {
namespace {

struct RegisterRange {
  uint32_t first = 0;
  uint32_t count = 0; ///< 0: a single register (`.reg .b32 r;`)
};

struct LabelFixup {
  uint32_t instruction;
  uint32_t operand;
  std::string name;
  uint32_t line;
};

struct Scope {
  std::unordered_map<std::string, RegisterRange> registers;
  std::unordered_map<std::string, uint32_t> labels;
  std::unordered_map<std::string, Variable *> variables;
  std::vector<LabelFixup> fixups;
};

bool parseSpecial(std::string_view name, Special &special) {
  static const std::unordered_map<std::string_view, Special> names = {
      {"%tid.x", Special::TidX},
      {"%tid.y", Special::TidY},
      {"%tid.z", Special::TidZ},
      {"%ntid.x", Special::NtidX},
      {"%ntid.y", Special::NtidY},
      {"%ntid.z", Special::NtidZ},
      {"%ctaid.x", Special::CtaidX},
      {"%ctaid.y", Special::CtaidY},
      {"%ctaid.z", Special::CtaidZ},
      {"%nctaid.x", Special::NctaidX},
      {"%nctaid.y", Special::NctaidY},
      {"%nctaid.z", Special::NctaidZ},
      {"%laneid", Special::LaneId},
      {"%warpid", Special::WarpId},
      {"%nwarpid", Special::NWarpId},
      {"%smid", Special::SmId},
      {"%nsmid", Special::NSmId},
      {"%gridid", Special::GridId},
      {"%lanemask_eq", Special::LanemaskEq},
      {"%lanemask_le", Special::LanemaskLe},
      {"%lanemask_lt", Special::LanemaskLt},
      {"%lanemask_ge", Special::LanemaskGe},
      {"%lanemask_gt", Special::LanemaskGt},
      {"%clock", Special::Clock},
      {"%clock64", Special::Clock64},
      {"%globaltimer", Special::GlobalTimer},
      {"%dynamic_smem_size", Special::DynamicSmemSize},
      {"%total_smem_size", Special::TotalSmemSize},
      {"%cluster_ctarank", Special::ClusterCtaRank},
      {"%cluster_nctarank", Special::ClusterNctaRank},
      {"%cluster_ctaid.x", Special::ClusterCtaidX},
      {"%cluster_ctaid.y", Special::ClusterCtaidY},
      {"%cluster_ctaid.z", Special::ClusterCtaidZ},
      {"%cluster_nctaid.x", Special::ClusterNctaidX},
      {"%cluster_nctaid.y", Special::ClusterNctaidY},
      {"%cluster_nctaid.z", Special::ClusterNctaidZ},
      {"%clusterid.x", Special::ClusterIdX},
      {"%clusterid.y", Special::ClusterIdY},
      {"%clusterid.z", Special::ClusterIdZ},
      {"%nclusterid.x", Special::NClusterIdX},
      {"%nclusterid.y", Special::NClusterIdY},
      {"%nclusterid.z", Special::NClusterIdZ},
      {"%is_explicit_cluster", Special::IsExplicitCluster}};
  auto it = names.find(name);
  if (it == names.end())
    return false;
  special = it->second;
  return true;
}

/// Integer and float literals (section 4.5.1): decimal, 0x hex, 0 octal,
/// 0b binary, 0f/0F + 8 hex digits (f32 bits), 0d/0D + 16 (f64 bits), an
/// optional U suffix.
bool parseNumber(std::string_view text, uint64_t &value, bool &isF32,
                 bool &isF64) {
  isF32 = isF64 = false;
  if (text.size() > 2 && text[0] == '0' &&
      (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D')) {
    bool f32 = text[1] == 'f' || text[1] == 'F';
    std::string digits(text.substr(2));
    if (digits.size() != (f32 ? 8u : 16u))
      return false;
    char *end = nullptr;
    value = std::strtoull(digits.c_str(), &end, 16);
    if (*end)
      return false;
    (f32 ? isF32 : isF64) = true;
    return true;
  }
  std::string s(text);
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u'))
    s.pop_back();
  if (s.find('.') != std::string::npos || s.find('e') != std::string::npos) {
    // A decimal float (rare in generated PTX): an f64 constant.
    char *end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (*end)
      return false;
    std::memcpy(&value, &d, sizeof(d));
    isF64 = true;
    return true;
  }
  int base = 10;
  size_t start = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    start = 2;
  } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
    base = 2;
    start = 2;
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    start = 1;
  }
  char *end = nullptr;
  value = std::strtoull(s.c_str() + start, &end, base);
  return *end == '\0';
}

class Parser {
public:
  Parser(std::string_view text, std::string &error)
      : tokens_(lexPtx(text, error)), error_(error) {}

  std::unique_ptr<Module> run();

private:
  // Token access.
  const Token &peek(size_t ahead = 0) const {
    size_t i = pos_ + ahead;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  const Token &next() {
    const Token &t = peek();
    if (pos_ < tokens_.size() - 1)
      ++pos_;
    return t;
  }
  bool accept(char c) {
    if (!peek().is(c))
      return false;
    next();
    return true;
  }
  bool fail(const std::string &what, uint32_t line = 0) {
    if (error_.empty())
      error_ = "ptx:" + std::to_string(line ? line : peek().line) + ": " + what;
    return false;
  }
  bool expect(char c) {
    if (accept(c))
      return true;
    return fail(std::string("expected '") + c + "', found '" +
                std::string(peek().text) + "'");
  }
  bool expectNumber(uint64_t &value);
  void skipLine(uint32_t line) {
    while (peek().kind != Token::Kind::End && peek().line == line)
      next();
  }

  // Module scope.
  bool parseModuleItem();
  bool parseVariable(Space space, bool isExtern, Variable &var);
  bool parseFunction(bool isEntry);
  bool parseParams(Function &fn, bool isKernel);

  // Bodies.
  bool parseBody(Function &fn);
  bool parseStatement(Function &fn);
  bool parseRegisterDecl(Function &fn);
  bool parseInstruction(Function &fn);
  bool parseOperand(Function &fn, Instruction &inst, Operand &op);
  bool parseAddress(Function &fn, Instruction &inst, Operand &op);
  bool lookupName(Function &fn, Instruction &inst, std::string_view name,
                  Operand &op, uint32_t line);
  bool closeScope(Function &fn);
  static void symbolOperand(const Variable &var, Operand &op) {
    op.kind = Operand::Kind::Symbol;
    op.space = var.space;
    op.imm = var.address;
    op.dynamicShared = var.space == Space::Shared && var.unsized;
  }
  void placeDynamicShared(Function &fn);
  void convertLiterals(Instruction &inst);

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  std::string &error_;
  std::unique_ptr<Module> module_;
  std::unordered_map<std::string, Variable *> moduleVariables_;
  std::vector<Scope> scopes_;
  uint32_t operandIndex_ = 0;
};

bool Parser::expectNumber(uint64_t &value) {
  const Token &t = next();
  bool f32, f64;
  if (t.kind != Token::Kind::Number || !parseNumber(t.text, value, f32, f64))
    return fail("expected a number, found '" + std::string(t.text) + "'",
                t.line);
  return true;
}

std::unique_ptr<Module> Parser::run() {
  if (!error_.empty())
    return nullptr;
  module_ = std::make_unique<Module>();
  while (peek().kind != Token::Kind::End)
    if (!parseModuleItem())
      return nullptr;
  return std::move(module_);
}

bool Parser::parseModuleItem() {
  const Token &t = next();
  if (t.kind != Token::Kind::Ident)
    return fail("unexpected '" + std::string(t.text) + "' at module scope",
                t.line);
  std::string_view d = t.text;
  if (d == ".version") {
    module_->version = std::string(next().text);
    return true;
  }
  if (d == ".target") {
    module_->target = std::string(next().text);
    while (accept(','))
      next();
    return true;
  }
  if (d == ".address_size") {
    uint64_t bits;
    if (!expectNumber(bits))
      return false;
    if (bits != 64)
      return fail(".address_size " + std::to_string(bits) +
                      ": the emulator implements 64-bit addressing",
                  t.line);
    return true;
  }
  if (d == ".file" || d == ".loc" || d == ".pragma") {
    skipLine(t.line);
    accept(';');
    return true;
  }
  if (d == ".section") {
    // Debug sections: skip the braced contents.
    while (peek().kind != Token::Kind::End && !peek().is('{'))
      next();
    int depth = 0;
    do {
      const Token &s = next();
      if (s.is('{'))
        ++depth;
      else if (s.is('}'))
        --depth;
      if (s.kind == Token::Kind::End)
        return fail("unterminated .section", t.line);
    } while (depth > 0);
    return true;
  }
  bool isExtern = false;
  std::string_view directive = d;
  while (directive == ".visible" || directive == ".extern" ||
         directive == ".weak" || directive == ".common") {
    isExtern |= directive == ".extern";
    directive = next().text;
  }
  if (directive == ".entry" || directive == ".func")
    return parseFunction(directive == ".entry");
  Space space;
  if (directive == ".global")
    space = Space::Global;
  else if (directive == ".shared")
    space = Space::Shared;
  else if (directive == ".const")
    space = Space::Const;
  else
    return fail("unsupported directive '" + std::string(directive) + "'",
                t.line);
  auto var = std::make_unique<Variable>();
  if (!parseVariable(space, isExtern, *var))
    return false;
  if (space == Space::Shared && var->unsized) {
    // The start of dynamic shared memory: placed per kernel.
    var->address = 0;
  } else if (space == Space::Shared) {
    module_->sharedBytes = (module_->sharedBytes + var->alignment - 1) /
                           var->alignment * var->alignment;
    var->address = module_->sharedBytes;
    module_->sharedBytes += var->size;
  } else {
    // Global and const variables live in host memory the kernels address
    // directly (the emulator's device pointers are host pointers).
    uint64_t bytes = var->size ? var->size : 1;
    auto storage = std::make_unique<uint8_t[]>(bytes + var->alignment);
    std::memset(storage.get(), 0, bytes + var->alignment);
    uintptr_t p = reinterpret_cast<uintptr_t>(storage.get());
    p = (p + var->alignment - 1) / var->alignment * var->alignment;
    std::memcpy(reinterpret_cast<void *>(p), var->initializer.data(),
                std::min<uint64_t>(var->initializer.size(), bytes));
    var->address = p;
    module_->storage.push_back(std::move(storage));
  }
  moduleVariables_[var->name] = var.get();
  module_->globals.push_back(std::move(var));
  return true;
}

/// `[.align N] [.vN] .type name[dims]... [= initializer] ;` after the space.
bool Parser::parseVariable(Space space, bool isExtern, Variable &var) {
  var.space = space;
  uint64_t vector = 1;
  Type type = Type::None;
  while (peek().kind == Token::Kind::Ident && peek().text[0] == '.') {
    std::string_view m = next().text;
    if (m == ".align") {
      if (!expectNumber(var.alignment))
        return false;
      if (!var.alignment || (var.alignment & (var.alignment - 1)))
        return fail(".align must be a power of two");
    } else if (m == ".v2" || m == ".v4" || m == ".v8") {
      vector = m[2] - '0';
    } else if (m == ".ptr" || m == ".attribute") {
      continue;
    } else {
      type = parseTypeName(m.substr(1));
      if (type == Type::None)
        return fail("unsupported variable modifier '" + std::string(m) + "'");
    }
  }
  if (type == Type::None)
    return fail("variable without a type");
  const Token &name = next();
  if (name.kind != Token::Kind::Ident)
    return fail("expected a variable name", name.line);
  var.name = std::string(name.text);
  uint64_t elements = 1;
  bool unsized = false;
  while (accept('[')) {
    if (accept(']')) {
      unsized = true;
      continue;
    }
    uint64_t n;
    if (!expectNumber(n) || !expect(']'))
      return false;
    elements *= n;
  }
  uint64_t elementBytes = bytesOf(type) * vector;
  var.size = unsized ? 0 : elements * elementBytes;
  var.unsized = unsized;
  if (var.alignment < elementBytes && !unsized && var.alignment == 1 &&
      elementBytes <= 16)
    var.alignment = elementBytes;
  (void)isExtern;
  if (accept('=')) {
    // `= {1, 2, ...}` or `= 5`: integers of the element type; nested braces
    // for multi-dimensional arrays are flattened.
    std::vector<uint64_t> values;
    int depth = 0;
    do {
      const Token &t = next();
      if (t.is('{')) {
        ++depth;
      } else if (t.is('}')) {
        --depth;
      } else if (t.is(',')) {
      } else if (t.kind == Token::Kind::Number || t.is('-')) {
        bool negative = t.is('-');
        const Token &n = negative ? next() : t;
        uint64_t v;
        bool f32, f64;
        if (!parseNumber(n.text, v, f32, f64))
          return fail("bad initializer '" + std::string(n.text) + "'", n.line);
        values.push_back(negative ? uint64_t(0) - v : v);
      } else {
        return fail("unsupported initializer '" + std::string(t.text) + "'",
                    t.line);
      }
    } while (depth > 0);
    var.initializer.resize(values.size() * bytesOf(type));
    for (size_t i = 0; i < values.size(); ++i)
      std::memcpy(var.initializer.data() + i * bytesOf(type), &values[i],
                  bytesOf(type));
    if (unsized)
      var.size = var.initializer.size();
  }
  return expect(';');
}

bool Parser::parseParams(Function &fn, bool isKernel) {
  if (!expect('('))
    return false;
  if (accept(')'))
    return true;
  do {
    const Token &p = next();
    if (!p.isIdent(".param") && !p.isIdent(".reg"))
      return fail("expected .param, found '" + std::string(p.text) + "'",
                  p.line);
    Parameter param;
    Type type = Type::None;
    uint64_t vector = 1;
    while (peek().kind == Token::Kind::Ident && peek().text[0] == '.') {
      std::string_view m = next().text;
      if (m == ".align") {
        uint64_t a;
        if (!expectNumber(a))
          return false;
        param.alignment = uint32_t(a);
      } else if (m == ".ptr" || m == ".global" || m == ".shared" ||
                 m == ".const" || m == ".local") {
        continue;
      } else if (m == ".v2" || m == ".v4") {
        vector = m[2] - '0';
      } else {
        type = parseTypeName(m.substr(1));
        if (type == Type::None)
          return fail("unsupported parameter modifier '" + std::string(m) +
                      "'");
      }
    }
    param.name = std::string(next().text);
    uint64_t elements = 1;
    while (accept('[')) {
      uint64_t n;
      if (!expectNumber(n) || !expect(']'))
        return false;
      elements *= n;
    }
    param.size = uint32_t(bytesOf(type) * vector * elements);
    if (param.alignment < bytesOf(type) * vector && param.alignment == 1)
      param.alignment = bytesOf(type) * vector;
    fn.paramBytes = (fn.paramBytes + param.alignment - 1) / param.alignment *
                    param.alignment;
    param.offset = fn.paramBytes;
    fn.paramBytes += param.size;
    if (isKernel)
      fn.params.push_back(param);
  } while (accept(','));
  return expect(')');
}

bool Parser::parseFunction(bool isEntry) {
  Function fn;
  fn.isEntry = isEntry;
  if (!isEntry && peek().is('(')) {
    // Return parameters: `.func (.param .b32 retval) name (...)`.
    Function returns;
    if (!parseParams(returns, false))
      return false;
  }
  const Token &name = next();
  if (name.kind != Token::Kind::Ident)
    return fail("expected a function name", name.line);
  fn.name = std::string(name.text);
  if (peek().is('(') && !parseParams(fn, isEntry))
    return false;
  // Performance-tuning directives (section 11.4) and .noreturn.
  while (peek().kind == Token::Kind::Ident && peek().text[0] == '.') {
    const Token &d = next();
    if (d.text == ".maxntid" || d.text == ".reqntid") {
      for (int i = 0; i < 3; ++i) {
        uint64_t v;
        if (!expectNumber(v))
          return false;
        fn.maxThreads[i] = uint32_t(v);
        if (!accept(','))
          break;
      }
    } else if (d.text == ".minnctapersm") {
      uint64_t v;
      if (!expectNumber(v))
        return false;
      fn.minBlocksPerSM = uint32_t(v);
    } else if (d.text == ".pragma") {
      skipLine(d.line);
      accept(';');
    } else {
      // .maxnreg, .maxnctapersm, .explicitcluster,
      // .reqnctapercluster, .maxclusterrank, .noreturn: scheduling hints.
      while (peek().kind == Token::Kind::Number || peek().is(','))
        next();
    }
  }
  if (accept(';'))
    return true; // a declaration (e.g. vprintf)
  fn.staticSharedBytes = module_->sharedBytes;
  if (!isEntry) {
    // Device functions are inlined by every producer Quilt runs; a body
    // would need a call stack the executor does not have.
    return fail("function '" + fn.name +
                    "' has a body: the emulator runs kernels without calls "
                    "to device functions",
                name.line);
  }
  if (!parseBody(fn))
    return false;
  module_->functions[fn.name] = std::move(fn);
  return true;
}

bool Parser::parseBody(Function &fn) {
  if (!peek().is('{'))
    return fail("expected the function body");
  scopes_.clear();
  operandIndex_ = 0;
  uint32_t startLine = peek().line;
  // The first '{' opens the function's scope; parseStatement handles the
  // nested ones.
  next();
  scopes_.emplace_back();
  // Kernel parameters are names in the outermost scope.
  while (!scopes_.empty()) {
    if (peek().kind == Token::Kind::End)
      return fail("unterminated body of '" + fn.name + "'", startLine);
    if (!parseStatement(fn))
      return false;
  }
  placeDynamicShared(fn);
  fn.reconvergence = reconvergencePoints(fn);
  return true;
}

bool Parser::closeScope(Function &fn) {
  Scope scope = std::move(scopes_.back());
  scopes_.pop_back();
  for (LabelFixup &fixup : scope.fixups) {
    auto it = scope.labels.find(fixup.name);
    if (it != scope.labels.end()) {
      fn.code[fixup.instruction].operands[fixup.operand].imm = it->second;
      continue;
    }
    if (scopes_.empty())
      return fail("undefined label '" + fixup.name + "'", fixup.line);
    scopes_.back().fixups.push_back(std::move(fixup));
  }
  return true;
}

bool Parser::parseStatement(Function &fn) {
  const Token &t = peek();
  if (t.is('{')) {
    next();
    scopes_.emplace_back();
    return true;
  }
  if (t.is('}')) {
    next();
    return closeScope(fn);
  }
  if (t.is(';')) {
    next();
    return true;
  }
  if (t.kind == Token::Kind::Ident && peek(1).is(':')) {
    // A label: it names the next instruction.
    next();
    next();
    scopes_.back().labels[std::string(t.text)] = uint32_t(fn.code.size());
    return true;
  }
  if (t.isIdent(".reg"))
    return parseRegisterDecl(fn);
  if (t.isIdent(".loc") || t.isIdent(".pragma") || t.isIdent(".file")) {
    next();
    skipLine(t.line);
    accept(';');
    return true;
  }
  if (t.isIdent(".local") || t.isIdent(".shared") || t.isIdent(".param")) {
    next();
    Space space = t.text == ".local"    ? Space::Local
                  : t.text == ".shared" ? Space::Shared
                                        : Space::Param;
    auto var = std::make_unique<Variable>();
    if (!parseVariable(space, false, *var))
      return false;
    uint64_t align = var->alignment;
    uint64_t *cursor = space == Space::Local    ? &fn.localBytes
                       : space == Space::Shared ? &fn.staticSharedBytes
                                                : nullptr;
    if (space == Space::Param) {
      uint64_t offset =
          (fn.paramBytes + fn.scratchParamBytes + align - 1) / align * align;
      var->address = offset;
      fn.scratchParamBytes = uint32_t(offset + var->size - fn.paramBytes);
    } else if (space == Space::Shared && var->unsized) {
      var->address = 0; // the start of dynamic shared memory
    } else {
      *cursor = (*cursor + align - 1) / align * align;
      var->address = *cursor;
      *cursor += var->size;
    }
    scopes_.back().variables[var->name] = var.get();
    module_->globals.push_back(std::move(var));
    return true;
  }
  return parseInstruction(fn);
}

bool Parser::parseRegisterDecl(Function &fn) {
  next(); // .reg
  while (peek().kind == Token::Kind::Ident && peek().text[0] == '.')
    next(); // type and vector modifiers: registers hold 64 bits here
  do {
    const Token &name = next();
    if (name.kind != Token::Kind::Ident)
      return fail("expected a register name", name.line);
    RegisterRange range;
    range.first = fn.numRegisters;
    if (accept('<')) {
      uint64_t n;
      if (!expectNumber(n) || !expect('>'))
        return false;
      range.count = uint32_t(n);
      fn.numRegisters += uint32_t(n);
      for (uint64_t i = 0; i < n; ++i)
        fn.registerNames.push_back(std::string(name.text) + std::to_string(i));
    } else {
      fn.numRegisters += 1;
      fn.registerNames.push_back(std::string(name.text));
    }
    scopes_.back().registers[std::string(name.text)] = range;
  } while (accept(','));
  return expect(';');
}

bool Parser::lookupName(Function &fn, Instruction &inst, std::string_view name,
                        Operand &op, uint32_t line) {
  std::string key(name);
  // Registers: exact names first (`p`, `%SP`), then `%r<N>` ranges.
  size_t digits = key.size();
  while (digits > 0 &&
         std::isdigit(static_cast<unsigned char>(key[digits - 1])))
    --digits;
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto it = scope->registers.find(key);
    if (it != scope->registers.end() && it->second.count == 0) {
      op.kind = Operand::Kind::Reg;
      op.reg = it->second.first;
      return true;
    }
    if (digits < key.size() && digits > 0) {
      auto range = scope->registers.find(key.substr(0, digits));
      if (range != scope->registers.end() && range->second.count > 0) {
        uint64_t index = std::strtoull(key.c_str() + digits, nullptr, 10);
        if (index >= range->second.count)
          return fail("register '" + key + "' is outside its declaration " +
                          key.substr(0, digits) + "<" +
                          std::to_string(range->second.count) + ">",
                      line);
        op.kind = Operand::Kind::Reg;
        op.reg = range->second.first + uint32_t(index);
        return true;
      }
    }
  }
  if (parseSpecial(name, op.special)) {
    op.kind = Operand::Kind::Special;
    return true;
  }
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto it = scope->variables.find(key);
    if (it != scope->variables.end()) {
      symbolOperand(*it->second, op);
      return true;
    }
  }
  auto global = moduleVariables_.find(key);
  if (global != moduleVariables_.end()) {
    symbolOperand(*global->second, op);
    return true;
  }
  for (const Parameter &param : fn.params)
    if (param.name == key) {
      op.kind = Operand::Kind::Symbol;
      op.space = Space::Param;
      op.imm = param.offset;
      return true;
    }
  if (inst.op == Op::Bra) {
    op.kind = Operand::Kind::Label;
    scopes_.back().fixups.push_back(
        {uint32_t(fn.code.size()), operandIndex_, key, line});
    return true;
  }
  if (inst.op == Op::Call) {
    // The callee: only vprintf is provided (see Executor.cpp).
    op.kind = Operand::Kind::Label;
    op.imm = 0;
    if (key != "vprintf")
      return fail("call to '" + key + "': the emulator provides only vprintf",
                  line);
    return true;
  }
  return fail("unknown name '" + key + "'", line);
}

bool Parser::parseAddress(Function &fn, Instruction &inst, Operand &op) {
  op.kind = Operand::Kind::Address;
  const Token &t = next();
  uint32_t line = t.line;
  if (t.kind == Token::Kind::Ident) {
    Operand base;
    if (!lookupName(fn, inst, t.text, base, line))
      return false;
    if (base.kind == Operand::Kind::Reg) {
      op.hasBase = true;
      op.reg = base.reg;
    } else if (base.kind == Operand::Kind::Symbol) {
      // A symbol's address in its own space: ld.param [p], ld.shared [s].
      op.space = base.space;
      op.imm = base.imm;
      op.dynamicShared = base.dynamicShared;
    } else {
      return fail("'" + std::string(t.text) + "' cannot be an address", line);
    }
  } else if (t.kind == Token::Kind::Number) {
    bool f32, f64;
    if (!parseNumber(t.text, op.imm, f32, f64) || f32 || f64)
      return fail("bad address '" + std::string(t.text) + "'", line);
  } else {
    return fail("bad address", line);
  }
  // `+imm`, `+-imm` or `-imm`.
  if (peek().is('+') || peek().is('-')) {
    bool negative = next().is('-');
    if (accept('-'))
      negative = !negative;
    uint64_t offset;
    if (!expectNumber(offset))
      return false;
    op.imm += negative ? uint64_t(0) - offset : offset;
  }
  if (accept(',')) {
    // A tensor coordinate vector: [tensorMap, {c0, c1, ...}].
    Operand coords;
    if (!parseOperand(fn, inst, coords))
      return false;
    op.elements.push_back(std::move(coords));
  }
  return expect(']');
}

bool Parser::parseOperand(Function &fn, Instruction &inst, Operand &op) {
  const Token &t = peek();
  uint32_t line = t.line;
  if (t.is('[')) {
    next();
    return parseAddress(fn, inst, op);
  }
  if (t.is('{') || t.is('(')) {
    char close = t.is('{') ? '}' : ')';
    next();
    op.kind = Operand::Kind::Vector;
    if (accept(close))
      return true;
    do {
      Operand element;
      if (!parseOperand(fn, inst, element))
        return false;
      op.elements.push_back(std::move(element));
    } while (accept(','));
    return expect(close);
  }
  if (t.is('!')) {
    next();
    if (!parseOperand(fn, inst, op))
      return false;
    if (op.kind != Operand::Kind::Reg)
      return fail("'!' applies to predicate registers", line);
    op.negated = true;
    return true;
  }
  if (t.is('-') || t.kind == Token::Kind::Number) {
    bool negative = t.is('-');
    if (negative)
      next();
    const Token &n = next();
    uint64_t value;
    bool f32, f64;
    if (n.kind != Token::Kind::Number || !parseNumber(n.text, value, f32, f64))
      return fail("bad number '" + std::string(n.text) + "'", line);
    if (negative)
      value = f32   ? value ^ 0x80000000u
              : f64 ? value ^ 0x8000000000000000ull
                    : uint64_t(0) - value;
    op.kind = Operand::Kind::Imm;
    op.imm = value;
    op.literal = f32   ? Operand::Literal::F32
                 : f64 ? Operand::Literal::F64
                       : Operand::Literal::Integer;
    return true;
  }
  if (t.kind == Token::Kind::Ident) {
    next();
    if (t.text == "_") {
      op.kind = Operand::Kind::Sink;
      return true;
    }
    if (!lookupName(fn, inst, t.text, op, line))
      return false;
    // `%r|%p`: the two destinations of shfl/setp/elect.
    if (peek().is('|')) {
      next();
      Operand first = std::move(op), second;
      if (!parseOperand(fn, inst, second))
        return false;
      op = Operand();
      op.kind = Operand::Kind::Vector;
      op.negated = true; // marks the pipe form
      op.elements.push_back(std::move(first));
      op.elements.push_back(std::move(second));
    }
    return true;
  }
  return fail("unexpected '" + std::string(t.text) + "' in an operand", line);
}

bool Parser::parseInstruction(Function &fn) {
  Instruction inst;
  const Token &first = peek();
  inst.line = first.line;
  if (accept('@')) {
    bool negated = accept('!');
    const Token &p = next();
    Operand guard;
    if (!lookupName(fn, inst, p.text, guard, p.line))
      return false;
    if (guard.kind != Operand::Kind::Reg)
      return fail("a guard must be a predicate register", p.line);
    inst.guarded = true;
    inst.guardNegated = negated;
    inst.guardReg = guard.reg;
  }
  const Token &opcode = next();
  if (opcode.kind != Token::Kind::Ident)
    return fail("expected an instruction, found '" + std::string(opcode.text) +
                    "'",
                opcode.line);
  std::string why;
  if (!decodeOpcode(opcode.text, inst, why))
    return fail(why, opcode.line);
  operandIndex_ = 0;
  while (!peek().is(';')) {
    if (peek().kind == Token::Kind::End)
      return fail("missing ';'", inst.line);
    Operand op;
    if (!parseOperand(fn, inst, op))
      return false;
    inst.operands.push_back(std::move(op));
    ++operandIndex_;
    if (!accept(','))
      break;
  }
  if (!expect(';'))
    return false;
  convertLiterals(inst);
  fn.code.push_back(std::move(inst));
  return true;
}

/// PTX ISA 4.5.1: floating-point constants are converted to the type of the
/// instruction that uses them (cvt: its source type); a 0f literal in an
/// f64 instruction is widened. Bit-typed instructions take the bits.
void Parser::convertLiterals(Instruction &inst) {
  for (size_t i = 0; i < inst.operands.size(); ++i) {
    Operand &op = inst.operands[i];
    if (op.kind != Operand::Kind::Imm ||
        op.literal == Operand::Literal::Integer)
      continue;
    Type type = inst.op == Op::Cvt && i == 1 ? inst.type2 : inst.type;
    if (type == Type::F32 && op.literal == Operand::Literal::F64) {
      double d;
      std::memcpy(&d, &op.imm, 8);
      float f = float(d);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      op.imm = bits;
    } else if (type == Type::F64 && op.literal == Operand::Literal::F32) {
      uint32_t bits = uint32_t(op.imm);
      float f;
      std::memcpy(&f, &bits, 4);
      double d = f;
      std::memcpy(&op.imm, &d, 8);
    }
  }
}

/// Unsized `.extern .shared` arrays all start where the CTA's dynamic
/// shared memory does: after the kernel's static shared variables, at a
/// 16-byte boundary (Cta's layout).
void Parser::placeDynamicShared(Function &fn) {
  uint64_t start = (fn.staticSharedBytes + 15) / 16 * 16;
  std::function<void(Operand &)> place = [&](Operand &op) {
    if (op.dynamicShared) {
      op.imm += start;
      op.dynamicShared = false;
    }
    for (Operand &e : op.elements)
      place(e);
  };
  for (Instruction &inst : fn.code)
    for (Operand &op : inst.operands)
      place(op);
}

} // namespace

std::unique_ptr<Module> parsePtx(std::string_view text, std::string &error) {
  error.clear();
  Parser parser(text, error);
  return parser.run();
}

} // namespace quilt::emu
