//===- Decoder.cpp - AMDGCN machine code to Instructions ------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Decoder.h"
#include "Semantics.h"

#include "VectorAlu.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <map>
#include <set>
#include <memory>
#include <mutex>

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUDisassembler();
}

using namespace llvm;

namespace quilt::amdgcn {
namespace {

Error fail(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// v_fma_mix* / v_mad_mix*: f32 sources unless op_sel_hi says f16.
bool isMixedPrecision(StringRef mnemonic) {
  return mnemonic.starts_with("v_fma_mix") || mnemonic.starts_with("v_mad_mix");
}

/// The type an instruction's constants are encoded in: the type suffix
/// that names its sources (the last one: v_cvt_f32_f16 reads f16).
enum class SourceType { Int, F16, F32, F64, PackedF16, PackedF32 };

SourceType sourceType(StringRef mnemonic) {
  SmallVector<StringRef, 8> parts;
  mnemonic.split(parts, '_');
  bool packed = mnemonic.starts_with("v_pk_");
  if (isMixedPrecision(mnemonic))
    return SourceType::F32;
  // The MFMA/WMMA names end in their input type (f16, bf16, ...) but take
  // no constants that matter; their accumulator is f32.
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (*it == "f16")
      return packed ? SourceType::PackedF16 : SourceType::F16;
    if (*it == "f32")
      return packed ? SourceType::PackedF32 : SourceType::F32;
    if (*it == "f64")
      return SourceType::F64;
    if (*it == "b32" || *it == "u32" || *it == "i32" || *it == "b64" ||
        *it == "u64" || *it == "i64" || *it == "b16" || *it == "u16" ||
        *it == "i16" || *it == "bf16")
      return SourceType::Int;
  }
  return SourceType::Int;
}

uint64_t encodeFloat(double value, StringRef spelling, SourceType type) {
  // 1/(2*pi) is an inline constant of its own in each width.
  bool invTwoPi = spelling == "0.15915494";
  switch (type) {
  case SourceType::F64:
    return invTwoPi ? 0x3fc45f306dc9c882ull : bitsF64(value);
  case SourceType::F16:
  case SourceType::PackedF16: {
    uint64_t h = invTwoPi ? 0x3118 : emu::f64ToF16(value, emu::Rounding::NearestEven);
    return type == SourceType::PackedF16 ? h | (h << 16) : h;
  }
  case SourceType::PackedF32: {
    uint64_t f = invTwoPi ? 0x3e22f983 : bitsF32(float(value));
    return f | (f << 32);
  }
  default:
    return invTwoPi ? 0x3e22f983 : bitsF32(float(value));
  }
}

/// Registers: s5, s[4:5], v[0:3], a7, vcc, exec_lo, m0, null, ...
bool parseRegister(StringRef token, Operand &op) {
  static const std::map<std::string, std::pair<uint16_t, uint8_t>> named = {
      {"vcc", {kVccLo, 2}},   {"vcc_lo", {kVccLo, 1}}, {"vcc_hi", {kVccHi, 1}},
      {"exec", {kExecLo, 2}}, {"exec_lo", {kExecLo, 1}},
      {"exec_hi", {kExecHi, 1}}, {"m0", {kM0, 1}},     {"null", {kNull, 1}},
  };
  if (auto it = named.find(token.str()); it != named.end()) {
    op.kind = OperandKind::Scalar;
    op.index = it->second.first;
    op.count = it->second.second;
    return true;
  }
  // Trap temporaries (the code LLVM puts after s_trap uses them).
  unsigned ttmp;
  if (token.starts_with("ttmp") && !token.drop_front(4).getAsInteger(10, ttmp) &&
      ttmp < 16) {
    op.kind = OperandKind::Scalar;
    op.index = kTtmp0 + ttmp;
    op.count = 1;
    return true;
  }
  if (token == "scc") {
    op.kind = OperandKind::Scc;
    return true;
  }
  if (token == "off") {
    op.kind = OperandKind::Off;
    return true;
  }
  if (token.size() > 2 && token[0] == 'v' &&
      (token.ends_with(".l") || token.ends_with(".h"))) {
    bool high = token.ends_with(".h");
    if (!parseRegister(token.drop_back(2), op) || op.count != 1)
      return false;
    op.half = high ? 2 : 1;
    return true;
  }
  char file = token.empty() ? 0 : token[0];
  if (file != 's' && file != 'v' && file != 'a')
    return false;
  StringRef rest = token.drop_front();
  unsigned first = 0, last = 0;
  if (rest.consume_front("[")) {
    auto [lo, hi] = rest.split(':');
    if (!hi.consume_back("]") || lo.getAsInteger(10, first) ||
        hi.getAsInteger(10, last) || last < first)
      return false;
  } else if (rest.getAsInteger(10, first)) {
    return false;
  } else {
    last = first;
  }
  op.count = last - first + 1;
  if (file == 's') {
    if (last >= kVccLo)
      return false;
    op.kind = OperandKind::Scalar;
    op.index = first;
  } else {
    if (last >= 256)
      return false;
    op.kind = OperandKind::Vector;
    op.index = first + (file == 'a' ? kAgprBase : 0);
  }
  return true;
}

Error parseOperand(StringRef token, SourceType type, Operand &op) {
  StringRef original = token;
  // lit(x): a literal that the encoding keeps as one although an inline
  // constant has its value; the value is what matters here.
  if ((token.consume_front("lit(") || token.consume_front("lit64(")) &&
      !token.consume_back(")"))
    return fail("unreadable operand '" + original + "'");
  if (token.consume_front("sext(")) {
    if (!token.consume_back(")"))
      return fail("unreadable operand '" + original + "'");
    op.sext = true;
  }
  if (token.consume_front("-"))
    op.neg = true;
  if (token.starts_with("|") && token.ends_with("|")) {
    op.abs = true;
    token = token.drop_front().drop_back();
  }
  if (op.neg && token.consume_front("-")) // "--1.0" never; a literal "-1"
    op.neg = false;
  if (parseRegister(token, op))
    return Error::success();
  // Constants. A leading '-' was taken as a modifier: put it back.
  StringRef number = token;
  bool negative = op.neg;
  op.neg = false;
  op.kind = OperandKind::Constant;
  if (number.contains('.')) {
    double value;
    if (number.getAsDouble(value))
      return fail("unreadable constant '" + original + "'");
    op.bits = encodeFloat(negative ? -value : value, number, type);
    return Error::success();
  }
  uint64_t magnitude;
  bool hex = number.starts_with("0x");
  if (number.getAsInteger(0, magnitude))
    return fail("unknown operand '" + original + "'");
  if (negative) {
    op.bits = uint64_t(-int64_t(magnitude));
  } else if (hex && type == SourceType::F64 && magnitude <= 0xffffffffull) {
    // A 32-bit literal of an f64 operand is its high half.
    op.bits = magnitude << 32;
  } else if (hex && (type == SourceType::PackedF32) && magnitude <= 0xffffffffull) {
    op.bits = magnitude | (magnitude << 32);
  } else {
    op.bits = magnitude;
  }
  return Error::success();
}

Error parseBitList(StringRef value, uint8_t &bits) {
  if (!value.consume_front("[") || !value.consume_back("]"))
    return fail("unreadable modifier list '" + value + "'");
  SmallVector<StringRef, 4> items;
  value.split(items, ',');
  bits = 0;
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].trim() == "1")
      bits |= 1u << i;
  return Error::success();
}

