//===- TestWave.h - A wave to run single instructions on --------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_UNITTESTS_AMDGCNEMULATOR_TESTWAVE_H
#define QUILT_UNITTESTS_AMDGCNEMULATOR_TESTWAVE_H

#include "Decoder.h"
#include "Dispatch.h"

#include "gtest/gtest.h"

namespace quilt::amdgcn {

/// A wave of `width` lanes, all active, in a workgroup with `ldsBytes` of
/// LDS, outside any launch.
struct TestWave {
  explicit TestWave(unsigned width = 64, size_t ldsBytes = 0) {
    kernel.info.name = "test";
    dispatch.kernel = &kernel;
    group.lds.assign(ldsBytes, 0);
    group.races.reset(ldsBytes);
    group.races.setWarpSize(width);
    wave.width = width;
    wave.v.assign(size_t(kVectorFileSize + kRegisterSlack) * 64, 0);
    wave.dispatch = &dispatch;
    wave.group = &group;
    wave.setExec(wave.laneMask());
  }

  /// Decodes `text` as LLVM prints it and executes it.
  void run(const std::string &text) {
    auto in = parseInstruction(text);
    ASSERT_TRUE(bool(in)) << llvm::toString(in.takeError());
    instruction = std::move(*in);
    wave.current = &instruction;
    instruction.handler(wave, instruction);
  }

  uint32_t &v(unsigned reg, unsigned lane) { return wave.vreg(reg)[lane]; }
  uint32_t &s(unsigned reg) { return wave.s[reg]; }

  LoadedKernel kernel;
  Dispatch dispatch;
  Workgroup group;
  Wave wave;
  Instruction instruction;
};

} // namespace quilt::amdgcn

#endif // QUILT_UNITTESTS_AMDGCNEMULATOR_TESTWAVE_H
