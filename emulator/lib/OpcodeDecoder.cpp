//===- OpcodeDecoder.cpp - A PTX opcode and its modifiers, decoded --------===//
//
// Part of the Quilt project.
//
// An opcode is its base name followed by dot-separated modifiers (PTX ISA
// section 9.7). The modifiers that only matter to caches, memory ordering or
// scopes are accepted and dropped: the emulator executes one instruction at
// a time over a single coherent memory, which is at least as strong as any
// ordering PTX promises.
//
//===----------------------------------------------------------------------===//

#include "OpcodeDecoder.h"

#include <cstring>
#include <map>
#include <vector>

namespace quilt::emu {
namespace {

std::vector<std::string_view> splitDots(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= s.size()) {
    size_t dot = s.find('.', start);
    if (dot == std::string_view::npos)
      dot = s.size();
    parts.push_back(s.substr(start, dot - start));
    start = dot + 1;
  }
  return parts;
}

bool parseSpace(std::string_view t, Space &space) {
  if (t == "global") {
    space = Space::Global;
  } else if (t == "shared" || t == "shared::cta" || t == "shared::cluster") {
    // A cluster of one CTA: shared::cluster addresses are the CTA's own.
    space = Space::Shared;
  } else if (t == "local") {
    space = Space::Local;
  } else if (t == "param" || t == "param::entry" || t == "param::func") {
    space = Space::Param;
  } else if (t == "const") {
    space = Space::Const;
  } else {
    return false;
  }
  return true;
}

bool parseRounding(std::string_view t, RoundingModifier &r) {
  static const std::map<std::string_view, RoundingModifier> names = {
      {"rn", RoundingModifier::RN},   {"rz", RoundingModifier::RZ},
      {"rm", RoundingModifier::RM},   {"rp", RoundingModifier::RP},
      {"rna", RoundingModifier::RNA}, {"rni", RoundingModifier::RNI},
      {"rzi", RoundingModifier::RZI}, {"rmi", RoundingModifier::RMI},
      {"rpi", RoundingModifier::RPI}};
  auto it = names.find(t);
  if (it == names.end())
    return false;
  r = it->second;
  return true;
}

bool parseCmp(std::string_view t, CmpOp &cmp) {
  static const std::map<std::string_view, CmpOp> names = {
      {"eq", CmpOp::EQ},   {"ne", CmpOp::NE},      {"lt", CmpOp::LT},
      {"le", CmpOp::LE},   {"gt", CmpOp::GT},      {"ge", CmpOp::GE},
      {"lo", CmpOp::LO},   {"ls", CmpOp::LS},      {"hi", CmpOp::HI},
      {"hs", CmpOp::HS},   {"equ", CmpOp::EQU},    {"neu", CmpOp::NEU},
      {"ltu", CmpOp::LTU}, {"leu", CmpOp::LEU},    {"gtu", CmpOp::GTU},
      {"geu", CmpOp::GEU}, {"num", CmpOp::Number}, {"nan", CmpOp::NotANumber}};
  auto it = names.find(t);
  if (it == names.end())
    return false;
  cmp = it->second;
  return true;
}

/// Modifiers about caching, eviction, memory order and scope: no effect on
/// the values a single-threaded interpreter computes.
bool isIgnoredModifier(std::string_view t) {
  static const char *const names[] = {
      "sync",    "aligned", "volatile", "relaxed", "acquire", "release",
      "acq_rel", "weak",    "sc",       "cta",     "gpu",     "sys",
      "cluster", "ca",      "cg",       "cs",      "lu",      "cv",
      "wb",      "wt",      "nc",       "noftz",   "uni"};
  for (const char *name : names)
    if (t == name)
      return true;
  return t.rfind("L1::", 0) == 0 || t.rfind("L2::", 0) == 0 ||
         t.rfind("level::", 0) == 0;
}

/// `m16n8k16` -> 16, 8, 16.
bool parseShape(std::string_view t, int &m, int &n, int &k) {
  if (t.empty() || t[0] != 'm')
    return false;
  int values[3] = {0, 0, 0};
  const char letters[3] = {'m', 'n', 'k'};
  size_t i = 0;
  for (int part = 0; part < 3; ++part) {
    if (i >= t.size() || t[i] != letters[part])
      return false;
    ++i;
    size_t digits = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9')
      values[part] = values[part] * 10 + (t[i++] - '0');
    if (digits == i)
      return false;
  }
  if (i != t.size())
    return false;
  m = values[0];
  n = values[1];
  k = values[2];
  return true;
}

struct Decoder {
  std::string_view opcode;
  Instruction &inst;
  std::string &error;
  std::vector<Type> types;

