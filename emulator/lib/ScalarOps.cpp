//===- ScalarOps.cpp - Integer, float, comparison and conversion semantics ===//
//
// Part of the Quilt project.
//
// PTX ISA 9.7.1 (integer arithmetic), 9.7.2 (extended precision), 9.7.3
// (floating point), 9.7.4 (half precision), 9.7.6 (comparison and
// selection), 9.7.7 (logic and shift), 9.7.8 (data movement: mov) and
// 9.7.9.21 (cvt). Registers hold 64 bits; an instruction reads the low bits
// its type names and writes its result zero-extended, except that signed
// results are kept sign-extended so that a later 64-bit read of a 32-bit
// signed register is still right.
//
// f32 arithmetic with the default rounding is the host's IEEE single
// arithmetic. Directed roundings compute in double and round once to f32,
// which is exact for products and for sums of operands within 2^29 of each
// other's magnitude (documented in docs/gpu-emulator.md).
//
//===----------------------------------------------------------------------===//

#include "Cta.h"
#include "FloatFormats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace quilt::emu {
namespace {

Rounding toRounding(RoundingModifier r) {
  switch (r) {
  case RoundingModifier::RZ:
  case RoundingModifier::RZI:
    return Rounding::TowardZero;
  case RoundingModifier::RM:
  case RoundingModifier::RMI:
    return Rounding::Down;
  case RoundingModifier::RP:
  case RoundingModifier::RPI:
    return Rounding::Up;
  case RoundingModifier::RNA:
    return Rounding::NearestAway;
  default:
    return Rounding::NearestEven;
  }
}

bool isHalfType(Type t) {
  return t == Type::F16 || t == Type::BF16 || t == Type::F16x2 ||
         t == Type::BF16x2;
}
bool isPacked(Type t) { return t == Type::F16x2 || t == Type::BF16x2; }
bool isBrain(Type t) { return t == Type::BF16 || t == Type::BF16x2; }

double flushSubnormal(double v, bool ftz, Type t) {
  if (!ftz)
    return v;
  double smallest = t == Type::F64 ? std::numeric_limits<double>::min()
                                   : double(std::numeric_limits<float>::min());
  if (v != 0 && std::fabs(v) < smallest)
    return std::copysign(0.0, v);
  return v;
}

/// A floating-point operand of `t` (one half of a packed pair: `half`).
double floatValue(uint64_t bits, Type t, int half = 0) {
  switch (t) {
  case Type::F16:
  case Type::F16x2:
    return f16ToF32(uint16_t(bits >> (16 * half)));
  case Type::BF16:
  case Type::BF16x2:
    return bf16ToF32(uint16_t(bits >> (16 * half)));
  case Type::F64:
    return asF64(bits);
  default:
    return asF32(bits);
  }
}

/// Rounds an exact-or-double result to `t`.
uint64_t floatBits(double v, Type t, Rounding mode) {
  switch (t) {
  case Type::F16:
  case Type::F16x2:
    return f64ToF16(v, mode);
  case Type::BF16:
  case Type::BF16x2:
    return f32ToBf16(f32Round(v, mode), mode);
  case Type::F64:
    return fromF64(v);
  default:
    // The host's double-to-float conversion rounds to nearest even: the
    // common case, without the generic rounding routine.
    return fromF32(mode == Rounding::NearestEven ? float(v)
                                                 : f32Round(v, mode));
  }
}

/// Applies `f` to each element of a float or packed operand set.
template <typename F> uint64_t mapFloat(Type t, F f) {
  if (!isPacked(t))
    return f(0);
  return (f(0) & 0xffff) | (f(1) & 0xffff) << 16;
}

bool compare(CmpOp cmp, Type t, uint64_t a, uint64_t b) {
  unsigned bits = bitsOf(t);
  if (isFloat(t)) {
    double x = floatValue(a, t), y = floatValue(b, t);
    bool unordered = std::isnan(x) || std::isnan(y);
    switch (cmp) {
    case CmpOp::EQ:
      return !unordered && x == y;
    case CmpOp::NE:
      return !unordered && x != y;
    case CmpOp::LT:
      return !unordered && x < y;
    case CmpOp::LE:
      return !unordered && x <= y;
    case CmpOp::GT:
      return !unordered && x > y;
    case CmpOp::GE:
      return !unordered && x >= y;
    case CmpOp::EQU:
      return unordered || x == y;
    case CmpOp::NEU:
      return unordered || x != y;
    case CmpOp::LTU:
      return unordered || x < y;
    case CmpOp::LEU:
      return unordered || x <= y;
    case CmpOp::GTU:
      return unordered || x > y;
    case CmpOp::GEU:
      return unordered || x >= y;
    case CmpOp::Number:
      return !unordered;
    case CmpOp::NotANumber:
      return unordered;
    default:
      return false;
    }
  }
  if (isSigned(t)) {
    int64_t x = signExtend(a, bits), y = signExtend(b, bits);
    switch (cmp) {
    case CmpOp::EQ:
      return x == y;
    case CmpOp::NE:
      return x != y;
    case CmpOp::LT:
      return x < y;
    case CmpOp::LE:
      return x <= y;
    case CmpOp::GT:
      return x > y;
    case CmpOp::GE:
      return x >= y;
    default:
      break;
    }
  }
  uint64_t x = maskTo(a, bits), y = maskTo(b, bits);
  switch (cmp) {
  case CmpOp::EQ:
    return x == y;
  case CmpOp::NE:
    return x != y;
  case CmpOp::LT:
  case CmpOp::LO:
    return x < y;
  case CmpOp::LE:
  case CmpOp::LS:
    return x <= y;
  case CmpOp::GT:
  case CmpOp::HI:
    return x > y;
  case CmpOp::GE:
  case CmpOp::HS:
    return x >= y;
  default:
    return false;
  }
}

/// The result register value of an integer result of `bits`, signed or not.
uint64_t integerResult(uint64_t v, Type t) {
  unsigned bits = bitsOf(t);
  return isSigned(t) ? uint64_t(signExtend(v, bits)) : maskTo(v, bits);
}

/// `v` rounded to an integral value by an integer rounding modifier (.rni,
/// the default, ties to even).
double roundToIntegral(double v, RoundingModifier r) {
  switch (r) {
  case RoundingModifier::RZI:
    return std::trunc(v);
  case RoundingModifier::RMI:
    return std::floor(v);
  case RoundingModifier::RPI:
    return std::ceil(v);
  default:
    return std::nearbyint(v);
  }
}

/// Float to integer with cvt's rounding, saturating to the destination
/// range; NaN gives 0 (9.7.9.21).
uint64_t floatToInt(double v, Type dst, RoundingModifier r) {
  v = roundToIntegral(v, r);
  if (std::isnan(v))
    return 0;
  unsigned bits = bitsOf(dst);
  if (isSigned(dst)) {
    double lo = -std::ldexp(1.0, int(bits) - 1);
    double hi = std::ldexp(1.0, int(bits) - 1);
    if (v < lo)
      return integerResult(uint64_t(int64_t(lo)), dst);
    if (v >= hi)
      return integerResult((uint64_t(1) << (bits - 1)) - 1, dst);
    return integerResult(uint64_t(int64_t(v)), dst);
  }
  if (v <= 0)
    return 0;
  if (v >= std::ldexp(1.0, int(bits)))
    return maskTo(~uint64_t(0), bits);
  return uint64_t(v);
}

uint64_t convert(const Instruction &inst, uint64_t a) {
  Type d = inst.type, s = inst.type2;
  Rounding mode = toRounding(inst.rounding);
  if (s == Type::None)
    s = d;
  bool dFloat = isFloat(d) || d == Type::TF32;
  bool sFloat = isFloat(s) || s == Type::TF32;
  if (!dFloat && !sFloat) {
    unsigned sb = bitsOf(s), db = bitsOf(d);
    if (inst.sat) {
      // Clamp to the destination's range (9.7.9.21 .sat for integers).
      if (isSigned(s)) {
        int64_t v = signExtend(a, sb);
        int64_t lo = isSigned(d) ? -(int64_t(1) << (db - 1)) : 0;
        int64_t hi = isSigned(d)
                         ? (int64_t(1) << (db - 1)) - 1
                         : (db >= 63 ? INT64_MAX : (int64_t(1) << db) - 1);
        if (db >= 64)
          lo = isSigned(d) ? INT64_MIN : 0, hi = INT64_MAX;
        v = std::min(std::max(v, lo), hi);
        return integerResult(uint64_t(v), d);
      }
      uint64_t v = maskTo(a, sb);
      uint64_t hi = isSigned(d) ? (uint64_t(1) << (db - 1)) - 1
                                : maskTo(~uint64_t(0), db);
      return integerResult(std::min(v, hi), d);
    }
    uint64_t v = isSigned(s) ? uint64_t(signExtend(a, sb)) : maskTo(a, sb);
    return integerResult(v, d);
  }
  if (!sFloat) {
    // Integer to float.
    unsigned sb = bitsOf(s);
    double v = isSigned(s) ? double(signExtend(a, sb)) : double(maskTo(a, sb));
    if (bitsOf(s) == 64) {
      // 64-bit integers are not exact in double: round directly to f32.
      if (d == Type::F32) {
        float f = isSigned(s) ? float(int64_t(a)) : float(a);
        return fromF32(f);
      }
    }
    return floatBits(v, d, mode);
  }
  double v = s == Type::TF32 ? double(asF32(a)) : floatValue(a, s);
  if (!dFloat && d != Type::TF32)
    return floatToInt(v, d, inst.rounding);
  v = flushSubnormal(v, inst.ftz && s == Type::F32, Type::F32);
  if (d == Type::TF32)
    return f32ToTf32(float(v), mode);
  if (inst.rounding == RoundingModifier::RNI ||
      inst.rounding == RoundingModifier::RZI ||
      inst.rounding == RoundingModifier::RMI ||
      inst.rounding == RoundingModifier::RPI) {
    // Round to an integral value in the same (or a wider) float type.
    v = roundToIntegral(v, inst.rounding);
    return floatBits(v, d, Rounding::NearestEven);
  }
  if (inst.sat && !std::isnan(v))
    v = std::min(1.0, std::max(0.0, v));
  if (inst.sat && std::isnan(v))
    v = 0;
  uint64_t r = floatBits(v, d, mode);
  if (inst.ftz && d == Type::F32)
    r = fromF32(float(flushSubnormal(asF32(r), true, Type::F32)));
  return r;
}

/// One float element of a unary or binary or ternary op.
double floatOp(Op op, const Instruction &inst, double a, double b, double c) {
  switch (op) {
  case Op::Add:
    return a + b;
  case Op::Sub:
    return a - b;
  case Op::Mul:
    return a * b;
  case Op::Fma:
  case Op::Mad:
    return std::fma(a, b, c);
  case Op::Div:
    return a / b;
  case Op::Abs:
    return std::fabs(a);
  case Op::Neg:
    return -a;
  case Op::Min:
    if (std::isnan(a))
      return b;
    if (std::isnan(b))
      return a;
    if (a == b)
      return std::signbit(a) ? a : b; // -0 < +0
    return std::min(a, b);
  case Op::Max:
    if (std::isnan(a))
      return b;
    if (std::isnan(b))
      return a;
    if (a == b)
      return std::signbit(a) ? b : a;
    return std::max(a, b);
  case Op::Rcp:
    return 1.0 / a;
  case Op::Sqrt:
    return std::sqrt(a);
  case Op::Rsqrt:
    return 1.0 / std::sqrt(a);
  case Op::Sin:
    return std::sin(a);
  case Op::Cos:
    return std::cos(a);
  case Op::Lg2:
    return std::log2(a);
  case Op::Ex2:
    return std::exp2(a);
  case Op::Tanh:
    return std::tanh(a);
  case Op::Copysign:
    return std::copysign(b, a);
  default:
    return 0;
  }
  (void)inst;
}

uint64_t floatArith(const Instruction &inst, uint64_t a, uint64_t b,
                    uint64_t c) {
  Type t = inst.type;
  Rounding mode = toRounding(inst.rounding);
  bool singleRounding = t == Type::F32 && mode == Rounding::NearestEven;
  return mapFloat(t, [&](int half) -> uint64_t {
    double x = flushSubnormal(floatValue(a, t, half), inst.ftz, t);
    double y = flushSubnormal(floatValue(b, t, half), inst.ftz, t);
    double z = flushSubnormal(floatValue(c, t, half), inst.ftz, t);
    double r;
    if (inst.propagateNaN && (std::isnan(x) || std::isnan(y)))
      // The canonical NaN of the type (0x7fffffff, 0x7fff per half).
      return t == Type::F32   ? uint64_t(0x7fffffffu)
             : t == Type::F64 ? uint64_t(0x7fffffffffffffffull)
                              : uint64_t(0x7fffu);
    if (singleRounding) {
      // Exactly the GPU's IEEE single operation.
      float fx = float(x), fy = float(y), fz = float(z);
      switch (inst.op) {
      case Op::Add:
        r = fx + fy;
        break;
      case Op::Sub:
        r = fx - fy;
        break;
      case Op::Mul:
        r = fx * fy;
        break;
      case Op::Fma:
      case Op::Mad:
        r = std::fma(fx, fy, fz);
        break;
      case Op::Div:
        r = inst.approx ? double(fx * (1.0f / fy)) : fx / fy;
        break;
      default:
        r = float(floatOp(inst.op, inst, x, y, z));
        break;
      }
    } else {
      r = floatOp(inst.op, inst, x, y, z);
    }
    if (inst.sat)
      r = std::isnan(r) ? 0.0 : std::min(1.0, std::max(0.0, r));
    r = flushSubnormal(r, inst.ftz, t);
    return floatBits(r, t, mode);
  });
}

uint64_t intArith(const Instruction &inst, uint64_t a, uint64_t b, uint64_t c,
                  bool &divideByZero) {
  Type t = inst.type;
  unsigned bits = bitsOf(t);
  bool s = isSigned(t);
  int64_t sa = signExtend(a, bits), sb = signExtend(b, bits);
  uint64_t ua = maskTo(a, bits), ub = maskTo(b, bits);
  auto product = [&]() -> uint64_t {
    // lo / hi / wide products (9.7.1.3).
    if (inst.wide) {
      return s ? uint64_t(sa * sb) : ua * ub;
    }
    if (inst.hi) {
      if (bits == 64) {
        return s ? uint64_t((__int128(sa) * __int128(sb)) >> 64)
                 : uint64_t((unsigned __int128)ua * ub >> 64);
      }
      return s ? uint64_t((sa * sb) >> bits) : (ua * ub) >> bits;
    }
    return ua * ub;
  };
  switch (inst.op) {
  case Op::Add:
  case Op::Sub: {
    bool add = inst.op == Op::Add;
    if (inst.sat && t == Type::S32) {
      // .sat clamps the exact sum to the s32 range.
      int64_t r = add ? sa + sb : sa - sb;
      return integerResult(
          uint64_t(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX)), t);
    }
    return integerResult(add ? ua + ub : ua - ub, t);
  }
  case Op::Mul:
  case Op::Mad: {
    // .wide results have twice the operands' width.
    Type result = !inst.wide ? t
                  : s        ? (bits == 16 ? Type::S32 : Type::S64)
                             : (bits == 16 ? Type::U32 : Type::U64);
    return integerResult(product() + (inst.op == Op::Mad ? c : 0), result);
  }
  case Op::Mul24:
  case Op::Mad24: {
    int64_t x = signExtend(a, 24), y = signExtend(b, 24);
    uint64_t ux = maskTo(a, 24), uy = maskTo(b, 24);
    uint64_t p = s ? uint64_t(x * y) : ux * uy;
    uint64_t r = inst.hi ? p >> 16 : p;
    if (inst.op == Op::Mad24)
      r += c;
    return integerResult(r, t);
  }
  case Op::Div:
    if (ub == 0) {
      divideByZero = true;
      return maskTo(~uint64_t(0), bits);
    }
    if (s)
      return (sa == INT64_MIN && sb == -1)
                 ? a
                 : integerResult(uint64_t(sa / sb), t);
    return integerResult(ua / ub, t);
  case Op::Rem:
    if (ub == 0) {
      divideByZero = true;
      return a;
    }
    if (s)
      return sb == -1 ? 0 : integerResult(uint64_t(sa % sb), t);
    return integerResult(ua % ub, t);
  case Op::Abs:
    return integerResult(uint64_t(sa < 0 ? -sa : sa), t);
  case Op::Neg:
    return integerResult(uint64_t(-sa), t);
  case Op::Min:
    return s ? integerResult(uint64_t(std::min(sa, sb)), t)
             : integerResult(std::min(ua, ub), t);
  case Op::Max:
    return s ? integerResult(uint64_t(std::max(sa, sb)), t)
             : integerResult(std::max(ua, ub), t);
  case Op::And:
    return maskTo(a & b, bits);
  case Op::Or:
    return maskTo(a | b, bits);
  case Op::Xor:
    return maskTo(a ^ b, bits);
  case Op::Not:
    return maskTo(~a, bits);
  case Op::Cnot:
    return ua == 0 ? 1 : 0;
  case Op::Shl: {
    uint64_t n = maskTo(b, 32);
    return n >= bits ? 0 : maskTo(ua << n, bits);
  }
  case Op::Shr: {
    uint64_t n = maskTo(b, 32);
    if (s)
      return integerResult(uint64_t(sa >> std::min<uint64_t>(n, bits - 1)), t);
    return n >= bits ? 0 : ua >> n;
  }
  case Op::Popc:
    return uint64_t(__builtin_popcountll(ua));
  case Op::Clz:
    return ua == 0 ? bits : uint64_t(__builtin_clzll(ua) - (64 - bits));
  case Op::Brev: {
    uint64_t r = 0;
    for (unsigned i = 0; i < bits; ++i)
      r |= ((ua >> i) & 1) << (bits - 1 - i);
    return r;
  }
  case Op::Bfe: {
    // bfe d, a, pos, len (9.7.7.x): fields past the msb replicate the sign
    // for signed types.
    uint64_t pos = maskTo(b, 8), len = maskTo(c, 8);
    if (len == 0)
      return 0;
    uint64_t r = 0;
    bool sign = s && ((ua >> std::min<uint64_t>(pos + len - 1, bits - 1)) & 1);
    for (uint64_t i = 0; i < len && i < bits; ++i) {
      uint64_t bit = pos + i < bits ? (ua >> (pos + i)) & 1 : (s ? sign : 0);
      r |= bit << i;
    }
    if (s && sign)
      for (uint64_t i = len; i < bits; ++i)
        r |= uint64_t(1) << i;
    return integerResult(r, t);
  }
  default:
    return 0;
  }
}

} // namespace

