//===- MemoryOps.cpp - Scalar, global, LDS and scratch memory -------------===//
//
// Part of the Quilt project. SMEM, global FLAT, DS and scratch FLAT
// instructions (CDNA3 ISA chapters 7, 9-11; RDNA3 chapters 7, 9-11), with
// both generations' names (global_load_dword / global_load_b32, ds_read2_b32
// / ds_load_2addr_b32, ...). Global addresses are host addresses (the HIP
// API's allocations are host memory); every access is checked against the
// live allocations, every LDS access against the workgroup's LDS.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"
#include "Semantics.h"

#include "../lib/DeviceMemory.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <type_traits>

namespace quilt::amdgcn {
namespace {

std::string hex(uint64_t v) {
  char buffer[24];
  std::snprintf(buffer, sizeof(buffer), "0x%" PRIx64, v);
  return buffer;
}

bool checkGlobal(Wave &w, int lane, uint64_t address, unsigned bytes,
                 bool store) {
  if (emu::deviceMemory().contains(address, bytes))
    return true;
  fail(w, lane, kHipErrorIllegalAddress,
       std::string("out-of-bounds global ") + (store ? "store" : "load") +
           " of " + std::to_string(bytes) + " bytes at " + hex(address) +
           ", " + emu::deviceMemory().describe(address, bytes));
  return false;
}

/// The race checker: an access conflicting with another wave's since the
/// last barrier stops the launch.
bool checkLdsRace(Wave &w, unsigned lane, uint32_t address, unsigned bytes,
                  bool store) {
  Workgroup &g = *w.group;
  if (!g.races.enabled())
    return true;
  static const emu::SharedMemoryChecker::ObservedPhases none;
  uint32_t thread = w.index * w.width + lane;
  std::string conflict =
      store ? g.races.write(thread, address, bytes, g.epoch)
            : g.races.read(thread, address, bytes, g.epoch, none);
  if (conflict.empty())
    return true;
  fail(w, int(lane), kHipErrorLaunchFailure,
       "LDS hazard: work-item " + std::to_string(thread) + " " +
           (store ? "writing" : "reading") + " " + std::to_string(bytes) +
           " bytes at LDS offset " + std::to_string(address) + ": " + conflict);
  return false;
}

/// An LDS access of one lane: inside the workgroup's LDS, and racing with
/// no other wave.
bool checkLds(Wave &w, unsigned lane, uint32_t address, unsigned bytes,
              bool store) {
  size_t size = w.group->lds.size();
  if (uint64_t(address) + bytes > size) {
    fail(w, int(lane), kHipErrorIllegalAddress,
         std::string("out-of-bounds LDS ") + (store ? "store" : "load") +
             " of " + std::to_string(bytes) + " bytes at LDS offset " +
             std::to_string(address) + ", the workgroup has " +
             std::to_string(size) + " bytes of LDS");
    return false;
  }
  return checkLdsRace(w, lane, address, bytes, store);
}

/// Profiling: the segments (global) or bank cycles (LDS) of one access by
/// every active lane, `addressOf(lane)` giving each lane's address.
template <typename AddressOf>
void profileGlobal(Wave &w, unsigned bytes, AddressOf addressOf) {
  if (!w.dispatch->profile || w.dispatch->failed)
    return;
  uint64_t addresses[64];
  unsigned n = 0;
  forEachActiveLane(w, [&](unsigned l) { addresses[n++] = addressOf(l); });
  countGlobalSegments(w.dispatch->counters, addresses, n, bytes);
}
/// The second half of a ds_read2/ds_write2 is the same request.
template <typename AddressOf>
void profileLds(Wave &w, unsigned bytes, AddressOf addressOf,
                bool sameRequest = false) {
  if (!w.dispatch->profile || w.dispatch->failed)
    return;
  uint32_t addresses[64];
  unsigned n = 0;
  forEachActiveLane(w, [&](unsigned l) { addresses[n++] = addressOf(l); });
  countLdsBankConflicts(w.dispatch->counters, addresses, n, bytes,
                        /*newRequest=*/!sameRequest);
}

// s_load_dword[xN] / s_load_bN sdst, sbase, offset-or-soffset [offset:N].
template <unsigned Dwords> void scalarLoad(Wave &w, const Instruction &in) {
  uint64_t base = scalar64(w, in.ops[1]);
  uint64_t offset = in.numOperands > 2 ? scalar32(w, in.ops[2]) : 0;
  uint64_t address = (base + offset + uint32_t(in.offset)) & ~uint64_t(3);
  if (!checkGlobal(w, -1, address, 4 * Dwords, false))
    return;
  uint32_t values[Dwords];
  std::memcpy(values, reinterpret_cast<const void *>(address), sizeof(values));
  for (unsigned i = 0; i < Dwords; ++i)
    writeScalar32(w, in.ops[0], values[i], i);
}

/// The per-lane address of a global instruction: vaddr (64 bits) with
/// `off`, or saddr (64 bits) + vaddr (32 bits, unsigned), plus the offset.
inline uint64_t globalAddress(const Wave &w, const Instruction &in,
                              const Operand &vaddr, const Operand &saddr,
                              unsigned lane) {
  if (saddr.kind == OperandKind::Off)
    return read64(w, vaddr, lane) + int64_t(in.offset);
  return scalar64(w, saddr) + read32(w, vaddr, lane) + int64_t(in.offset);
}

enum class Extend { Zero, Sign, Low16, High16 };

/// Loads `Bytes` per lane into the destination: whole dwords, or a byte
/// or short extended to a dword, or (d16) into one half keeping the other.
template <unsigned Bytes, Extend Ext>
void writeLoaded(Wave &w, const Operand &dst, unsigned lane,
                 const uint8_t *data) {
  if (Bytes >= 4) {
    for (unsigned i = 0; i < Bytes / 4; ++i) {
      uint32_t v;
      std::memcpy(&v, data + 4 * i, 4);
      write32(w, dst, lane, v, i);
    }
    return;
  }
  uint32_t raw = Bytes == 1 ? data[0] : uint32_t(data[0] | (data[1] << 8));
  uint32_t v;
  switch (Ext) {
  case Extend::Zero: v = raw; break;
  case Extend::Sign: v = Bytes == 1 ? uint32_t(int32_t(int8_t(raw))) : uint32_t(int32_t(int16_t(raw))); break;
  case Extend::Low16: v = (read32(w, dst, lane) & 0xffff0000u) | raw; break;
  case Extend::High16: v = (read32(w, dst, lane) & 0xffffu) | (raw << 16); break;
  }
  write32(w, dst, lane, v);
}

/// The bytes a store writes: the low bytes of the data, or (d16_hi) the
/// high half.
template <unsigned Bytes, bool High>
void readStored(const Wave &w, const Operand &data, unsigned lane,
                uint8_t *out) {
  if (Bytes >= 4) {
    for (unsigned i = 0; i < Bytes / 4; ++i) {
      uint32_t v = read32(w, data, lane, i);
      std::memcpy(out + 4 * i, &v, 4);
    }
    return;
  }
  uint32_t v = read32(w, data, lane);
  if (High)
    v >>= 16;
  std::memcpy(out, &v, Bytes);
}

// global_load vdst, vaddr, saddr|off.
template <unsigned Bytes, Extend Ext>
void globalLoad(Wave &w, const Instruction &in) {
  bool ok = true;
  forEachActiveLane(w, [&](unsigned l) {
    if (!ok)
      return;
    uint64_t address = globalAddress(w, in, in.ops[1], in.ops[2], l);
    if (!(ok = checkGlobal(w, int(l), address, Bytes, false)))
      return;
    writeLoaded<Bytes, Ext>(w, in.ops[0], l,
                            reinterpret_cast<const uint8_t *>(address));
    w.dispatch->counters.globalBytesLoaded += Bytes;
  });
  profileGlobal(w, Bytes, [&](unsigned l) {
    return globalAddress(w, in, in.ops[1], in.ops[2], l);
  });
}
// global_store vaddr, vdata, saddr|off.
template <unsigned Bytes, bool High>
void globalStore(Wave &w, const Instruction &in) {
  bool ok = true;
  forEachActiveLane(w, [&](unsigned l) {
    if (!ok)
      return;
    uint64_t address = globalAddress(w, in, in.ops[0], in.ops[2], l);
    if (!(ok = checkGlobal(w, int(l), address, Bytes, true)))
      return;
    readStored<Bytes, High>(w, in.ops[1], l, reinterpret_cast<uint8_t *>(address));
    w.dispatch->counters.globalBytesStored += Bytes;
  });
  profileGlobal(w, Bytes, [&](unsigned l) {
    return globalAddress(w, in, in.ops[0], in.ops[2], l);
  });
}

/// The new value of one atomic read-modify-write (CDNA3 ISA 9.5, RDNA3
/// 9.2): `data` is the instruction's source, `compare` cmpswap's second one.
enum class AtomicOp {
  Swap,
  CmpSwap,
  Add,
  Sub,
  SMin,
  UMin,
  SMax,
  UMax,
  And,
  Or,
  Xor,
  Inc,
  Dec
};
template <typename U> U atomicResult(AtomicOp op, U old, U data, U compare) {
  using S = std::make_signed_t<U>;
  switch (op) {
  case AtomicOp::Swap:
    return data;
  case AtomicOp::CmpSwap:
    return old == compare ? data : old;
  case AtomicOp::Add:
    return U(old + data);
  case AtomicOp::Sub:
    return U(old - data);
  case AtomicOp::SMin:
    return S(old) < S(data) ? old : data;
  case AtomicOp::UMin:
    return old < data ? old : data;
  case AtomicOp::SMax:
    return S(old) > S(data) ? old : data;
  case AtomicOp::UMax:
    return old > data ? old : data;
  case AtomicOp::And:
    return old & data;
  case AtomicOp::Or:
    return old | data;
  case AtomicOp::Xor:
    return old ^ data;
  // inc / dec wrap at `data` (the ISA's "(tmp >= src) ? 0 : tmp + 1").
  case AtomicOp::Inc:
    return old >= data ? U(0) : U(old + 1);
  case AtomicOp::Dec:
    return old == 0 || old > data ? data : U(old - 1);
  }
  return old;
}

// global_atomic_<op> [vdst,] vaddr, vdata, saddr|off [glc / sc0] (flat_:
// no saddr): with glc (sc0 on gfx940) the instruction returns the old
// value in vdst, which then leads the operands. Lanes update in lane order,
// each atomically with respect to the others: the emulator runs one wave at a
// time.
template <typename U, AtomicOp Op>
void globalAtomic(Wave &w, const Instruction &in) {
  constexpr unsigned bytes = sizeof(U), dwords = bytes / 4;
  bool returns = in.flags & kGlc;
  const Operand &vaddr = in.ops[returns ? 1 : 0];
  const Operand &vdata = in.ops[returns ? 2 : 1];
  // flat_atomic_* has no saddr operand: its vaddr is the whole address.
  static const Operand off{OperandKind::Off};
  unsigned saddrAt = returns ? 3 : 2;
  const Operand &saddr = in.numOperands > saddrAt ? in.ops[saddrAt] : off;
  bool ok = true;
  forEachActiveLane(w, [&](unsigned l) {
    if (!ok)
      return;
    uint64_t address = globalAddress(w, in, vaddr, saddr, l);
    if (!(ok = checkGlobal(w, int(l), address, bytes, true)))
      return;
    auto operand = [&](unsigned first) {
      U value = 0;
      for (unsigned i = 0; i < dwords; ++i)
        value |= U(read32(w, vdata, l, first + i)) << (32 * i);
      return value;
    };
    U data = operand(0);
    U compare = Op == AtomicOp::CmpSwap ? operand(dwords) : U(0);
    U old;
    std::memcpy(&old, reinterpret_cast<const void *>(address), bytes);
    U updated = atomicResult<U>(Op, old, data, compare);
    std::memcpy(reinterpret_cast<void *>(address), &updated, bytes);
    if (returns)
      for (unsigned i = 0; i < dwords; ++i)
        write32(w, in.ops[0], l, uint32_t(old >> (32 * i)), i);
    w.dispatch->counters.globalBytesStored += bytes;
  });
  profileGlobal(w, bytes, [&](unsigned l) {
    return globalAddress(w, in, vaddr, saddr, l);
  });
}

// ds_read vdst, vaddr [offset:N]; ds_write vaddr, vdata [offset:N].
template <unsigned Bytes, Extend Ext> void ldsLoad(Wave &w, const Instruction &in) {
  bool ok = true;
  forEachActiveLane(w, [&](unsigned l) {
    if (!ok)
      return;
    uint32_t address = read32(w, in.ops[1], l) + uint32_t(in.offset);
    if (!(ok = checkLds(w, l, address, Bytes, false)))
      return;
    writeLoaded<Bytes, Ext>(w, in.ops[0], l, w.group->lds.data() + address);
  });
  w.dispatch->counters.ldsBytesLoaded += Bytes * __builtin_popcountll(w.exec());
  profileLds(w, Bytes, [&](unsigned l) {
    return read32(w, in.ops[1], l) + uint32_t(in.offset);
  });
}
template <unsigned Bytes, bool High> void ldsStore(Wave &w, const Instruction &in) {
  bool ok = true;
  forEachActiveLane(w, [&](unsigned l) {
    if (!ok)
      return;
    uint32_t address = read32(w, in.ops[0], l) + uint32_t(in.offset);
    if (!(ok = checkLds(w, l, address, Bytes, true)))
      return;
    readStored<Bytes, High>(w, in.ops[1], l, w.group->lds.data() + address);
  });
  w.dispatch->counters.ldsBytesStored += Bytes * __builtin_popcountll(w.exec());
  profileLds(w, Bytes, [&](unsigned l) {
    return read32(w, in.ops[0], l) + uint32_t(in.offset);
  });
}
// ds_read2[st64] vdst(2 elements), vaddr offset0:A offset1:B: the offsets
// count elements (64 elements for st64).
template <unsigned Bytes, unsigned Stride>
void ldsLoad2(Wave &w, const Instruction &in) {
  bool ok = true;
  forEachActiveLane(w, [&](unsigned l) {
    uint32_t base = read32(w, in.ops[1], l);
    for (unsigned k = 0; k < 2 && ok; ++k) {
      uint32_t address = base + uint32_t(k ? in.offset1 : in.offset) * Bytes * Stride;
      if (!(ok = checkLds(w, l, address, Bytes, false)))
        return;
      for (unsigned i = 0; i < Bytes / 4; ++i) {
        uint32_t v;
        std::memcpy(&v, w.group->lds.data() + address + 4 * i, 4);
        write32(w, in.ops[0], l, v, k * (Bytes / 4) + i);
      }
    }
  });
  w.dispatch->counters.ldsBytesLoaded += 2 * Bytes * __builtin_popcountll(w.exec());
  for (unsigned k = 0; k < 2; ++k)
    profileLds(
        w, Bytes,
        [&](unsigned l) {
          int32_t offset = k ? in.offset1 : in.offset;
          return read32(w, in.ops[1], l) + uint32_t(offset) * Bytes * Stride;
        },
        /*sameRequest=*/k == 1);
}
// ds_write2[st64] vaddr, vdata0, vdata1 offset0:A offset1:B.
template <unsigned Bytes, unsigned Stride>
void ldsStore2(Wave &w, const Instruction &in) {
  bool ok = true;
  forEachActiveLane(w, [&](unsigned l) {
    uint32_t base = read32(w, in.ops[0], l);
    for (unsigned k = 0; k < 2 && ok; ++k) {
      uint32_t address = base + uint32_t(k ? in.offset1 : in.offset) * Bytes * Stride;
      if (!(ok = checkLds(w, l, address, Bytes, true)))
        return;
      for (unsigned i = 0; i < Bytes / 4; ++i) {
        uint32_t v = read32(w, in.ops[1 + k], l, i);
        std::memcpy(w.group->lds.data() + address + 4 * i, &v, 4);
      }
    }
  });
  w.dispatch->counters.ldsBytesStored += 2 * Bytes * __builtin_popcountll(w.exec());
  for (unsigned k = 0; k < 2; ++k)
    profileLds(
        w, Bytes,
        [&](unsigned l) {
          int32_t offset = k ? in.offset1 : in.offset;
          return read32(w, in.ops[0], l) + uint32_t(offset) * Bytes * Stride;
        },
        /*sameRequest=*/k == 1);
}

/// MUBUF: buffer_load vdata, vaddr|off, srsrc, soffset [offen] [idxen]
/// [offset:N] (stores name their data first too). The resource holds the
/// base address (48 bits), the stride (dword 1, bits 16-29) and the number
/// of records (dword 2). An access outside the records loads zeros and
/// stores nothing, as the hardware's range check does: the bounds check
/// MLIR's amdgpu.raw_buffer_load/store rely on. Inside, the address must
/// be in a live allocation like any global access.
struct BufferAccess {
  uint64_t address = 0;
  bool inRange = false;
};
BufferAccess bufferAccess(const Wave &w, const Instruction &in, unsigned lane,
                          unsigned bytes) {
  const Operand &vaddr = in.ops[1], &rsrc = in.ops[2], &soffset = in.ops[3];
  uint32_t d0 = scalar32(w, rsrc, 0), d1 = scalar32(w, rsrc, 1);
  uint32_t records = scalar32(w, rsrc, 2);
  uint64_t base = d0 | (uint64_t(d1 & 0xffff) << 32);
  uint32_t stride = (d1 >> 16) & 0x3fff;
  uint64_t index = 0, offset = 0;
  bool idxen = in.flags & kIdxen, offen = in.flags & kOffen;
  if (idxen && offen) {
    index = read32(w, vaddr, lane, 0);
    offset = read32(w, vaddr, lane, 1);
  } else if (idxen) {
    index = read32(w, vaddr, lane);
  } else if (offen) {
    offset = read32(w, vaddr, lane);
  }
  offset += uint32_t(in.offset) + scalar32(w, soffset);
  BufferAccess access;
  access.address = base + index * stride + offset;
  access.inRange = stride != 0 && idxen ? index < records
                                        : offset + bytes <= uint64_t(records);
  return access;
}
template <unsigned Bytes, Extend Ext>
void bufferLoad(Wave &w, const Instruction &in) {
  bool ok = true;
  forEachActiveLane(w, [&](unsigned l) {
    if (!ok)
      return;
    BufferAccess a = bufferAccess(w, in, l, Bytes);
    static const uint8_t zeros[16] = {};
    if (!a.inRange) {
      writeLoaded<Bytes, Ext>(w, in.ops[0], l, zeros);
      return;
    }
    if (!(ok = checkGlobal(w, int(l), a.address, Bytes, false)))
      return;
    writeLoaded<Bytes, Ext>(w, in.ops[0], l,
                            reinterpret_cast<const uint8_t *>(a.address));
    w.dispatch->counters.globalBytesLoaded += Bytes;
  });
}
template <unsigned Bytes, bool High>
void bufferStore(Wave &w, const Instruction &in) {
  bool ok = true;
  forEachActiveLane(w, [&](unsigned l) {
    if (!ok)
      return;
    BufferAccess a = bufferAccess(w, in, l, Bytes);
    if (!a.inRange)
      return;
    if (!(ok = checkGlobal(w, int(l), a.address, Bytes, true)))
      return;
    readStored<Bytes, High>(w, in.ops[0], l, reinterpret_cast<uint8_t *>(a.address));
    w.dispatch->counters.globalBytesStored += Bytes;
  });
}

/// Scratch (architected flat scratch, gfx940+ and gfx11): each lane's
/// private segment; address = vaddr|0 + saddr|0 + offset.
uint8_t *scratchAt(Wave &w, int lane, const Instruction &in, const Operand &vaddr,
                   const Operand &saddr, unsigned bytes, bool store) {
  uint64_t address = int64_t(in.offset);
  if (vaddr.kind != OperandKind::Off)
    address += read32(w, vaddr, lane);
  if (saddr.kind != OperandKind::Off)
    address += scalar32(w, saddr);
  size_t perLane = w.scratch.size() / 64;
  if (address + bytes > perLane) {
    fail(w, lane, kHipErrorIllegalAddress,
         std::string("out-of-bounds scratch ") + (store ? "store" : "load") +
             " of " + std::to_string(bytes) + " bytes at private offset " +
             std::to_string(address) + ", the kernel's private segment has " +
             std::to_string(perLane) + " bytes");
    return nullptr;
  }
  return w.scratch.data() + size_t(lane) * perLane + address;
}
// scratch_load vdst, vaddr|off, saddr|off; scratch_store vaddr|off, vdata, saddr|off.
template <unsigned Bytes, Extend Ext> void scratchLoad(Wave &w, const Instruction &in) {
  bool ok = true;
  forEachActiveLane(w, [&](unsigned l) {
    if (!ok)
      return;
    uint8_t *p = scratchAt(w, int(l), in, in.ops[1], in.ops[2], Bytes, false);
    if (!(ok = p != nullptr))
      return;
    writeLoaded<Bytes, Ext>(w, in.ops[0], l, p);
  });
}
template <unsigned Bytes, bool High> void scratchStore(Wave &w, const Instruction &in) {
  bool ok = true;
  forEachActiveLane(w, [&](unsigned l) {
    if (!ok)
      return;
    uint8_t *p = scratchAt(w, int(l), in, in.ops[0], in.ops[2], Bytes, true);
    if (!(ok = p != nullptr))
      return;
    readStored<Bytes, High>(w, in.ops[1], l, p);
  });
}

} // namespace

void registerMemoryOps(HandlerTable &t) {
  auto add = [&](const std::string &name, Handler h) { t[name] = {h, false}; };
  // Scalar loads (gfx9 / gfx11 names).
  add("s_load_dword", scalarLoad<1>), add("s_load_b32", scalarLoad<1>);
  add("s_load_dwordx2", scalarLoad<2>), add("s_load_b64", scalarLoad<2>);
  add("s_load_dwordx4", scalarLoad<4>), add("s_load_b128", scalarLoad<4>);
  add("s_load_dwordx8", scalarLoad<8>), add("s_load_b256", scalarLoad<8>);
  add("s_load_dwordx16", scalarLoad<16>), add("s_load_b512", scalarLoad<16>);

  // Global and scratch: the same shapes under two prefixes.
  // Global, flat, scratch and buffer: the same shapes under four prefixes.
  struct Shape { const char *gfx9, *gfx11; Handler global, scratch, buffer; };
#define LOAD(gfx9, gfx11, bytes, ext)                                          \
  {gfx9, gfx11, globalLoad<bytes, Extend::ext>, scratchLoad<bytes, Extend::ext>, \
   bufferLoad<bytes, Extend::ext>}
#define STORE(gfx9, gfx11, bytes, high)                                        \
  {gfx9, gfx11, globalStore<bytes, high>, scratchStore<bytes, high>,           \
   bufferStore<bytes, high>}
  const Shape shapes[] = {
      LOAD("load_ubyte", "load_u8", 1, Zero),
      LOAD("load_sbyte", "load_i8", 1, Sign),
      LOAD("load_ushort", "load_u16", 2, Zero),
      LOAD("load_sshort", "load_i16", 2, Sign),
      LOAD("load_short_d16", "load_d16_b16", 2, Low16),
      LOAD("load_short_d16_hi", "load_d16_hi_b16", 2, High16),
      LOAD("load_ubyte_d16", "load_d16_u8", 1, Low16),
      LOAD("load_ubyte_d16_hi", "load_d16_hi_u8", 1, High16),
      LOAD("load_dword", "load_b32", 4, Zero),
      LOAD("load_dwordx2", "load_b64", 8, Zero),
      LOAD("load_dwordx3", "load_b96", 12, Zero),
      LOAD("load_dwordx4", "load_b128", 16, Zero),
      STORE("store_byte", "store_b8", 1, false),
      STORE("store_byte_d16_hi", "store_d16_hi_b8", 1, true),
      STORE("store_short", "store_b16", 2, false),
      STORE("store_short_d16_hi", "store_d16_hi_b16", 2, true),
      STORE("store_dword", "store_b32", 4, false),
      STORE("store_dwordx2", "store_b64", 8, false),
      STORE("store_dwordx3", "store_b96", 12, false),
      STORE("store_dwordx4", "store_b128", 16, false),
  };
#undef LOAD
#undef STORE
  for (const Shape &s : shapes) {
    for (const char *name : {s.gfx9, s.gfx11}) {
      add(std::string("global_") + name, s.global);
      add(std::string("flat_") + name, s.global);
      add(std::string("scratch_") + name, s.scratch);
      add(std::string("buffer_") + name, s.buffer);
    }
  }

  // Global atomics, 32 and 64 bits (gfx9 / gfx11 names).
  struct Atomic {
    const char *gfx9, *gfx11_32, *gfx11_64;
    Handler h32, h64;
  };
#define ATOMIC(gfx9, gfx11, op)                                                \
  {                                                                            \
    gfx9, gfx11 "32", gfx11 "64", globalAtomic<uint32_t, AtomicOp::op>,        \
        globalAtomic<uint64_t, AtomicOp::op>                                   \
  }
  const Atomic atomics[] = {
      ATOMIC("swap", "swap_b", Swap), ATOMIC("cmpswap", "cmpswap_b", CmpSwap),
      ATOMIC("add", "add_u", Add),    ATOMIC("sub", "sub_u", Sub),
      ATOMIC("smin", "min_i", SMin),  ATOMIC("umin", "min_u", UMin),
      ATOMIC("smax", "max_i", SMax),  ATOMIC("umax", "max_u", UMax),
      ATOMIC("and", "and_b", And),    ATOMIC("or", "or_b", Or),
      ATOMIC("xor", "xor_b", Xor),    ATOMIC("inc", "inc_u", Inc),
      ATOMIC("dec", "dec_u", Dec),
  };
#undef ATOMIC
  for (const Atomic &a : atomics) {
    for (const char *prefix : {"global_atomic_", "flat_atomic_"}) {
      add(std::string(prefix) + a.gfx9, a.h32);
      add(std::string(prefix) + a.gfx9 + "_x2", a.h64);
      add(std::string(prefix) + a.gfx11_32, a.h32);
      add(std::string(prefix) + a.gfx11_64, a.h64);
    }
  }

  // LDS.
  add("ds_read_u8", ldsLoad<1, Extend::Zero>), add("ds_load_u8", ldsLoad<1, Extend::Zero>);
  add("ds_read_i8", ldsLoad<1, Extend::Sign>), add("ds_load_i8", ldsLoad<1, Extend::Sign>);
  add("ds_read_u16", ldsLoad<2, Extend::Zero>), add("ds_load_u16", ldsLoad<2, Extend::Zero>);
  add("ds_read_i16", ldsLoad<2, Extend::Sign>), add("ds_load_i16", ldsLoad<2, Extend::Sign>);
  add("ds_read_u16_d16", ldsLoad<2, Extend::Low16>), add("ds_load_u16_d16", ldsLoad<2, Extend::Low16>);
  add("ds_read_u16_d16_hi", ldsLoad<2, Extend::High16>), add("ds_load_u16_d16_hi", ldsLoad<2, Extend::High16>);
  add("ds_read_u8_d16", ldsLoad<1, Extend::Low16>), add("ds_load_u8_d16", ldsLoad<1, Extend::Low16>);
  add("ds_read_u8_d16_hi", ldsLoad<1, Extend::High16>), add("ds_load_u8_d16_hi", ldsLoad<1, Extend::High16>);
  add("ds_read_b32", ldsLoad<4, Extend::Zero>), add("ds_load_b32", ldsLoad<4, Extend::Zero>);
  add("ds_read_b64", ldsLoad<8, Extend::Zero>), add("ds_load_b64", ldsLoad<8, Extend::Zero>);
  add("ds_read_b96", ldsLoad<12, Extend::Zero>), add("ds_load_b96", ldsLoad<12, Extend::Zero>);
  add("ds_read_b128", ldsLoad<16, Extend::Zero>), add("ds_load_b128", ldsLoad<16, Extend::Zero>);
  add("ds_write_b8", ldsStore<1, false>), add("ds_store_b8", ldsStore<1, false>);
  add("ds_write_b8_d16_hi", ldsStore<1, true>), add("ds_store_b8_d16_hi", ldsStore<1, true>);
  add("ds_write_b16", ldsStore<2, false>), add("ds_store_b16", ldsStore<2, false>);
  add("ds_write_b16_d16_hi", ldsStore<2, true>), add("ds_store_b16_d16_hi", ldsStore<2, true>);
  add("ds_write_b32", ldsStore<4, false>), add("ds_store_b32", ldsStore<4, false>);
  add("ds_write_b64", ldsStore<8, false>), add("ds_store_b64", ldsStore<8, false>);
  add("ds_write_b96", ldsStore<12, false>), add("ds_store_b96", ldsStore<12, false>);
  add("ds_write_b128", ldsStore<16, false>), add("ds_store_b128", ldsStore<16, false>);
  add("ds_read2_b32", ldsLoad2<4, 1>), add("ds_load_2addr_b32", ldsLoad2<4, 1>);
  add("ds_read2_b64", ldsLoad2<8, 1>), add("ds_load_2addr_b64", ldsLoad2<8, 1>);
  add("ds_read2st64_b32", ldsLoad2<4, 64>), add("ds_load_2addr_stride64_b32", ldsLoad2<4, 64>);
  add("ds_read2st64_b64", ldsLoad2<8, 64>), add("ds_load_2addr_stride64_b64", ldsLoad2<8, 64>);
  add("ds_write2_b32", ldsStore2<4, 1>), add("ds_store_2addr_b32", ldsStore2<4, 1>);
  add("ds_write2_b64", ldsStore2<8, 1>), add("ds_store_2addr_b64", ldsStore2<8, 1>);
  add("ds_write2st64_b32", ldsStore2<4, 64>), add("ds_store_2addr_stride64_b32", ldsStore2<4, 64>);
  add("ds_write2st64_b64", ldsStore2<8, 64>), add("ds_store_2addr_stride64_b64", ldsStore2<8, 64>);
}

} // namespace quilt::amdgcn