/// Modifiers after the operands: offset:16, glc, op_sel:[0,1], ...
/// Returns false (no error) when the token is not a modifier at all.
Expected<bool> parseModifier(StringRef token, Instruction &in) {
  auto [key, value] = token.split(':');
  bool hasValue = token.contains(':');
  auto integer = [&](int32_t &out) -> Error {
    int64_t v;
    if (value.getAsInteger(0, v))
      return fail("unreadable modifier '" + token + "'");
    out = int32_t(v);
    return Error::success();
  };
  if (hasValue) {
    int32_t v = 0;
    if (key == "offset" || key == "offset0")
      return integer(in.offset) ? Expected<bool>(fail("bad offset")) : true;
    if (key == "offset1")
      return integer(in.offset1) ? Expected<bool>(fail("bad offset1")) : true;
    if (key == "op_sel") {
      if (auto e = parseBitList(value, in.opSel))
        return std::move(e);
      return true;
    }
    if (key == "op_sel_hi") {
      if (auto e = parseBitList(value, in.opSelHi))
        return std::move(e);
      return true;
    }
    if (key == "neg_lo") {
      if (auto e = parseBitList(value, in.negLo))
        return std::move(e);
      return true;
    }
    if (key == "neg_hi") {
      if (auto e = parseBitList(value, in.negHi))
        return std::move(e);
      return true;
    }
    if (key == "cbsz" || key == "abid" || key == "blgp") {
      if (auto e = integer(v))
        return std::move(e);
      (key == "cbsz" ? in.cbsz : key == "abid" ? in.abid : in.blgp) = uint8_t(v);
      return true;
    }
    if (key == "dst_sel" || key == "src0_sel" || key == "src1_sel") {
      static const std::pair<const char *, uint8_t> selections[] = {
          {"BYTE_0", 0}, {"BYTE_1", 1}, {"BYTE_2", 2}, {"BYTE_3", 3},
          {"WORD_0", 4}, {"WORD_1", 5}, {"DWORD", kSelectDword}};
      for (const auto &[name, select] : selections)
        if (value == name) {
          (key == "dst_sel"    ? in.dstSel
           : key == "src0_sel" ? in.srcSel[0]
                               : in.srcSel[1]) = select;
          return true;
        }
      return fail("unreadable modifier '" + token + "'");
    }
    if (key == "dst_unused") {
      if (value == "UNUSED_PAD")
        in.dstUnused = kUnusedPad;
      else if (value == "UNUSED_SEXT")
        in.dstUnused = kUnusedSext;
      else if (value == "UNUSED_PRESERVE")
        in.dstUnused = kUnusedPreserve;
      else
        return fail("unreadable modifier '" + token + "'");
      return true;
    }
    if (key == "mul" || key == "div") {
      if (auto e = integer(v))
        return std::move(e);
      in.outputScale = key == "div" ? -1 : v == 2 ? 1 : 2;
      return true;
    }
    return fail("unsupported modifier '" + token + "'");
  }
  if (token == "glc" || token == "sc0") {
    in.flags |= kGlc;
    return true;
  }
  if (token == "slc" || token == "sc1" || token == "nt" || token == "dlc") {
    in.flags |= kSlc;
    return true;
  }
  if (token == "clamp") {
    in.flags |= kClamp;
    return true;
  }
  if (token == "offen") {
    in.flags |= kOffen;
    return true;
  }
  if (token == "idxen") {
    in.flags |= kIdxen;
    return true;
  }
  if (token == "addr64" || token == "lds" || token == "gds" ||
      token == "tfe" || token == "lwe")
    return fail("unsupported modifier '" + token + "'");
  return false;
}

