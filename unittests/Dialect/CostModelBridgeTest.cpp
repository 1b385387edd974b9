//===- CostModelBridgeTest.cpp - Attributes <-> cost-model structs --------===//
//
// Part of the Quilt project. The dialect and the cost-model library must
// describe the same hardware and configurations: every built-in target and
// configuration survives a trip through the attributes unchanged, and the
// enums are spelled the same on both sides.
//
//===----------------------------------------------------------------------===//

#include "CostModel/TargetDatabase.h"
#include "Dialect/UKernel/IR/CostModelBridge.h"
#include "Dialect/UKernel/IR/UKernelDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::ukernel;

namespace {

class BridgeTest : public ::testing::Test {
protected:
  BridgeTest() { context.loadDialect<UKernelDialect>(); }
  MLIRContext context;
};

TEST_F(BridgeTest, EnumSpellingsAgree) {
  for (int i = 0; i < quilt::kNumInstKinds; ++i) {
    auto kind = static_cast<InstructionKind>(i);
    EXPECT_EQ(stringifyInstructionKind(kind).str(),
              std::string(quilt::stringify(toCostModel(kind))));
  }
  EXPECT_FALSE(symbolizeInstructionKind("cpu_fma_") &&
               quilt::parseInstKind("cpu_fma_"));
  for (auto policy :
       {BoundaryPolicy::mask, BoundaryPolicy::pad, BoundaryPolicy::patch})
    EXPECT_EQ(stringifyBoundaryPolicy(policy).str(),
              std::string(quilt::stringify(toCostModel(policy))));
  for (auto vendor : {Vendor::nvidia, Vendor::amd, Vendor::cpu})
    EXPECT_EQ(stringifyVendor(vendor).str(),
              std::string(quilt::stringify(toCostModel(vendor))));
}

TEST_F(BridgeTest, EveryBuiltinTargetRoundTrips) {
  const quilt::TargetDatabase &db = quilt::TargetDatabase::builtin();
  ASSERT_FALSE(db.targets().empty());
  for (const quilt::TargetDesc &desc : db.targets()) {
    SCOPED_TRACE(desc.name);
    TargetAttr attr = getTargetAttr(&context, desc);
    ASSERT_TRUE(attr);
    quilt::TargetDesc back = toTargetDesc(attr);
    EXPECT_EQ(back.name, desc.name);
    EXPECT_EQ(back.vendor, desc.vendor);
    EXPECT_EQ(back.chip, desc.chip);
    EXPECT_EQ(back.description, desc.description);
    EXPECT_EQ(back.computeUnits, desc.computeUnits);
    EXPECT_EQ(back.warpSize, desc.warpSize);
    EXPECT_EQ(back.sharedMemPerBlock, desc.sharedMemPerBlock);
    EXPECT_EQ(back.registersPerCU, desc.registersPerCU);
    EXPECT_EQ(back.l2Bytes, desc.l2Bytes);
    EXPECT_EQ(back.vectorBits, desc.vectorBits);
    EXPECT_DOUBLE_EQ(back.memBandwidthGBs, desc.memBandwidthGBs);
    EXPECT_DOUBLE_EQ(back.clockGHz, desc.clockGHz);
    EXPECT_DOUBLE_EQ(back.onChipBytesPerClock, desc.onChipBytesPerClock);
    EXPECT_EQ(back.peakTflops, desc.peakTflops);
    EXPECT_EQ(back.calibration, desc.calibration);

    // The printed attribute parses back to the same attribute.
    std::string text;
    llvm::raw_string_ostream os(text);
    os << attr;
    EXPECT_EQ(parseAttribute(text, &context), Attribute(attr)) << text;
  }
}

TEST_F(BridgeTest, ConfigRoundTrips) {
  quilt::KernelConfig cfg;
  cfg.tileM = 128;
  cfg.tileN = 64;
  cfg.tileK = 32;
  cfg.threads = 128;
  cfg.warpsM = 2;
  cfg.warpsN = 2;
  cfg.threadTileM = 8;
  cfg.threadTileN = 8;
  cfg.vectorWidth = 8;
  cfg.stages = 3;
  cfg.splitK = 2;
  cfg.inst = quilt::InstKind::MmaSyncF16;
  cfg.boundary = quilt::BoundaryPolicy::Patch;
  ConfigAttr attr = getConfigAttr(&context, cfg);
  EXPECT_EQ(toKernelConfig(attr), cfg);
}

TEST_F(BridgeTest, ElementTypes) {
  Builder b(&context);
  EXPECT_EQ(toCostModelElemType(b.getF32Type()), quilt::ElemType::F32);
  EXPECT_EQ(toCostModelElemType(b.getF16Type()), quilt::ElemType::F16);
  EXPECT_EQ(toCostModelElemType(b.getBF16Type()), quilt::ElemType::BF16);
  EXPECT_EQ(toCostModelElemType(b.getF64Type()), quilt::ElemType::F64);
  EXPECT_EQ(toCostModelElemType(b.getType<Float8E4M3FNType>()), std::nullopt);
  EXPECT_EQ(toCostModelElemType(b.getI32Type()), std::nullopt);
}

} // namespace
