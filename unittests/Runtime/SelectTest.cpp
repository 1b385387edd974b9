//===- SelectTest.cpp - quilt_rt_select, the run-time selection ABI -------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "QuiltRuntime.h"

#include "CostModel/Candidates.h"
#include "CostModel/DeviceFacts.h"
#include "CostModel/Dispatch.h"
#include "CostModel/SelectionSpec.h"
#include "CostModel/TargetDatabase.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

using namespace quilt;

namespace {

SelectionSpec specFor(const char *target, ElemType elem,
                      SelectionPolicy policy = SelectionPolicy::CostModel) {
  SelectionSpec spec;
  spec.target = *TargetDatabase::builtin().lookup(target);
  spec.elem = elem;
  spec.policy = policy;
  spec.candidates = generateCandidates(OpKind::Matmul, elem, spec.target);
  return spec;
}

/// What the library's own selection says for the same spec and shape.
Selection expected(const SelectionSpec &spec, GemmShape shape) {
  PreparedTable table;
  std::string error;
  EXPECT_TRUE(prepareTable(spec.candidates, spec.elem, spec.target,
                           spec.target.calibration, table, error))
      << error;
  table.policy = spec.policy;
  table.fixedIndex = spec.fixedIndex;
  Selection selection;
  EXPECT_EQ(selectKernel(table, shape, selection), SelectStatus::Ok);
  return selection;
}

/// A compiled dispatch's slot for its prepared table, released when the
/// test ends as a loaded library's destructor releases its slots (so that
/// the sanitizer build's leak check sees only real leaks).
struct SelectionSlot {
  void *table = nullptr;
  ~SelectionSlot() { quilt_rt_release(&table); }
};

TEST(QuiltRtSelect, AgreesWithTheLibraryOnEveryShape) {
  for (auto [target, elem] :
       {std::pair{"h100", ElemType::F16}, std::pair{"host-avx2", ElemType::F32},
        std::pair{"mi300x", ElemType::BF16}}) {
    for (SelectionPolicy policy :
         {SelectionPolicy::CostModel, SelectionPolicy::Patch,
          SelectionPolicy::Pad}) {
      SelectionSpec spec = specFor(target, elem, policy);
      std::string text = formatSelectionSpec(spec);
      SelectionSlot cache;
      for (GemmShape shape :
           {GemmShape{1, 1000, 768, 3072}, GemmShape{192, 43, 64, 43},
            GemmShape{1, 1040, 8192, 8192}, GemmShape{1, 7, 13, 17}}) {
        SCOPED_TRACE(std::string(target) + " m=" + std::to_string(shape.m));
        int64_t out[4];
        ASSERT_EQ(quilt_rt_select(text.c_str(), &cache.table, shape.b, shape.m,
                                  shape.n, shape.k, out),
                  QUILT_STATUS_OK)
            << quilt_rt_last_error();
        Selection want = expected(spec, shape);
        EXPECT_EQ(out[0], want.candidate);
        EXPECT_EQ(out[1],
                  want.remainder >= 0 ? want.remainder : want.candidate);
        EXPECT_EQ(out[2],
                  want.patchDim == PatchDim::M ? want.mainExtent : shape.m);
        EXPECT_EQ(out[3],
                  want.patchDim == PatchDim::N ? want.mainExtent : shape.n);
      }
      EXPECT_NE(cache.table, nullptr) << "the prepared table is cached";
    }
  }
}

TEST(QuiltRtSelect, FixedPolicyAndZeroSizes) {
  SelectionSpec spec =
      specFor("host-avx512", ElemType::F32, SelectionPolicy::Fixed);
  spec.fixedIndex = 2;
  std::string text = formatSelectionSpec(spec);
  SelectionSlot cache;
  int64_t out[4];
  ASSERT_EQ(quilt_rt_select(text.c_str(), &cache.table, 1, 500, 300, 200, out),
            0);
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 2);
  EXPECT_EQ(out[2], 500);
  EXPECT_EQ(out[3], 300);
  ASSERT_EQ(quilt_rt_select(text.c_str(), &cache.table, 1, 0, 300, 200, out),
            0);
  EXPECT_EQ(out[2], 0);
  // Only the fixed candidate's kernel is compiled: forcing another leaves
  // the dispatch its own.
  quilt_rt_force_kernel(3);
  ASSERT_EQ(quilt_rt_select(text.c_str(), &cache.table, 1, 500, 300, 200, out),
            0);
  quilt_rt_force_kernel(-1);
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 2);
}