  bool fail(std::string_view what) {
    error = "unsupported " + std::string(what) + " in '" + std::string(opcode) +
            "'";
    return false;
  }

  /// Takes the generic modifiers; `extra` handles the op's own ones.
  template <typename Extra>
  bool modifiers(const std::vector<std::string_view> &parts, size_t from,
                 Extra extra) {
    for (size_t i = from; i < parts.size(); ++i) {
      std::string_view t = parts[i];
      Type type = parseTypeName(t);
      if (type != Type::None) {
        types.push_back(type);
        continue;
      }
      if (extra(t))
        continue;
      if (parseSpace(t, inst.space))
        continue;
      if (parseRounding(t, inst.rounding))
        continue;
      if (t == "v2" || t == "v4" || t == "v8") {
        inst.vectorWidth = uint8_t(t[1] - '0');
        continue;
      }
      if (t == "ftz") {
        inst.ftz = true;
        continue;
      }
      if (t == "sat" || t == "satfinite") {
        inst.sat = true;
        continue;
      }
      if (t == "approx") {
        inst.approx = true;
        continue;
      }
      if (t == "full") {
        inst.full = true;
        continue;
      }
      if (isIgnoredModifier(t))
        continue;
      return fail("modifier '." + std::string(t) + "'");
    }
    if (!types.empty())
      inst.type = types[0];
    if (types.size() > 1)
      inst.type2 = types[1];
    return true;
  }
  bool plain(const std::vector<std::string_view> &parts, size_t from = 1) {
    return modifiers(parts, from, [](std::string_view) { return false; });
  }
  bool needType() {
    if (inst.type == Type::None)
      return fail("missing type");
    return true;
  }
};

const std::map<std::string_view, Op> &simpleOps() {
  static const std::map<std::string_view, Op> ops = {
      {"add", Op::Add},
      {"sub", Op::Sub},
      {"mul", Op::Mul},
      {"mad", Op::Mad},
      {"mul24", Op::Mul24},
      {"mad24", Op::Mad24},
      {"div", Op::Div},
      {"rem", Op::Rem},
      {"abs", Op::Abs},
      {"neg", Op::Neg},
      {"min", Op::Min},
      {"max", Op::Max},
      {"popc", Op::Popc},
      {"clz", Op::Clz},
      {"brev", Op::Brev},
      {"bfe", Op::Bfe},
      {"bfi", Op::Bfi},
      {"prmt", Op::Prmt},
      {"lop3", Op::Lop3},
      {"and", Op::And},
      {"or", Op::Or},
      {"xor", Op::Xor},
      {"not", Op::Not},
      {"cnot", Op::Cnot},
      {"shl", Op::Shl},
      {"shr", Op::Shr},
      {"fma", Op::Fma},
      {"rcp", Op::Rcp},
      {"sqrt", Op::Sqrt},
      {"rsqrt", Op::Rsqrt},
      {"sin", Op::Sin},
      {"cos", Op::Cos},
      {"lg2", Op::Lg2},
      {"ex2", Op::Ex2},
      {"tanh", Op::Tanh},
      {"copysign", Op::Copysign},
      {"selp", Op::Selp},
      {"slct", Op::Slct},
      {"mov", Op::Mov},
      {"cvt", Op::Cvt},
      {"cvta", Op::Cvta},
      {"ld", Op::Ld},
      {"ldu", Op::Ld},
      {"st", Op::St},
      {"bra", Op::Bra},
      {"call", Op::Call},
      {"ret", Op::Ret},
      {"exit", Op::Exit},
      {"trap", Op::Trap},
      {"atom", Op::Atom},
      {"red", Op::Red},
      {"activemask", Op::Activemask},
      {"isspacep", Op::Isspacep},
      {"nanosleep", Op::Nanosleep},
      {"addc", Op::AddC},
      {"subc", Op::SubC},
      {"madc", Op::MadC}};
  return ops;
}

} // namespace

Type parseTypeName(std::string_view t) {
  static const std::map<std::string_view, Type> names = {
      {"pred", Type::Pred},   {"b8", Type::B8},     {"b16", Type::B16},
      {"b32", Type::B32},     {"b64", Type::B64},   {"b128", Type::B128},
      {"u8", Type::U8},       {"u16", Type::U16},   {"u32", Type::U32},
      {"u64", Type::U64},     {"s8", Type::S8},     {"s16", Type::S16},
      {"s32", Type::S32},     {"s64", Type::S64},   {"f16", Type::F16},
      {"f16x2", Type::F16x2}, {"bf16", Type::BF16}, {"bf16x2", Type::BF16x2},
      {"tf32", Type::TF32},   {"f32", Type::F32},   {"f64", Type::F64}};
  auto it = names.find(t);
  return it == names.end() ? Type::None : it->second;
}