struct Machine {
  std::unique_ptr<MCRegisterInfo> registers;
  std::unique_ptr<MCAsmInfo> asmInfo;
  std::unique_ptr<MCSubtargetInfo> subtarget;
  std::unique_ptr<MCInstrInfo> instrInfo;
  std::unique_ptr<MCContext> context;
  std::unique_ptr<MCDisassembler> disassembler;
  std::unique_ptr<MCInstPrinter> printer;
};

Expected<Machine *> machineFor(const std::string &processor) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Machine>> machines;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = machines.find(processor); it != machines.end())
    return it->second.get();
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
  });
  Triple triple("amdgcn-amd-amdhsa");
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return fail("LLVM has no AMDGPU target: " + error);
  auto m = std::make_unique<Machine>();
  m->registers.reset(target->createMCRegInfo(triple));
  MCTargetOptions options;
  m->asmInfo.reset(target->createMCAsmInfo(*m->registers, triple, options));
  m->subtarget.reset(target->createMCSubtargetInfo(triple, processor, ""));
  m->instrInfo.reset(target->createMCInstrInfo());
  if (!m->registers || !m->asmInfo || !m->subtarget || !m->instrInfo)
    return fail("LLVM cannot describe " + processor);
  m->context = std::make_unique<MCContext>(triple, m->asmInfo.get(),
                                           m->registers.get(),
                                           m->subtarget.get());
  m->disassembler.reset(
      target->createMCDisassembler(*m->subtarget, *m->context));
  m->printer.reset(target->createMCInstPrinter(
      triple, 0, *m->asmInfo, *m->instrInfo, *m->registers));
  if (!m->disassembler || !m->printer)
    return fail("LLVM's AMDGPU disassembler is not available");
  Machine *raw = m.get();
  machines[processor] = std::move(m);
  return raw;
}