TEST(QuiltRtSelect, ReleaseFreesTheTableAndTheSlotPreparesAgain) {
  SelectionSpec spec =
      specFor("host-avx512", ElemType::F32, SelectionPolicy::Fixed);
  spec.fixedIndex = 1;
  std::string text = formatSelectionSpec(spec);
  void *cache = nullptr;
  int64_t out[4];
  ASSERT_EQ(quilt_rt_select(text.c_str(), &cache, 1, 8, 8, 8, out), 0);
  ASSERT_NE(cache, nullptr);
  quilt_rt_release(&cache);
  EXPECT_EQ(cache, nullptr);
  quilt_rt_release(&cache); // an empty slot, and no slot: nothing to do
  quilt_rt_release(nullptr);
  ASSERT_EQ(quilt_rt_select(text.c_str(), &cache, 1, 8, 8, 8, out), 0);
  EXPECT_EQ(out[0], 1);
  quilt_rt_release(&cache);
  // A slot marked unusable (a bad spec) is released without a free.
  EXPECT_NE(quilt_rt_select("not a spec", &cache, 1, 1, 1, 1, out), 0);
  quilt_rt_release(&cache);
  EXPECT_EQ(cache, nullptr);
}

TEST(QuiltRtSelect, ErrorsLeaveAUsableChoice) {
  int64_t out[4] = {-1, -1, -1, -1};
  SelectionSlot cache;
  EXPECT_EQ(quilt_rt_select("not a spec", &cache.table, 1, 10, 20, 30, out),
            QUILT_RT_STATUS_BAD_SPEC);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out[2], 10);
  EXPECT_EQ(out[3], 20);
  EXPECT_NE(std::string(quilt_rt_last_error()).find("unusable selection spec"),
            std::string::npos);
  // A bad spec is remembered: the next call fails the same way, quickly.
  EXPECT_EQ(quilt_rt_select("not a spec", &cache.table, 1, 10, 20, 30, out),
            QUILT_RT_STATUS_BAD_SPEC);

  std::string text = formatSelectionSpec(specFor("h100", ElemType::F16));
  SelectionSlot good;
  EXPECT_EQ(quilt_rt_select(text.c_str(), &good.table, 1, -5, 20, 30, out),
            QUILT_STATUS_NEGATIVE_DIMENSION);
  EXPECT_EQ(quilt_rt_select(nullptr, &good.table, 1, 5, 20, 30, out),
            QUILT_STATUS_NULL_ARGUMENT);
  EXPECT_EQ(quilt_rt_select(text.c_str(), nullptr, 1, 5, 20, 30, out),
            QUILT_STATUS_NULL_ARGUMENT);
  EXPECT_EQ(quilt_rt_select(text.c_str(), &good.table, 1, 5, 20, 30, nullptr),
            QUILT_STATUS_NULL_ARGUMENT);
}

TEST(QuiltRtSelect, ForcedKernelOverridesTheModel) {
  std::string text = formatSelectionSpec(
      specFor("host-avx512", ElemType::F32, SelectionPolicy::Patch));
  SelectionSlot cache;
  int64_t out[4];
  quilt_rt_force_kernel(3);
  ASSERT_EQ(quilt_rt_select(text.c_str(), &cache.table, 1, 1040, 513, 77, out),
            0);
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(out[1], 3);
  EXPECT_EQ(out[2], 1040);
  EXPECT_EQ(out[3], 513);
  // Out of this dispatch's range: normal selection.
  quilt_rt_force_kernel(1000);
  ASSERT_EQ(quilt_rt_select(text.c_str(), &cache.table, 1, 1040, 513, 77, out),
            0);
  Selection want =
      expected(specFor("host-avx512", ElemType::F32, SelectionPolicy::Patch),
               GemmShape{1, 1040, 513, 77});
  EXPECT_EQ(out[0], want.candidate);
  quilt_rt_force_kernel(-1);
}