bool decodeOpcode(std::string_view opcode, Instruction &inst,
                  std::string &error) {
  std::vector<std::string_view> parts = splitDots(opcode);
  Decoder d{opcode, inst, error, {}};
  std::string_view base = parts[0];

  if (base == "setp" || base == "set") {
    inst.op = base == "setp" ? Op::Setp : Op::Set;
    if (!d.modifiers(parts, 1, [&](std::string_view t) {
          if (inst.cmp == CmpOp::None && parseCmp(t, inst.cmp))
            return true;
          if (t == "and" || t == "or" || t == "xor") {
            inst.boolOp = t == "and"  ? BoolOp::And
                          : t == "or" ? BoolOp::Or
                                      : BoolOp::Xor;
            return true;
          }
          return false;
        }))
      return false;
    if (inst.cmp == CmpOp::None)
      return d.fail("comparison");
    // set.<cmp>.<dtype>.<stype>: the compared type is the second.
    if (inst.op == Op::Set)
      std::swap(inst.type, inst.type2);
    return d.needType();
  }
  if (base == "slct") {
    inst.op = Op::Slct;
    return d.plain(parts) && d.needType();
  }
  if (base == "mul" || base == "mad" || base == "mul24" || base == "mad24") {
    inst.op = simpleOps().at(base);
    bool cc = false;
    if (!d.modifiers(parts, 1, [&](std::string_view t) {
          if (t == "hi")
            inst.hi = true;
          else if (t == "lo")
            inst.lo = true;
          else if (t == "wide")
            inst.wide = true;
          else if (t == "cc")
            cc = true;
          else
            return false;
          return true;
        }))
      return false;
    if (cc)
      inst.op = Op::MadCC;
    return d.needType();
  }
  if (base == "add" || base == "sub") {
    bool cc = false;
    if (!d.modifiers(parts, 1, [&](std::string_view t) {
          return t == "cc" ? (cc = true) : false;
        }))
      return false;
    inst.op =
        base == "add" ? (cc ? Op::AddCC : Op::Add) : (cc ? Op::SubCC : Op::Sub);
    return d.needType();
  }
  if (base == "shf") {
    inst.op = Op::Shf;
    if (!d.modifiers(parts, 1, [&](std::string_view t) {
          if (t == "l" || t == "r") {
            inst.shiftLeft = t == "l";
            return true;
          }
          if (t == "wrap" || t == "clamp") {
            inst.shiftWrap = t == "wrap";
            return true;
          }
          return false;
        }))
      return false;
    return d.needType();
  }
  if (base == "testp") {
    inst.op = Op::Testp;
    return d.modifiers(parts, 1, [&](std::string_view t) {
      static const char *const kinds[] = {
          "finite", "infinite", "number", "notanumber", "normal", "subnormal"};
      for (int i = 0; i < 6; ++i)
        if (t == kinds[i]) {
          inst.count = i;
          return true;
        }
      return false;
    }) && d.needType();
  }
  if (base == "setmaxnreg") {
    // setmaxnreg.{inc,dec}.sync.aligned.u32 count
    if (parts.size() != 5 || (parts[1] != "inc" && parts[1] != "dec") ||
        parts[2] != "sync" || parts[3] != "aligned" || parts[4] != "u32")
      return d.fail("form of setmaxnreg (.inc or .dec, then "
                    ".sync.aligned.u32)");
    inst.op = Op::SetMaxNReg;
    inst.hi = parts[1] == "inc";
    inst.type = Type::U32;
    return true;
  }
  if (base == "prefetch" || base == "prefetchu" || base == "membar" ||
      base == "fence" || base == "griddepcontrol" || base == "pmevent" ||
      base == "discard" || base == "applypriority") {
    // Memory ordering, cache and register-allocation hints: the emulator's
    // memory is coherent and in program order.
    inst.op = base == "prefetch" ? Op::Prefetch : Op::Nop;
    return true;
  }
  if (base == "bar" || base == "barrier") {
    // bar.sync / bar.red? / bar.arrive / bar.warp.sync / barrier.sync
    if (parts.size() > 1 && parts[1] == "warp") {
      inst.op = Op::BarWarpSync;
      return true;
    }
    if (parts.size() > 1 && parts[1] == "arrive") {
      inst.op = Op::BarArrive;
      return d.plain(parts, 2);
    }
    if (parts.size() == 1 || parts[1] == "sync") {
      inst.op = Op::BarSync;
      return d.plain(parts, parts.size() == 1 ? 1 : 2);
    }
    return d.fail("barrier form");
  }
  if (base == "shfl") {
    inst.op = Op::Shfl;
    return d.modifiers(parts, 1, [&](std::string_view t) {
      if (t == "up")
        inst.shfl = ShflMode::Up;
      else if (t == "down")
        inst.shfl = ShflMode::Down;
      else if (t == "bfly")
        inst.shfl = ShflMode::Bfly;
      else if (t == "idx")
        inst.shfl = ShflMode::Idx;
      else
        return false;
      return true;
    });
  }
  if (base == "vote") {
    inst.op = Op::Vote;
    return d.modifiers(parts, 1, [&](std::string_view t) {
      if (t == "all")
        inst.vote = VoteMode::All;
      else if (t == "any")
        inst.vote = VoteMode::Any;
      else if (t == "uni")
        inst.vote = VoteMode::Uni;
      else if (t == "ballot")
        inst.vote = VoteMode::Ballot;
      else
        return false;
      return true;
    });
  }
  if (base == "elect") {
    inst.op = Op::ElectSync;
    return d.plain(parts);
  }
  if (base == "atom" || base == "red") {
    inst.op = base == "atom" ? Op::Atom : Op::Red;
    if (!d.modifiers(parts, 1, [&](std::string_view t) {
          static const std::map<std::string_view, AtomOp> ops = {
              {"add", AtomOp::Add},   {"min", AtomOp::Min},
              {"max", AtomOp::Max},   {"inc", AtomOp::Inc},
              {"dec", AtomOp::Dec},   {"and", AtomOp::And},
              {"or", AtomOp::Or},     {"xor", AtomOp::Xor},
              {"exch", AtomOp::Exch}, {"cas", AtomOp::Cas}};
          auto it = ops.find(t);
          if (it == ops.end())
            return false;
          inst.atomOp = it->second;
          return true;
        }))
      return false;
    if (inst.atomOp == AtomOp::None)
      return d.fail("atomic operation");
    return d.needType();
  }
  if (base == "cp") {
    // cp.async.{ca,cg}, cp.async.commit_group, cp.async.wait_group,
    // cp.async.wait_all, cp.async.bulk.tensor.<n>d...
    if (parts.size() < 2 || parts[1] != "async")
      return d.fail("copy");
    if (parts.size() > 2 && parts[2] == "commit_group") {
      inst.op = Op::CpAsyncCommit;
      return true;
    }
    if (parts.size() > 2 && parts[2] == "wait_group") {
      inst.op = Op::CpAsyncWait;
      return true;
    }
    if (parts.size() > 2 && parts[2] == "wait_all") {
      inst.op = Op::CpAsyncWaitAll;
      return true;
    }
    if (parts.size() > 3 && parts[2] == "bulk" && parts[3] == "tensor") {
      inst.op = Op::CpAsyncBulkTensor;
      bool fromGlobal = false;
      bool toShared = false;
      for (size_t i = 4; i < parts.size(); ++i) {
        std::string_view t = parts[i];
        if (t.size() == 2 && t[1] == 'd' && t[0] >= '1' && t[0] <= '5')
          inst.count = t[0] - '0';
        else if (t == "shared::cluster" || t == "shared::cta")
          toShared = true;
        else if (t == "global")
          fromGlobal = true;
        else if (t == "tile" || t == "mbarrier::complete_tx::bytes" ||
                 t.rfind("L2::", 0) == 0)
          continue;
        else
          return d.fail("modifier '." + std::string(t) + "'");
      }
      if (!inst.count || !fromGlobal || !toShared)
        return d.fail("tensor copy (only global to shared tile loads)");
      return true;
    }
    inst.op = Op::CpAsync;
    return d.plain(parts, 2);
  }
  if (base == "mbarrier") {
    if (parts.size() < 2)
      return d.fail("mbarrier form");
    std::string_view what = parts[1];
    size_t from = 2;
    if (what == "init") {
      inst.op = Op::MbarInit;
    } else if (what == "inval") {
      inst.op = Op::MbarInval;
    } else if (what == "arrive" && parts.size() > 2 &&
               parts[2] == "expect_tx") {
      inst.op = Op::MbarArriveExpectTx;
      from = 3;
    } else if (what == "arrive") {
      inst.op = Op::MbarArrive;
    } else if (what == "expect_tx") {
      inst.op = Op::MbarExpectTx;
    } else if (what == "complete_tx") {
      inst.op = Op::MbarCompleteTx;
    } else if (what == "test_wait" || what == "try_wait") {
      inst.op = what == "test_wait" ? Op::MbarTestWait : Op::MbarTryWait;
    } else {
      return d.fail("mbarrier operation");
    }
    return d.modifiers(parts, from, [&](std::string_view t) {
      if (t == "parity") {
        inst.count = 1; // waits take a phase parity, not a state
        return true;
      }
      return t == "noComplete";
    });
  }
  if (base == "ldmatrix") {
    inst.op = Op::Ldmatrix;
    bool shape = false;
    if (!d.modifiers(parts, 1, [&](std::string_view t) {
          if (t == "m8n8")
            return shape = true;
          if (t == "x1" || t == "x2" || t == "x4") {
            inst.count = t[1] - '0';
            return true;
          }
          if (t == "trans")
            return inst.trans = true;
          return false;
        }))
      return false;
    if (!shape || !inst.count || inst.type != Type::B16)
      return d.fail("ldmatrix shape (m8n8 .x1/.x2/.x4 .b16)");
    return true;
  }
  if (base == "mma") {
    inst.op = Op::MmaSync;
    bool layoutSeen = false;
    if (!d.modifiers(parts, 1, [&](std::string_view t) {
          if (parseShape(t, inst.shapeM, inst.shapeN, inst.shapeK))
            return true;
          if (t == "row" || t == "col") {
            // First the A layout, then the B layout.
            if (!layoutSeen)
              inst.aRowMajor = t == "row";
            else
              inst.bColMajor = t == "col";
            layoutSeen = true;
            return true;
          }
          return false;
        }))
      return false;
    if (d.types.size() != 4 && d.types.size() != 2)
      return d.fail("mma type list");
    if (d.types.size() == 4) {
      for (int i = 0; i < 4; ++i)
        inst.mmaTypes[i] = d.types[i];
    } else {
      // .f32.tf32 style: D/C then A/B? PTX spells D, A, B, C in full for
      // the shapes the emulator implements.
      return d.fail("mma type list");
    }
    return true;
  }
  if (base == "wgmma") {
    if (parts.size() < 2)
      return d.fail("wgmma form");
    if (parts[1] == "fence") {
      inst.op = Op::WgmmaFence;
      return true;
    }
    if (parts[1] == "commit_group") {
      inst.op = Op::WgmmaCommit;
      return true;
    }
    if (parts[1] == "wait_group") {
      inst.op = Op::WgmmaWait;
      return true;
    }
    if (parts[1] != "mma_async")
      return d.fail("wgmma form");
    inst.op = Op::WgmmaMma;
    if (!d.modifiers(parts, 2, [&](std::string_view t) {
          return parseShape(t, inst.shapeM, inst.shapeN, inst.shapeK);
        }))
      return false;
    if (d.types.size() != 3 || inst.shapeM != 64)
      return d.fail("wgmma shape or types");
    inst.mmaTypes[0] = d.types[0];
    inst.mmaTypes[1] = d.types[1];
    inst.mmaTypes[2] = d.types[2];
    inst.mmaTypes[3] = d.types[0];
    return true;
  }
  if (base == "cvta") {
    inst.op = Op::Cvta;
    if (!d.modifiers(parts, 1, [&](std::string_view t) {
          return t == "to" ? (inst.toSpace = true) : false;
        }))
      return false;
    return d.needType();
  }
  if (base == "isspacep") {
    inst.op = Op::Isspacep;
    return d.plain(parts);
  }
  if (base == "activemask") {
    inst.op = Op::Activemask;
    return d.plain(parts);
  }

  auto it = simpleOps().find(base);
  if (it == simpleOps().end())
    return d.fail("instruction");
  inst.op = it->second;
  bool minMax = inst.op == Op::Min || inst.op == Op::Max;
  if (!d.modifiers(parts, 1, [&](std::string_view t) {
        // min/max.NaN (PTX ISA 9.7.3.x): NaN in, canonical NaN out.
        return minMax && t == "NaN" ? (inst.propagateNaN = true) : false;
      }))
    return false;
  switch (inst.op) {
  case Op::Bra:
  case Op::Call:
  case Op::Ret:
  case Op::Exit:
  case Op::Trap:
  case Op::Nanosleep:
    return true;
  default:
    return d.needType();
  }
}

} // namespace quilt::emu