/// Runs a VOPD pair: X (decoded to write the temporary) on a copy of its
/// destination, which v_dual_fmac accumulates into, then Y, then X's
/// result home. in.ops[0] is X's real destination.
void dualIssue(Wave &w, const Instruction &in) {
  uint32_t *temporary = w.vreg(kDualIssueTemporary);
  uint32_t *destination = w.vreg(in.ops[0].index);
  std::copy(destination, destination + 64, temporary);
  in.dualX->handler(w, *in.dualX);
  in.dualY->handler(w, *in.dualY);
  std::copy(temporary, temporary + 64, destination);
}

Expected<Instruction> parseDualIssue(StringRef text);

/// The bits an SDWA selection other than DWORD names.
struct SelectedField {
  unsigned bits, shift;
  explicit SelectedField(uint8_t select)
      : bits(select < kSelectWord0 ? 8 : 16),
        shift(select < kSelectWord0 ? 8 * select
                                    : 16 * (select - kSelectWord0)) {}
};

uint32_t selectField(uint32_t value, uint8_t select, bool signExtend) {
  if (select == kSelectDword)
    return value;
  SelectedField f(select);
  uint32_t field = (value >> f.shift) & ((1u << f.bits) - 1);
  if (signExtend && (field >> (f.bits - 1)))
    field |= ~0u << f.bits;
  return field;
}

/// SDWA: each source's selected byte or word, zero- or sign-extended, in a
/// temporary; the operation on the temporaries; a vector result placed in
/// the destination's selected field, the other bits padded with zeros,
/// sign-extended from the field or preserved.
void subDword(Wave &w, const Instruction &in) {
  const Instruction &op = *in.subDword;
  bool vectorResult = in.ops[0].kind == OperandKind::Vector;
  for (unsigned i = 0; i + 1 < in.numOperands; ++i) {
    uint32_t *temporary = w.vreg(kSubDwordTemporary + i);
    for (unsigned l = 0; l < w.width; ++l)
      temporary[l] = selectField(read32(w, in.ops[1 + i], l), in.srcSel[i],
                                 in.ops[1 + i].sext);
  }
  op.handler(w, op);
  if (!vectorResult)
    return; // VOPC: the operation wrote its lane mask
  const uint32_t *result = w.vreg(kSubDwordTemporary + 2);
  uint32_t *destination = w.vreg(in.ops[0].index);
  if (in.dstSel == kSelectDword) {
    forEachActiveLane(w, [&](unsigned l) { destination[l] = result[l]; });
    return;
  }
  SelectedField f(in.dstSel);
  uint32_t fieldMask = ((1u << f.bits) - 1) << f.shift;
  unsigned top = f.shift + f.bits; // the first bit above the field
  forEachActiveLane(w, [&](unsigned l) {
    uint32_t placed = (result[l] << f.shift) & fieldMask;
    if (in.dstUnused == kUnusedPreserve)
      placed |= destination[l] & ~fieldMask;
    else if (in.dstUnused == kUnusedSext && ((placed >> (top - 1)) & 1))
      placed |= top < 32 ? ~0u << top : 0;
    destination[l] = placed;
  });
}

/// The operation of an SDWA instruction, on temporaries: its sources
/// (after the destination) and a vector destination. Forms with a carry
/// (VCC among the operands) are refused, as unimplemented.
Expected<Instruction> wrapSubDword(Instruction in, StringRef mnemonic) {
  // VOPC writes VCC as its destination; VOP2 forms that read or write a
  // carry name VCC among the rest.
  bool vectorResult = in.ops[0].kind == OperandKind::Vector;
  bool carry = in.numOperands > 3;
  for (unsigned i = 1; vectorResult && i < in.numOperands; ++i)
    carry |= in.ops[i].kind == OperandKind::Scalar && in.ops[i].index == kVccLo;
  if (carry || in.numOperands < 2)
    return fail("instruction '" + mnemonic + "_sdwa' is not implemented by "
                "the emulator");
  auto op = std::make_shared<Instruction>(in);
  for (unsigned i = 1; i < in.numOperands; ++i) {
    Operand &source = op->ops[i];
    source.kind = OperandKind::Vector;
    source.index = uint16_t(kSubDwordTemporary + i - 1);
    source.count = 1;
    source.sext = false;
  }
  if (vectorResult)
    op->ops[0].index = uint16_t(kSubDwordTemporary + 2);
  in.subDword = std::move(op);
  in.handler = subDword;
  return in;
}

} // namespace