TEST(QuiltRtSelect, DeviceFactsModelTheRunningGpu) {
  // The GPU runtime found an H100 PCIe (114 SMs at 1.755 GHz) where the
  // compiler's spec says h100 (the SXM, 132 SMs).
  SelectionSpec sxm = specFor("h100", ElemType::F16);
  SelectionSpec pcie = sxm;
  DeviceFacts facts;
  facts.vendor = Vendor::NVIDIA;
  facts.computeUnits = 114;
  facts.clockGHz = 1.755;
  ASSERT_TRUE(applyDeviceFacts(pcie.target, facts));
  std::string text = formatSelectionSpec(sxm);
  // The facts are the process's: forget them however the test ends.
  struct ForgetFacts {
    ~ForgetFacts() { quilt_rt_set_device_facts(-1, 0, 0, 0, 0); }
  } forget;
  quilt_rt_set_device_facts(QUILT_RT_VENDOR_NVIDIA, 114, 1.755, 0, 0);
  SelectionSlot cache;
  int differ = 0;
  for (int64_t m : {80, 384, 1000, 1296, 1408, 2048, 4096})
    for (int64_t n : {768, 1408, 3072}) {
      GemmShape shape{1, m, n, 768};
      int64_t out[4];
      ASSERT_EQ(quilt_rt_select(text.c_str(), &cache.table, 1, m, n, 768, out),
                0)
          << quilt_rt_last_error();
      EXPECT_EQ(out[0], expected(pcie, shape).candidate) << m << "x" << n;
      differ += expected(sxm, shape).candidate != out[0];
    }
  EXPECT_GT(differ, 0) << "no shape where 114 SMs choose differently";

  // Facts for another vendor leave this spec on its database entry.
  quilt_rt_set_device_facts(QUILT_RT_VENDOR_AMD, 7, 1.0, 0, 0);
  SelectionSlot amdCache;
  int64_t out[4];
  ASSERT_EQ(
      quilt_rt_select(text.c_str(), &amdCache.table, 1, 1408, 1408, 768, out),
      0);
  EXPECT_EQ(out[0], expected(sxm, GemmShape{1, 1408, 1408, 768}).candidate);

  // A device with less shared memory than some candidate needs: selection
  // keeps the spec's target rather than failing the dispatch.
  quilt_rt_set_device_facts(QUILT_RT_VENDOR_NVIDIA, 114, 1.755, 16 * 1024,
                            16 * 1024);
  SelectionSlot smallCache;
  EXPECT_EQ(
      quilt_rt_select(text.c_str(), &smallCache.table, 1, 1408, 1408, 768, out),
      0)
      << quilt_rt_last_error();
  EXPECT_EQ(out[0], expected(sxm, GemmShape{1, 1408, 1408, 768}).candidate);
}

TEST(QuiltRtSelect, ConcurrentFirstCallsAgree) {
  std::string text = formatSelectionSpec(specFor("a100", ElemType::F16));
  SelectionSlot cache;
  std::vector<std::thread> threads;
  std::vector<int64_t> kernels(8, -1);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      int64_t out[4];
      if (quilt_rt_select(text.c_str(), &cache.table, 1, 4096, 4096, 4096,
                          out) == QUILT_STATUS_OK)
        kernels[t] = out[0];
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int64_t kernel : kernels)
    EXPECT_EQ(kernel, kernels[0]);
  EXPECT_GE(kernels[0], 0);
}

} // namespace