bool Cta::executeScalar(Warp &w, const Instruction &inst, uint32_t exec) {
  const std::vector<Operand> &ops = inst.operands;
  auto operand = [&](int lane, size_t i) -> uint64_t {
    return i < ops.size() ? read(w, lane, ops[i]) : 0;
  };
  for (int lane = 0; lane < 32; ++lane) {
    if (!(exec >> lane & 1))
      continue;
    switch (inst.op) {
    case Op::Mov: {
      const Operand &dst = ops[0], &src = ops[1];
      if (dst.kind == Operand::Kind::Vector) {
        // Unpack: mov.b64 {%r1, %r2}, %rd1 (lowest element first).
        uint64_t v = read(w, lane, src);
        unsigned each = bitsOf(inst.type) / unsigned(dst.elements.size());
        for (size_t i = 0; i < dst.elements.size(); ++i)
          write(w, lane, dst.elements[i], maskTo(v >> (each * i), each),
                inst.type);
      } else if (src.kind == Operand::Kind::Vector) {
        unsigned each = bitsOf(inst.type) / unsigned(src.elements.size());
        uint64_t v = 0;
        for (size_t i = 0; i < src.elements.size(); ++i)
          v |= maskTo(read(w, lane, src.elements[i]), each) << (each * i);
        write(w, lane, dst, v, inst.type);
      } else {
        uint64_t v = read(w, lane, src);
        write(w, lane, dst,
              inst.type == Type::Pred ? v & 1 : maskTo(v, bitsOf(inst.type)),
              inst.type);
      }
      break;
    }
    case Op::Setp:
    case Op::Set: {
      bool r = compare(inst.cmp, inst.type, operand(lane, 1), operand(lane, 2));
      bool q = !r;
      if (inst.boolOp != BoolOp::None) {
        bool c = operand(lane, 3) & 1;
        auto combine = [&](bool x) {
          switch (inst.boolOp) {
          case BoolOp::And:
            return x && c;
          case BoolOp::Or:
            return x || c;
          default:
            return x != c;
          }
        };
        r = combine(r);
        q = combine(q);
      }
      const Operand &dst = ops[0];
      if (inst.op == Op::Set) {
        uint64_t v = isFloat(inst.type2) ? (r ? fromF32(1.0f) : 0)
                                         : (r ? 0xffffffffu : 0);
        write(w, lane, dst, v, inst.type2);
      } else if (dst.kind == Operand::Kind::Vector) {
        write(w, lane, dst.elements[0], r, Type::Pred);
        write(w, lane, dst.elements[1], q, Type::Pred);
      } else {
        write(w, lane, dst, r, Type::Pred);
      }
      break;
    }
    case Op::Selp:
      write(w, lane, ops[0],
            (operand(lane, 3) & 1) ? operand(lane, 1) : operand(lane, 2),
            inst.type);
      break;
    case Op::Slct: {
      uint64_t c = operand(lane, 3);
      bool pick = isFloat(inst.type2) ? asF32(c) >= 0 : signExtend(c, 32) >= 0;
      write(w, lane, ops[0], pick ? operand(lane, 1) : operand(lane, 2),
            inst.type);
      break;
    }
    case Op::Cvt: {
      if (isPacked(inst.type) && ops.size() == 3) {
        // cvt.rn.f16x2.f32 d, a, b: a to the upper half, b to the lower.
        Type half = isBrain(inst.type) ? Type::BF16 : Type::F16;
        Instruction one = inst;
        one.type = half;
        uint64_t hi = convert(one, operand(lane, 1));
        uint64_t lo = convert(one, operand(lane, 2));
        write(w, lane, ops[0], (hi & 0xffff) << 16 | (lo & 0xffff), inst.type);
        break;
      }
      write(w, lane, ops[0], convert(inst, operand(lane, 1)), inst.type);
      break;
    }
    case Op::Testp: {
      double v = floatValue(operand(lane, 1), inst.type);
      bool r = false;
      switch (inst.count) {
      case 0:
        r = std::isfinite(v);
        break;
      case 1:
        r = std::isinf(v);
        break;
      case 2:
        r = !std::isnan(v);
        break;
      case 3:
        r = std::isnan(v);
        break;
      case 4:
        r = std::isnormal(inst.type == Type::F32 ? float(v) : v);
        break;
      default:
        r = std::fpclassify(inst.type == Type::F32 ? float(v) : v) ==
            FP_SUBNORMAL;
        break;
      }
      write(w, lane, ops[0], r, Type::Pred);
      break;
    }
    case Op::Bfi: {
      // bfi d, f, b, pos, len: insert f's low len bits into b at pos.
      unsigned bits = bitsOf(inst.type);
      uint64_t f = operand(lane, 1), b = operand(lane, 2);
      uint64_t pos = maskTo(operand(lane, 3), 8);
      uint64_t len = maskTo(operand(lane, 4), 8);
      uint64_t r = maskTo(b, bits);
      for (uint64_t i = 0; i < len && pos + i < bits; ++i) {
        r &= ~(uint64_t(1) << (pos + i));
        r |= ((f >> i) & 1) << (pos + i);
      }
      write(w, lane, ops[0], r, inst.type);
      break;
    }
    case Op::Prmt: {
      // prmt.b32 d, a, b, c (default mode): byte i of d is byte c[4i+2:4i]
      // of {b, a}, sign-replicated when c's bit 4i+3 is set.
      uint64_t a = operand(lane, 1) & 0xffffffffu;
      uint64_t b = operand(lane, 2) & 0xffffffffu;
      uint64_t c = operand(lane, 3);
      uint64_t bytes = b << 32 | a;
      uint64_t r = 0;
      for (int i = 0; i < 4; ++i) {
        unsigned sel = (c >> (4 * i)) & 0xf;
        uint64_t byte = (bytes >> (8 * (sel & 7))) & 0xff;
        if (sel & 8)
          byte = (byte & 0x80) ? 0xff : 0;
        r |= byte << (8 * i);
      }
      write(w, lane, ops[0], r, inst.type);
      break;
    }
    case Op::Lop3: {
      uint64_t a = operand(lane, 1), b = operand(lane, 2), c = operand(lane, 3);
      uint64_t lut = operand(lane, 4);
      uint64_t r = 0;
      for (unsigned i = 0; i < 32; ++i) {
        unsigned index =
            ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
        r |= ((lut >> index) & 1) << i;
      }
      write(w, lane, ops[0], r, inst.type);
      break;
    }
    case Op::Shf: {
      // Funnel shift (9.7.7.x): shift the 64-bit {b, a} by c.
      uint64_t a = operand(lane, 1) & 0xffffffffu;
      uint64_t b = operand(lane, 2) & 0xffffffffu;
      uint64_t n = operand(lane, 3) & 0xffffffffu;
      n = inst.shiftWrap ? n & 31 : std::min<uint64_t>(n, 32);
      uint64_t both = b << 32 | a;
      uint64_t r = inst.shiftLeft ? (both << n) >> 32 : both >> n;
      write(w, lane, ops[0], r & 0xffffffffu, inst.type);
      break;
    }
    case Op::AddCC:
    case Op::AddC:
    case Op::SubCC:
    case Op::SubC:
    case Op::MadCC:
    case Op::MadC:
      return fail(kErrorLaunchFailed, "unsupported instruction", inst, w, lane,
                  "extended-precision arithmetic (carry flags)");
    default: {
      if (isFloat(inst.type) || isHalfType(inst.type)) {
        uint64_t r = floatArith(inst, operand(lane, 1), operand(lane, 2),
                                operand(lane, 3));
        write(w, lane, ops[0], r, inst.type);
      } else if (inst.type == Type::Pred) {
        uint64_t a = operand(lane, 1) & 1, b = operand(lane, 2) & 1;
        uint64_t r = inst.op == Op::And   ? (a & b)
                     : inst.op == Op::Or  ? (a | b)
                     : inst.op == Op::Xor ? (a ^ b)
                                          : (a ^ 1);
        write(w, lane, ops[0], r, Type::Pred);
      } else {
        bool divideByZero = false;
        uint64_t r = intArith(inst, operand(lane, 1), operand(lane, 2),
                              operand(lane, 3), divideByZero);
        write(w, lane, ops[0], r, inst.type);
      }
      break;
    }
    }
  }
  return true;
}

} // namespace quilt::emu