Unit unitOf(StringRef m) {
  if (m.starts_with("v_mfma") || m.starts_with("v_smfmac") ||
      m.starts_with("v_wmma"))
    return Unit::Matrix;
  if (m.starts_with("v_"))
    return Unit::Valu;
  if (m.starts_with("ds_"))
    return Unit::Lds;
  if (m.starts_with("global_") || m.starts_with("flat_") ||
      (m.starts_with("buffer_") && (m.contains("load") || m.contains("store") ||
                                    m.contains("atomic"))))
    return m.contains("_load") ? Unit::GlobalLoad : Unit::GlobalStore;
  if (m.starts_with("scratch_"))
    return Unit::Scratch;
  if (m.starts_with("s_load") || m.starts_with("s_buffer_load") ||
      m.starts_with("s_store"))
    return Unit::ScalarMemory;
  if (m == "s_barrier")
    return Unit::Barrier;
  if (m.starts_with("s_branch") || m.starts_with("s_cbranch") ||
      m.starts_with("s_waitcnt") || m.starts_with("s_barrier") ||
      m == "s_endpgm" || m == "s_nop" || m == "s_delay_alu" ||
      m == "s_clause" || m == "s_trap" || m.starts_with("s_sendmsg") ||
      m.starts_with("s_set") || m == "s_sleep" || !m.starts_with("s_"))
    return Unit::Control;
  return Unit::Salu;
}

std::string baseMnemonic(const std::string &mnemonic) {
  StringRef m(mnemonic);
  for (StringRef suffix : {"_e32", "_e64", "_sdwa"})
    if (m.consume_back(suffix))
      break;
  return m.str();
}

/// VOPD: "v_dual_mov_b32 v1, v2 :: v_dual_add_f32 v3, v4, v5" runs both
/// halves as the VOP2 instructions they are, the X result held in a
/// temporary until Y has read its sources.
namespace {
Expected<Instruction> parseDualIssue(StringRef text) {
  auto [x, y] = text.split(" :: ");
  auto half = [](StringRef part) -> Expected<Instruction> {
    part = part.trim();
    if (!part.consume_front("v_dual_"))
      return fail("unreadable dual-issue half '" + part + "'");
    return parseInstruction(("v_" + part).str());
  };
  auto first = half(x);
  if (!first)
    return first.takeError();
  auto second = half(y);
  if (!second)
    return second.takeError();
  Instruction in;
  in.text = text.str();
  in.handler = dualIssue;
  in.unit = Unit::Valu;
  first->text = in.text;
  second->text = in.text;
  in.ops[0] = first->ops[0];
  in.numOperands = 1;
  first->ops[0].index = kDualIssueTemporary;
  in.dualX = std::make_shared<Instruction>(std::move(*first));
  in.dualY = std::make_shared<Instruction>(std::move(*second));
  return in;
}

} // namespace

