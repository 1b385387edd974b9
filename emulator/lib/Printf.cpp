//===- Printf.cpp - vprintf, the one device function kernels call ---------===//
//
// Part of the Quilt project.
//
// `call.uni (ret), vprintf, (fmt, args);` with fmt a generic pointer to the
// format string and args a generic pointer to the arguments, each aligned to
// its size (the CUDA printf ABI: integers up to 32 bits as 4 bytes, 64-bit
// integers, pointers and doubles as 8; floats are promoted to double).
// Output goes to stdout in execution order.
//
//===----------------------------------------------------------------------===//

#include "Cta.h"
#include "DeviceMemory.h"

#include <cstdio>
#include <string>

namespace quilt::emu {
bool Cta::executePrintf(Warp &w, const Instruction &inst, uint32_t exec) {
  const std::vector<Operand> &ops = inst.operands;
  // call.uni [(ret),] vprintf, (fmt, args)
  const Operand *params = nullptr;
  const Operand *result = nullptr;
  for (const Operand &op : ops)
    if (op.kind == Operand::Kind::Vector)
      (params ? result = params, params = &op : params = &op);
  if (result == nullptr && ops.size() == 3)
    result = &ops[0];
  if (!params || params->elements.size() != 2)
    return fail(kErrorIllegalAddress, "invalid vprintf call", inst, w,
                __builtin_ctz(exec), "expected (format, arguments)");
  for (int lane = 0; lane < 32; ++lane) {
    if (!(exec >> lane & 1))
      continue;
    uint64_t formatAddress = 0, argsAddress = 0;
    if (!load(w, lane, inst, Space::Param,
              addressOf(w, lane, params->elements[0]), &formatAddress, 8) ||
        !load(w, lane, inst, Space::Param,
              addressOf(w, lane, params->elements[1]), &argsAddress, 8))
      return false;
    std::string format;
    for (uint64_t a = formatAddress;; ++a) {
      char c;
      if (!load(w, lane, inst, Space::Generic, a, &c, 1))
        return false;
      if (!c)
        break;
      format += c;
    }
    std::string out;
    uint64_t cursor = argsAddress;
    auto next = [&](unsigned bytes, uint64_t &value) {
      cursor = (cursor + bytes - 1) / bytes * bytes;
      value = 0;
      bool ok = load(w, lane, inst, Space::Generic, cursor, &value, bytes);
      cursor += bytes;
      return ok;
    };
    for (size_t i = 0; i < format.size(); ++i) {
      if (format[i] != '%') {
        out += format[i];
        continue;
      }
      size_t start = i++;
      while (i < format.size() && std::strchr("-+ #0123456789.*", format[i]))
        ++i;
      int longs = 0;
      while (i < format.size() && std::strchr("hlLzjt", format[i])) {
        longs += format[i] == 'l' || format[i] == 'L' || format[i] == 'z' ||
                 format[i] == 'j' || format[i] == 't';
        ++i;
      }
      if (i >= format.size())
        break;
      char conv = format[i];
      std::string spec = format.substr(start, i - start);
      // Drop length modifiers; the host call gets a full-width value.
      std::string flags;
      for (char c : spec)
        if (!std::strchr("hlLzjt", c))
          flags += c;
      char buffer[512];
      uint64_t v = 0;
      if (conv == '%') {
        out += '%';
        continue;
      }
      if (std::strchr("diouxXc", conv)) {
        if (!next(longs ? 8 : 4, v))
          return false;
        std::string f = flags + "ll" + conv;
        long long sv = longs ? (long long)(int64_t)v : (long long)(int32_t)v;
        unsigned long long uv = longs ? v : uint32_t(v);
        if (conv == 'c')
          std::snprintf(buffer, sizeof(buffer), (flags + "c").c_str(), int(v));
        else if (conv == 'd' || conv == 'i')
          std::snprintf(buffer, sizeof(buffer), f.c_str(), sv);
        else
          std::snprintf(buffer, sizeof(buffer), f.c_str(), uv);
      } else if (std::strchr("feEgGaA", conv)) {
        if (!next(8, v))
          return false;
        std::snprintf(buffer, sizeof(buffer), (flags + conv).c_str(), asF64(v));
      } else if (conv == 'p') {
        if (!next(8, v))
          return false;
        std::snprintf(buffer, sizeof(buffer), "0x%llx", (unsigned long long)v);
      } else if (conv == 's') {
        if (!next(8, v))
          return false;
        std::string s;
        for (uint64_t a = v;; ++a) {
          char c;
          if (!load(w, lane, inst, Space::Generic, a, &c, 1))
            return false;
          if (!c)
            break;
          s += c;
        }
        std::snprintf(buffer, sizeof(buffer), (flags + "s").c_str(), s.c_str());
      } else {
        buffer[0] = '\0';
      }
      out += buffer;
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (result && result->kind == Operand::Kind::Vector &&
        !result->elements.empty()) {
      uint32_t written = uint32_t(out.size());
      const Operand &r = result->elements[0];
      if (r.kind == Operand::Kind::Symbol &&
          !store(w, lane, inst, Space::Param, r.imm, &written, 4))
        return false;
    }
  }
  std::fflush(stdout);
  return true;
}

} // namespace quilt::emu
