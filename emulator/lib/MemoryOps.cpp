//===- MemoryOps.cpp - ld, st, atom, red, cvta and memcheck ---------------===//
//
// Part of the Quilt project.
//
// PTX ISA 9.7.9 (data movement) and 9.7.13.5 (atom, red). Every access is
// checked the way compute-sanitizer's memcheck checks it: global accesses
// must fall inside a live allocation, shared ones inside the CTA's static
// plus dynamic shared memory, local ones inside the thread's frame, and
// every access must be aligned to its size (a vector access to the size of
// the whole vector), as the hardware requires (section 5.4.4).
//
//===----------------------------------------------------------------------===//

#include "Cta.h"
#include "DeviceMemory.h"
#include "FloatFormats.h"

#include <cmath>
#include <cstdio>

namespace quilt::emu {
namespace {

const char *spaceName(Space s) {
  switch (s) {
  case Space::Generic:
    return "generic";
  case Space::Global:
    return "global";
  case Space::Shared:
    return "shared";
  case Space::Local:
    return "local";
  case Space::Param:
    return "param";
  case Space::Const:
    return "const";
  }
  return "?";
}

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof(b), "0x%llx", (unsigned long long)v);
  return b;
}

} // namespace

uint64_t Cta::addressOf(Warp &w, int lane, const Operand &op) {
  uint64_t base = op.hasBase ? w.reg(op.reg, lane) : 0;
  return base + op.imm;
}

/// Resolves a generic address to its space; shared and local offsets then.
static Space resolve(Space space, uint64_t &address) {
  if (space != Space::Generic)
    return space;
  if (inSharedWindow(address)) {
    address -= kSharedWindow;
    return Space::Shared;
  }
  if (inLocalWindow(address)) {
    address -= kLocalWindow;
    return Space::Local;
  }
  if (inParamWindow(address)) {
    address -= kParamWindow;
    return Space::Param;
  }
  return Space::Global;
}

bool Cta::load(Warp &w, int lane, const Instruction &inst, Space space,
               uint64_t address, void *data, unsigned bytes) {
  uint64_t original = address;
  space = resolve(space, address);
  if (bytes && address % bytes)
    return fail(kErrorMisalignedAddress, "misaligned address", inst, w, lane,
                std::to_string(bytes) + "-byte " + spaceName(space) +
                    " load at " + hex(original) + " is not aligned to " +
                    std::to_string(bytes));
  uint32_t t = threadId(w, lane);
  switch (space) {
  case Space::Shared: {
    if (!sharedBytesAt(address, bytes))
      return fail(kErrorIllegalAddress, "out-of-bounds shared load", inst, w,
                  lane,
                  std::to_string(bytes) + " bytes at shared offset " +
                      std::to_string(address) + ", outside the CTA's " +
                      std::to_string(shared_.size()) + " bytes");
    std::string hazard =
        checker_.read(t, uint32_t(address), bytes, barrierEpoch,
                      w.lanes[lane].observedPhases);
    if (!hazard.empty())
      return fail(kErrorLaunchFailed, "shared-memory hazard", inst, w, lane,
                  hazard);
    std::memcpy(data, shared_.data() + address, bytes);
    counters_.sharedLoadBytes += bytes;
    noteAccess(address, bytes, Space::Shared);
    return true;
  }
  case Space::Local: {
    if (address + bytes > kernel_.localBytes)
      return fail(kErrorIllegalAddress, "out-of-bounds local load", inst, w,
                  lane,
                  std::to_string(bytes) + " bytes at local offset " +
                      std::to_string(address) + ", outside the thread's " +
                      std::to_string(kernel_.localBytes) + " bytes");
    std::memcpy(data, local_.data() + size_t(t) * kernel_.localBytes + address,
                bytes);
    return true;
  }
  case Space::Param: {
    if (address + bytes <= config_.params.size()) {
      std::memcpy(data, config_.params.data() + address, bytes);
      return true;
    }
    uint64_t scratch = address - kernel_.paramBytes;
    if (address >= kernel_.paramBytes &&
        scratch + bytes <= kernel_.scratchParamBytes) {
      std::memcpy(data,
                  scratch_.data() + size_t(t) * kernel_.scratchParamBytes +
                      scratch,
                  bytes);
      return true;
    }
    return fail(kErrorIllegalAddress, "out-of-bounds parameter load", inst, w,
                lane,
                std::to_string(bytes) + " bytes at parameter offset " +
                    std::to_string(address) + ", the kernel has " +
                    std::to_string(config_.params.size()));
  }
  default:
    if (!deviceMemory().contains(address, bytes))
      return fail(kErrorIllegalAddress, "out-of-bounds global load", inst, w,
                  lane,
                  std::to_string(bytes) + " bytes at " + hex(address) + ", " +
                      deviceMemory().describe(address, bytes));
    std::memcpy(data, reinterpret_cast<const void *>(address), bytes);
    counters_.globalLoadBytes += bytes;
    noteAccess(address, bytes, space);
    return true;
  }
}