Expected<Instruction> parseInstruction(const std::string &printed) {
  Instruction in;
  StringRef text = StringRef(printed).trim();
  if (text.contains(" :: "))
    return parseDualIssue(text);
  in.text = text.str();
  auto [mnemonicRef, rest] = text.split(' ');
  std::string mnemonic = baseMnemonic(mnemonicRef.str());
  const HandlerTable &table = handlers();
  auto found = table.find(mnemonic);
  if (found == table.end())
    return fail("instruction '" + mnemonic + "' is not implemented by the "
                "emulator");
  in.handler = found->second.handler;
  in.unit = unitOf(mnemonic);
  if (found->second.isBranch)
    in.flags |= kBranch;
  // op_sel_hi is printed when it differs from its default: all ones for
  // packed math, all zeros (f32 sources) for the mixed-precision FMAs.
  if (isMixedPrecision(mnemonic))
    in.opSelHi = 0;
  if (found->second.ignoresOperands)
    return in;
  SourceType type = sourceType(mnemonic);
  SmallVector<StringRef, 12> tokens;
  rest.trim().split(tokens, ' ', -1, /*KeepEmpty=*/false);
  bool inOperands = true;
  for (StringRef token : tokens) {
    if (inOperands) {
      bool more = token.consume_back(",");
      // The last operand is followed by modifiers, which are never
      // operands: try them first.
      Operand probe;
      StringRef bare = token;
      bare.consume_front("-");
      if (!more && !parseRegister(bare.trim('|'), probe)) {
        auto modifier = parseModifier(token, in);
        if (!modifier)
          return modifier.takeError();
        if (*modifier) {
          inOperands = false;
          continue;
        }
      }
      if (in.numOperands == std::size(in.ops))
        return fail("too many operands in '" + text + "'");
      if (auto e = parseOperand(token, type, in.ops[in.numOperands++]))
        return std::move(e);
      if (!more)
        inOperands = false;
      continue;
    }
    auto modifier = parseModifier(token, in);
    if (!modifier)
      return modifier.takeError();
    if (!*modifier)
      return fail("unexpected '" + token + "' in '" + text + "'");
  }
  // gfx11 prints a VOP3 16-bit operand's half twice, as v#.h and as its
  // op_sel bit; the operand's half is what read32/write32 honour.
  for (unsigned i = 0; i < in.numOperands; ++i)
    if (in.ops[i].half)
      in.opSel = 0;
  if (mnemonicRef.ends_with("_sdwa"))
    return wrapSubDword(std::move(in), mnemonic);
  return in;
}

Expected<std::vector<Instruction>>
decodeKernel(const std::string &processor, const std::vector<uint8_t> &code) {
  auto machine = machineFor(processor);
  if (!machine)
    return machine.takeError();
  Machine &m = **machine;
  std::vector<Instruction> result;
  result.reserve(code.size() / 4); // at most one instruction a word
  std::map<uint32_t, uint32_t> indexOfAddress;
  std::set<std::string> missing;
  ArrayRef<uint8_t> bytes(code);
  for (uint64_t address = 0; address < bytes.size();) {
    MCInst inst;
    uint64_t size = 0;
    auto status = m.disassembler->getInstruction(
        inst, size, bytes.slice(address), address, nulls());
    if (status != MCDisassembler::Success || size == 0) {
      // Padding after s_endpgm (s_code_end) can be undecodable words.
      if (!result.empty() && size == 0)
        size = 4;
      if (status != MCDisassembler::Success) {
        // Kernels end with s_endpgm; trailing words that are not code
        // cannot be reached.
        address += size ? size : 4;
        continue;
      }
    }
    std::string printed;
    raw_string_ostream os(printed);
    m.printer->printInst(&inst, address, "", *m.subtarget, os);
    os.flush();
    auto in = parseInstruction(printed);
    if (!in) {
      std::string message = toString(in.takeError());
      // Name every unimplemented instruction at once, not the first.
      StringRef prefix = "instruction '";
      if (StringRef(message).starts_with(prefix) &&
          StringRef(message).ends_with("' is not implemented by the emulator")) {
        missing.insert(StringRef(message).drop_front(prefix.size()).split('\'').first.str());
        address += size;
        continue;
      }
      return fail("at offset 0x" + utohexstr(address) + ": " + message);
    }
    in->address = uint32_t(address);
    in->size = uint8_t(size);
    indexOfAddress[uint32_t(address)] = uint32_t(result.size());
    result.push_back(std::move(*in));
    address += size;
  }
  if (!missing.empty()) {
    std::string names;
    for (const std::string &name : missing)
      names += (names.empty() ? "" : ", ") + name;
    return fail("instructions the emulator does not implement: " + names);
  }
  // Branch targets: a signed word offset from the next instruction.
  for (Instruction &in : result) {
    if (!(in.flags & kBranch))
      continue;
    int16_t words = int16_t(uint16_t(in.ops[0].bits));
    int64_t target = int64_t(in.address) + in.size + int64_t(words) * 4;
    auto it = indexOfAddress.find(uint32_t(target));
    if (target < 0 || it == indexOfAddress.end())
      return fail("branch at offset 0x" + utohexstr(in.address) +
                  " to 0x" + utohexstr(uint64_t(target)) +
                  ", which is not an instruction of the kernel");
    in.target = it->second;
  }
  return result;
}

} // namespace quilt::amdgcn
