//===- TestUtil.h - Shared helpers of the cost-model unit tests -----------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_UNITTESTS_COSTMODEL_TESTUTIL_H
#define QUILT_UNITTESTS_COSTMODEL_TESTUTIL_H

#include "CostModel/KernelConfig.h"
#include "CostModel/TargetDatabase.h"

#include "gtest/gtest.h"

namespace quilt {

/// A built-in target; fails the test when it is missing.
inline const TargetDesc &builtinTarget(const char *name) {
  const TargetDesc *t = TargetDatabase::builtin().lookup(name);
  EXPECT_NE(t, nullptr) << "missing built-in target " << name;
  static TargetDesc empty;
  return t ? *t : empty;
}

/// A valid mma.sync f16 config for sm_80+: 128x128x32, 4 warps as 2x2,
/// 64x64 warp tiles.
inline KernelConfig mmaConfig() {
  KernelConfig c;
  c.tileM = 128, c.tileN = 128, c.tileK = 32;
  c.threads = 128, c.warpsM = 2, c.warpsN = 2;
  c.threadTileM = 8, c.threadTileN = 16;
  c.vectorWidth = 8, c.stages = 3;
  c.inst = InstKind::MmaSyncF16;
  return c;
}

/// A valid wgmma config for sm_90a: 128x128x64, one warpgroup.
inline KernelConfig wgmmaConfig() {
  KernelConfig c;
  c.tileM = 128, c.tileN = 128, c.tileK = 64;
  c.threads = 128, c.warpsM = 4, c.warpsN = 1;
  c.threadTileM = 4, c.threadTileN = 32;
  c.vectorWidth = 8, c.stages = 4;
  c.inst = InstKind::Wgmma;
  return c;
}

/// A valid AVX2 register-blocked config: 6x16 register block.
inline KernelConfig avx2Config() {
  KernelConfig c;
  c.tileM = 96, c.tileN = 256, c.tileK = 256;
  c.threadTileM = 6, c.threadTileN = 16;
  c.vectorWidth = 8;
  c.inst = InstKind::CpuFma;
  return c;
}

/// The configuration `text` spells (KernelConfig::str's syntax); fails the
/// test when it does not parse.
inline KernelConfig parseOrDie(const std::string &text) {
  std::string error;
  std::optional<KernelConfig> c = parseKernelConfig(text, error);
  EXPECT_TRUE(c.has_value()) << text << ": " << error;
  return c.value_or(KernelConfig());
}

} // namespace quilt

#endif // QUILT_UNITTESTS_COSTMODEL_TESTUTIL_H