bool Cta::store(Warp &w, int lane, const Instruction &inst, Space space,
                uint64_t address, const void *data, unsigned bytes) {
  uint64_t original = address;
  space = resolve(space, address);
  if (bytes && address % bytes)
    return fail(kErrorMisalignedAddress, "misaligned address", inst, w, lane,
                std::to_string(bytes) + "-byte " + spaceName(space) +
                    " store at " + hex(original) + " is not aligned to " +
                    std::to_string(bytes));
  uint32_t t = threadId(w, lane);
  switch (space) {
  case Space::Shared: {
    if (!sharedBytesAt(address, bytes))
      return fail(kErrorIllegalAddress, "out-of-bounds shared store", inst, w,
                  lane,
                  std::to_string(bytes) + " bytes at shared offset " +
                      std::to_string(address) + ", outside the CTA's " +
                      std::to_string(shared_.size()) + " bytes");
    std::string hazard =
        checker_.write(t, uint32_t(address), bytes, barrierEpoch);
    if (hazard.empty())
      hazard = wgmmaOverwriteHazard(w, uint32_t(address), bytes);
    if (!hazard.empty())
      return fail(kErrorLaunchFailed, "shared-memory hazard", inst, w, lane,
                  hazard);
    std::memcpy(shared_.data() + address, data, bytes);
    counters_.sharedStoreBytes += bytes;
    noteAccess(address, bytes, Space::Shared);
    return true;
  }
  case Space::Local:
    if (address + bytes > kernel_.localBytes)
      return fail(kErrorIllegalAddress, "out-of-bounds local store", inst, w,
                  lane,
                  std::to_string(bytes) + " bytes at local offset " +
                      std::to_string(address) + ", outside the thread's " +
                      std::to_string(kernel_.localBytes) + " bytes");
    std::memcpy(local_.data() + size_t(t) * kernel_.localBytes + address, data,
                bytes);
    return true;
  case Space::Param: {
    uint64_t scratch = address - kernel_.paramBytes;
    if (address < kernel_.paramBytes ||
        scratch + bytes > kernel_.scratchParamBytes)
      return fail(kErrorIllegalAddress, "invalid parameter store", inst, w,
                  lane,
                  "kernel parameters are read-only; offset " +
                      std::to_string(address) + " is not a call parameter");
    std::memcpy(scratch_.data() + size_t(t) * kernel_.scratchParamBytes +
                    scratch,
                data, bytes);
    return true;
  }
  case Space::Const:
    return fail(kErrorIllegalAddress, "store to constant memory", inst, w, lane,
                "at " + hex(address));
  default:
    if (!deviceMemory().contains(address, bytes))
      return fail(kErrorIllegalAddress, "out-of-bounds global store", inst, w,
                  lane,
                  std::to_string(bytes) + " bytes at " + hex(address) + ", " +
                      deviceMemory().describe(address, bytes));
    std::memcpy(reinterpret_cast<void *>(address), data, bytes);
    counters_.globalStoreBytes += bytes;
    noteAccess(address, bytes, Space::Global);
    return true;
  }
}

/// One atomic read-modify-write (9.7.13.5): returns the new value.
static uint64_t atomicUpdate(const Instruction &inst, uint64_t old, uint64_t b,
                             uint64_t c) {
  Type t = inst.type;
  unsigned bits = bitsOf(t);
  if (t == Type::F32 || t == Type::F64 || t == Type::F16 || t == Type::BF16) {
    auto value = [&](uint64_t v) {
      return t == Type::F32   ? double(asF32(v))
             : t == Type::F64 ? asF64(v)
             : t == Type::F16 ? double(f16ToF32(uint16_t(v)))
                              : double(bf16ToF32(uint16_t(v)));
    };
    double x = value(old), y = value(b), r = x;
    switch (inst.atomOp) {
    case AtomOp::Add:
      r = x + y;
      break;
    case AtomOp::Min:
      r = std::fmin(x, y);
      break;
    case AtomOp::Max:
      r = std::fmax(x, y);
      break;
    case AtomOp::Exch:
      return b;
    default:
      break;
    }
    if (t == Type::F32)
      return fromF32(float(r));
    if (t == Type::F64)
      return fromF64(r);
    if (t == Type::F16)
      return f64ToF16(r, Rounding::NearestEven);
    return f32ToBf16(float(r), Rounding::NearestEven);
  }
  bool s = isSigned(t);
  int64_t so = signExtend(old, bits), sb = signExtend(b, bits);
  uint64_t uo = maskTo(old, bits), ub = maskTo(b, bits);
  switch (inst.atomOp) {
  case AtomOp::Add:
    return maskTo(uo + ub, bits);
  case AtomOp::Min:
    return maskTo(s ? uint64_t(std::min(so, sb)) : std::min(uo, ub), bits);
  case AtomOp::Max:
    return maskTo(s ? uint64_t(std::max(so, sb)) : std::max(uo, ub), bits);
  case AtomOp::Inc:
    return (uo >= ub) ? 0 : uo + 1;
  case AtomOp::Dec:
    return (uo == 0 || uo > ub) ? ub : uo - 1;
  case AtomOp::And:
    return uo & ub;
  case AtomOp::Or:
    return uo | ub;
  case AtomOp::Xor:
    return uo ^ ub;
  case AtomOp::Exch:
    return ub;
  case AtomOp::Cas:
    return uo == ub ? maskTo(c, bits) : uo;
  default:
    return uo;
  }
}

bool Cta::executeMemory(Warp &w, const Instruction &inst, uint32_t exec) {
  const std::vector<Operand> &ops = inst.operands;
  unsigned element = bytesOf(inst.type);
  for (int lane = 0; lane < 32; ++lane) {
    if (!(exec >> lane & 1))
      continue;
    switch (inst.op) {
    case Op::Ld: {
      const Operand &dst = ops[0];
      uint64_t address = addressOf(w, lane, ops[1]);
      size_t count =
          dst.kind == Operand::Kind::Vector ? dst.elements.size() : 1;
      uint8_t buffer[128] = {0};
      if (!load(w, lane, inst, inst.space, address, buffer,
                unsigned(element * count)))
        return false;
      for (size_t i = 0; i < count; ++i) {
        uint64_t v = 0;
        std::memcpy(&v, buffer + i * element, std::min(element, 8u));
        if (isSigned(inst.type))
          v = uint64_t(signExtend(v, element * 8));
        write(w, lane, count > 1 ? dst.elements[i] : dst, v, inst.type);
      }
      break;
    }
    case Op::St: {
      const Operand &src = ops[1];
      uint64_t address = addressOf(w, lane, ops[0]);
      size_t count =
          src.kind == Operand::Kind::Vector ? src.elements.size() : 1;
      uint8_t buffer[128] = {0};
      for (size_t i = 0; i < count; ++i) {
        uint64_t v = read(w, lane, count > 1 ? src.elements[i] : src);
        std::memcpy(buffer + i * element, &v, std::min(element, 8u));
      }
      if (!store(w, lane, inst, inst.space, address, buffer,
                 unsigned(element * count)))
        return false;
      break;
    }
    case Op::Atom:
    case Op::Red: {
      bool isAtom = inst.op == Op::Atom;
      const Operand &addrOp = ops[isAtom ? 1 : 0];
      uint64_t address = addressOf(w, lane, addrOp);
      uint64_t b = read(w, lane, ops[isAtom ? 2 : 1]);
      uint64_t c = ops.size() > 3 ? read(w, lane, ops[3]) : 0;
      uint64_t old = 0;
      // Atomics are not races: bypass the hazard checker with the raw
      // bounds-checked path of the space.
      bool checking = checker_.enabled();
      checker_.setEnabled(false);
      bool ok = load(w, lane, inst, inst.space, address, &old, element);
      uint64_t updated = ok ? atomicUpdate(inst, old, b, c) : 0;
      ok = ok && store(w, lane, inst, inst.space, address, &updated, element);
      checker_.setEnabled(checking);
      if (!ok)
        return false;
      if (isAtom)
        write(w, lane, ops[0],
              isSigned(inst.type) ? uint64_t(signExtend(old, element * 8))
                                  : old,
              inst.type);
      break;
    }
    case Op::Cvta: {
      uint64_t a = read(w, lane, ops[1]);
      uint64_t window = inst.space == Space::Shared  ? kSharedWindow
                        : inst.space == Space::Local ? kLocalWindow
                        : inst.space == Space::Param ? kParamWindow
                                                     : 0;
      uint64_t r = inst.toSpace ? a - window : a + window;
      write(w, lane, ops[0], maskTo(r, bitsOf(inst.type)), inst.type);
      break;
    }
    case Op::Isspacep: {
      uint64_t a = read(w, lane, ops[1]);
      bool r =
          inst.space == Space::Shared  ? inSharedWindow(a)
          : inst.space == Space::Local ? inLocalWindow(a)
          : inst.space == Space::Param
              ? inParamWindow(a)
              : !inSharedWindow(a) && !inLocalWindow(a) && !inParamWindow(a);
      write(w, lane, ops[0], r, Type::Pred);
      break;
    }
    default: // prefetch: a hint
      break;
    }
  }
  return true;
}

} // namespace quilt::emu
