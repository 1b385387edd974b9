//===- GpuRuntimeTest.cpp - The GPU runtime on this machine's device ------===//
//
// Part of the Quilt project. Every test opens the device the way compiled
// code does and skips, saying why, when there is none (CI has no GPU; the
// no-driver paths are GpuRuntimeNoDriverTest's). With a device: facts,
// selection with them, the module and function caches, launches, dynamic
// shared memory above the default limit, memory, streams, events, tensor
// maps. The kernels are hand-written PTX, so the module tests run on NVIDIA
// devices only.
//
//===----------------------------------------------------------------------===//

#include "QuiltGpuRuntime.h"
#include "QuiltRuntime.h"

#include "CostModel/Candidates.h"
#include "CostModel/DeviceFacts.h"
#include "CostModel/Dispatch.h"
#include "CostModel/SelectionSpec.h"
#include "CostModel/TargetDatabase.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

/// quilt_test_scale(float *y, float a, uint32 n): y[i] *= a for i < n.
/// quilt_test_shared(uint32 *out, uint32 words): fills `words` words of
/// dynamic shared memory with their index; out[t] = words - 1 - t.
/// PTX for sm_70, JIT-compiled for any newer GPU.
const char kPtx[] = R"ptx(
.version 7.0
.target sm_70
.address_size 64

.visible .entry quilt_test_scale(
    .param .u64 quilt_test_scale_y,
    .param .f32 quilt_test_scale_a,
    .param .u32 quilt_test_scale_n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [quilt_test_scale_y];
    ld.param.f32 %f1, [quilt_test_scale_a];
    ld.param.u32 %r1, [quilt_test_scale_n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd2, %rd2, %rd3;
    ld.global.f32 %f2, [%rd2];
    mul.f32 %f2, %f2, %f1;
    st.global.f32 [%rd2], %f2;
DONE:
    ret;
}

.extern .shared .align 16 .b8 quilt_test_dynamic[];

.visible .entry quilt_test_shared(
    .param .u64 quilt_test_shared_out,
    .param .u32 quilt_test_shared_words)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [quilt_test_shared_out];
    ld.param.u32 %r1, [quilt_test_shared_words];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %r2;
FILL:
    setp.ge.u32 %p1, %r4, %r1;
    @%p1 bra FILLED;
    mul.wide.u32 %rd2, %r4, 4;
    mov.u64 %rd3, quilt_test_dynamic;
    add.s64 %rd3, %rd3, %rd2;
    st.shared.u32 [%rd3], %r4;
    add.u32 %r4, %r4, %r3;
    bra FILL;
FILLED:
    bar.sync 0;
    sub.u32 %r5, %r1, 1;
    sub.u32 %r5, %r5, %r2;
    mul.wide.u32 %rd2, %r5, 4;
    mov.u64 %rd3, quilt_test_dynamic;
    add.s64 %rd3, %rd3, %rd2;
    ld.shared.u32 %r6, [%rd3];
    cvta.to.global.u64 %rd4, %rd1;
    mul.wide.u32 %rd5, %r2, 4;
    add.s64 %rd4, %rd4, %rd5;
    st.global.u32 [%rd4], %r6;
    ret;
}
)ptx";

void *ptx() { return const_cast<char *>(kPtx); }

/// Fails the test with the runtime's message when the last call failed.
#define EXPECT_CALL_OK()                                                       \
  EXPECT_EQ(quilt_gpu_last_status(), 0) << quilt_gpu_last_error()

class Device : public ::testing::Test {
protected:
  void SetUp() override {
    quilt_gpu_reset_status();
    if (quilt_gpu_device_facts(&facts) != QUILT_GPU_SUCCESS)
      GTEST_SKIP() << "no usable device: " << quilt_gpu_last_error();
  }
  void TearDown() override { quilt_gpu_reset_status(); }

  /// The PTX module's function `name`, or a skip on non-NVIDIA devices.
  void *function(const char *name) {
    void *module = mgpuModuleLoad(ptx(), sizeof(kPtx));
    EXPECT_NE(module, nullptr) << quilt_gpu_last_error();
    void *fn = module ? mgpuModuleGetFunction(module, name) : nullptr;
    EXPECT_NE(fn, nullptr) << quilt_gpu_last_error();
    return fn;
  }
  bool nvidia() const { return facts.vendor == QUILT_GPU_VENDOR_NVIDIA; }

  quilt_gpu_facts facts{};
};

#define REQUIRE_NVIDIA()                                                       \
  if (!nvidia())                                                               \
  GTEST_SKIP() << "the test kernels are PTX"

TEST_F(Device, FactsDescribeIt) {
  EXPECT_GT(facts.compute_units, 0);
  EXPECT_GT(facts.clock_ghz, 0.1);
  EXPECT_LT(facts.clock_ghz, 10.0);
  EXPECT_TRUE(facts.warp_size == 32 || facts.warp_size == 64);
  EXPECT_GE(facts.max_threads_per_block, 256);
  EXPECT_GT(facts.shared_mem_per_block, 0);
  EXPECT_LE(facts.shared_mem_per_block, facts.shared_mem_per_block_optin);
  EXPECT_LE(facts.shared_mem_per_block_optin, facts.shared_mem_per_cu);
  EXPECT_GT(facts.total_memory_bytes, 0);
  EXPECT_STRNE(facts.name, "");
  std::string arch = facts.arch;
  EXPECT_TRUE(arch.rfind(nvidia() ? "sm_" : "gfx", 0) == 0) << arch;
}

TEST_F(Device, SelectionModelsIt) {
  // The runtime handed the facts to quilt_rt_select when it opened the
  // device: selection for a spec of this vendor is the library's on the
  // database target refreshed with them.
  using namespace quilt;
  SelectionSpec spec;
  spec.target = *TargetDatabase::builtin().lookup(nvidia() ? "h100" : "mi300x");
  spec.elem = ElemType::F16;
  spec.candidates = generateCandidates(OpKind::Matmul, spec.elem, spec.target);
  DeviceFacts measured;
  measured.vendor = nvidia() ? Vendor::NVIDIA : Vendor::AMD;
  measured.computeUnits = facts.compute_units;
  measured.clockGHz = facts.clock_ghz;
  measured.sharedMemPerBlock = facts.shared_mem_per_block_optin;
  measured.sharedMemPerCU = facts.shared_mem_per_cu;
  TargetDesc device = spec.target;
  ASSERT_TRUE(applyDeviceFacts(device, measured));
  PreparedTable table;
  table.policy = spec.policy;
  std::string error;
  if (!prepareTable(spec.candidates, spec.elem, device, device.calibration,
                    table, error))
    GTEST_SKIP() << "a candidate does not fit this device: " << error;

  std::string text = formatSelectionSpec(spec);
  void *cache = nullptr;
  for (GemmShape shape :
       {GemmShape{1, 1000, 768, 3072}, GemmShape{1, 1408, 1408, 4096},
        GemmShape{1, 80, 3072, 768}}) {
    int64_t out[4];
    ASSERT_EQ(quilt_rt_select(text.c_str(), &cache, shape.b, shape.m, shape.n,
                              shape.k, out),
              0)
        << quilt_rt_last_error();
    Selection want;
    ASSERT_EQ(selectKernel(table, shape, want), SelectStatus::Ok);
    EXPECT_EQ(out[0], want.candidate) << "m=" << shape.m;
  }
}

TEST_F(Device, ModulesAndFunctionsAreCached) {
  REQUIRE_NVIDIA();
  void *module = mgpuModuleLoad(ptx(), sizeof(kPtx));
  ASSERT_NE(module, nullptr) << quilt_gpu_last_error();
  // A second global constructor for the same binary: the same module.
  EXPECT_EQ(mgpuModuleLoad(ptx(), sizeof(kPtx)), module);
  void *scale = mgpuModuleGetFunction(module, "quilt_test_scale");
  ASSERT_NE(scale, nullptr) << quilt_gpu_last_error();
  std::string name = "quilt_test_scale"; // Another pointer, same name.
  EXPECT_EQ(mgpuModuleGetFunction(module, name.c_str()), scale);
  EXPECT_EQ(mgpuModuleGetFunction(module, "no_such_kernel"), nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_DRIVER);
  EXPECT_NE(std::string(quilt_gpu_last_error()).find("(no_such_kernel)"),
            std::string::npos)
      << quilt_gpu_last_error();
  quilt_gpu_reset_status();

  // JIT loading is cached separately (per optimization level).
  void *jit = mgpuModuleLoadJIT(ptx(), 3);
  ASSERT_NE(jit, nullptr) << quilt_gpu_last_error();
  EXPECT_NE(jit, module);
  EXPECT_EQ(mgpuModuleLoadJIT(ptx(), 3), jit);
  mgpuModuleUnload(jit);
  mgpuModuleUnload(jit);
  EXPECT_CALL_OK();

  // Two loads, two unloads: the second one unloads.
  mgpuModuleUnload(module);
  EXPECT_CALL_OK();
  mgpuModuleUnload(module);
  EXPECT_CALL_OK();
  EXPECT_EQ(quilt_gpu_status(), 0) << quilt_gpu_first_error();
}

TEST_F(Device, LaunchesOnAStreamWithEvents) {
  REQUIRE_NVIDIA();
  void *scale = function("quilt_test_scale");
  ASSERT_NE(scale, nullptr);
  const uint32_t n = 1000;
  std::vector<float> host(n);
  for (uint32_t i = 0; i < n; ++i)
    host[i] = float(i);
  void *stream = mgpuStreamCreate();
  ASSERT_NE(stream, nullptr) << quilt_gpu_last_error();
  void *y = mgpuMemAlloc(n * sizeof(float), stream, false);
  ASSERT_NE(y, nullptr) << quilt_gpu_last_error();
  mgpuMemcpy(y, host.data(), n * sizeof(float), stream);
  float a = 3.0f;
  void *params[] = {&y, &a, const_cast<uint32_t *>(&n)};
  // 8 blocks of 128 for 1000 elements; then an empty grid, which is a no-op.
  mgpuLaunchKernel(scale, 8, 1, 1, 128, 1, 1, 0, stream, params, nullptr, 3);
  EXPECT_CALL_OK();
  mgpuLaunchKernel(scale, 0, 1, 1, 128, 1, 1, 0, stream, params, nullptr, 3);
  EXPECT_CALL_OK();

  // A second stream waits for the first through an event.
  void *event = mgpuEventCreate();
  ASSERT_NE(event, nullptr) << quilt_gpu_last_error();
  mgpuEventRecord(event, stream);
  void *other = mgpuStreamCreate();
  mgpuStreamWaitEvent(other, event);
  mgpuMemcpy(host.data(), y, n * sizeof(float), other);
  mgpuStreamSynchronize(other);
  mgpuEventSynchronize(event);
  EXPECT_CALL_OK();
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(host[i], 3.0f * float(i)) << "i=" << i;

  mgpuEventDestroy(event);
  mgpuMemFree(y, stream);
  mgpuStreamDestroy(other);
  mgpuStreamDestroy(stream);
  EXPECT_EQ(quilt_gpu_status(), 0) << quilt_gpu_first_error();
}

TEST_F(Device, DestroyedStreamsAreReused) {
  // Generated code creates and destroys a stream around every call: the
  // pool hands the same one out again instead of asking the driver.
  void *first = mgpuStreamCreate();
  ASSERT_NE(first, nullptr) << quilt_gpu_last_error();
  mgpuStreamDestroy(first);
  void *second = mgpuStreamCreate();
  EXPECT_EQ(second, first);
  void *third = mgpuStreamCreate();
  EXPECT_NE(third, second);
  mgpuStreamSynchronize(second);
  mgpuStreamDestroy(third);
  mgpuStreamDestroy(second);
  EXPECT_EQ(quilt_gpu_status(), 0) << quilt_gpu_first_error();
}

TEST_F(Device, LaunchesFromAnyThread) {
  REQUIRE_NVIDIA();
  void *scale = function("quilt_test_scale");
  ASSERT_NE(scale, nullptr);
  std::thread([&] {
    // A fresh thread: the runtime binds the device to it.
    uint32_t n = 64;
    std::vector<float> host(n, 2.0f);
    void *y = mgpuMemAlloc(n * sizeof(float), nullptr, false);
    mgpuMemcpy(y, host.data(), n * sizeof(float), nullptr);
    float a = 0.5f;
    void *params[] = {&y, &a, &n};
    mgpuLaunchKernel(scale, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr, 3);
    mgpuMemcpy(host.data(), y, n * sizeof(float), nullptr);
    mgpuStreamSynchronize(nullptr);
    mgpuMemFree(y, nullptr);
    EXPECT_EQ(host[0], 1.0f);
    EXPECT_EQ(host[n - 1], 1.0f);
  }).join();
  EXPECT_EQ(quilt_gpu_status(), 0) << quilt_gpu_first_error();
}

TEST_F(Device, DynamicSharedMemoryAboveTheDefaultLimit) {
  REQUIRE_NVIDIA();
  int64_t bytes = facts.shared_mem_per_block + 16 * 1024;
  if (bytes > facts.shared_mem_per_block_optin)
    GTEST_SKIP() << "the device allows no more than "
                 << facts.shared_mem_per_block << " bytes per block";
  void *shared = function("quilt_test_shared");
  ASSERT_NE(shared, nullptr);
  uint32_t words = uint32_t(bytes / 4), threads = 256;
  void *out = mgpuMemAlloc(threads * sizeof(uint32_t), nullptr, false);
  void *params[] = {&out, &words};
  // Twice: the opt-in happens once and is remembered.
  for (int i = 0; i < 2; ++i) {
    mgpuLaunchKernel(shared, 1, 1, 1, threads, 1, 1, int32_t(bytes), nullptr,
                     params, nullptr, 2);
    EXPECT_CALL_OK();
  }
  std::vector<uint32_t> host(threads);
  mgpuMemcpy(host.data(), out, threads * sizeof(uint32_t), nullptr);
  mgpuStreamSynchronize(nullptr);
  for (uint32_t t = 0; t < threads; ++t)
    ASSERT_EQ(host[t], words - 1 - t) << "t=" << t;

  // More than the device allows: refused with the limit, not launched.
  mgpuLaunchKernel(shared, 1, 1, 1, threads, 1, 1,
                   int32_t(facts.shared_mem_per_block_optin + 4), nullptr,
                   params, nullptr, 2);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(quilt_gpu_last_error()).find("allows at most"),
            std::string::npos)
      << quilt_gpu_last_error();
  mgpuMemFree(out, nullptr);
}

TEST_F(Device, LaunchArgumentsAreChecked) {
  REQUIRE_NVIDIA();
  void *scale = function("quilt_test_scale");
  ASSERT_NE(scale, nullptr);
  void *params[3] = {};
  mgpuLaunchKernel(scale, 1, 1, 1, facts.max_threads_per_block + 1, 1, 1, 0,
                   nullptr, params, nullptr, 3);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  mgpuLaunchKernel(scale, -1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr, 3);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  mgpuLaunchKernel(scale, 1, 1, 1, 0, 1, 1, 0, nullptr, params, nullptr, 3);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  mgpuLaunchKernel(scale, 1, 1, 1, 32, 1, 1, -4, nullptr, params, nullptr, 3);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
}

TEST_F(Device, MemsetsAndManagedMemory) {
  const size_t n = 256;
  void *shared = mgpuMemAlloc(n * sizeof(uint32_t), nullptr, true);
  ASSERT_NE(shared, nullptr) << quilt_gpu_last_error();
  mgpuMemset32(shared, int32_t(0xdeadbeef), n, nullptr);
  mgpuStreamSynchronize(nullptr);
  EXPECT_CALL_OK();
  // Managed memory: the host reads it directly.
  const auto *words = static_cast<const uint32_t *>(shared);
  EXPECT_EQ(words[0], 0xdeadbeefu);
  EXPECT_EQ(words[n - 1], 0xdeadbeefu);
  mgpuMemset16(shared, int16_t(0x1234), 2 * n, nullptr);
  mgpuStreamSynchronize(nullptr);
  const auto *halves = static_cast<const uint16_t *>(shared);
  EXPECT_EQ(halves[2 * n - 1], 0x1234);
  mgpuMemFree(shared, nullptr);
  EXPECT_EQ(quilt_gpu_status(), 0) << quilt_gpu_first_error();
}

TEST_F(Device, WorkspaceIsPerThreadAndGrows) {
  // Nothing for 0 bytes; a request no larger than the held buffer gets it
  // again; a larger one a new buffer, usable to its end.
  EXPECT_EQ(quilt_gpu_workspace(0), nullptr);
  EXPECT_CALL_OK();
  void *first = quilt_gpu_workspace(1000);
  ASSERT_NE(first, nullptr) << quilt_gpu_last_error();
  EXPECT_EQ(quilt_gpu_workspace(1000), first);
  EXPECT_EQ(quilt_gpu_workspace(10), first);
  void *larger = quilt_gpu_workspace(1 << 20);
  ASSERT_NE(larger, nullptr) << quilt_gpu_last_error();
  const size_t words = (1 << 20) / sizeof(uint32_t);
  mgpuMemset32(larger, 7, words, nullptr);
  std::vector<uint32_t> host(words);
  mgpuMemcpy(host.data(), larger, 1 << 20, nullptr);
  mgpuStreamSynchronize(nullptr);
  EXPECT_CALL_OK();
  EXPECT_EQ(host.back(), 7u);
  // The descriptor generated code receives.
  quilt_gpu_byte_memref descriptor;
  _mlir_ciface_quilt_gpu_workspace(&descriptor, 4096);
  EXPECT_CALL_OK();
  EXPECT_EQ(descriptor.aligned, larger);
  EXPECT_EQ(descriptor.allocated, larger);
  EXPECT_EQ(descriptor.offset, 0);
  EXPECT_EQ(descriptor.size, 4096);
  EXPECT_EQ(descriptor.stride, 1);
  _mlir_ciface_quilt_gpu_workspace(&descriptor, -1);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(descriptor.aligned, nullptr);
  _mlir_ciface_quilt_gpu_workspace(nullptr, 16);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  quilt_gpu_reset_status();
  // Another thread has a buffer of its own, freed when it exits.
  void *other = nullptr;
  std::thread([&] { other = quilt_gpu_workspace(1000); }).join();
  EXPECT_NE(other, nullptr);
  EXPECT_NE(other, larger);
  EXPECT_EQ(quilt_gpu_status(), 0) << quilt_gpu_first_error();
}

TEST_F(Device, OperandCopiesAreABufferApartFromTheWorkspace) {
  // A call copies an unaligned operand, then asks for the workspace of a
  // split-K or stream-K kernel: growing one must not free the other.
  EXPECT_EQ(quilt_gpu_operand_copies(0), nullptr);
  EXPECT_CALL_OK();
  void *copies = quilt_gpu_operand_copies(4096);
  ASSERT_NE(copies, nullptr) << quilt_gpu_last_error();
  EXPECT_EQ(quilt_gpu_operand_copies(100), copies);
  mgpuMemset32(copies, 5, 1024, nullptr);
  void *workspace = quilt_gpu_workspace(1 << 22);
  ASSERT_NE(workspace, nullptr) << quilt_gpu_last_error();
  EXPECT_NE(workspace, copies);
  std::vector<uint32_t> host(1024);
  mgpuMemcpy(host.data(), copies, 4096, nullptr);
  mgpuStreamSynchronize(nullptr);
  EXPECT_CALL_OK();
  EXPECT_EQ(host.front(), 5u);
  EXPECT_EQ(host.back(), 5u);
  EXPECT_EQ(quilt_gpu_operand_copies(4096), copies);
  quilt_gpu_byte_memref descriptor;
  _mlir_ciface_quilt_gpu_operand_copies(&descriptor, 4096);
  EXPECT_CALL_OK();
  EXPECT_EQ(descriptor.aligned, copies);
  EXPECT_EQ(descriptor.size, 4096);
  _mlir_ciface_quilt_gpu_operand_copies(&descriptor, -3);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(quilt_gpu_last_error()).find("operand copies size -3"),
            std::string::npos)
      << quilt_gpu_last_error();
  EXPECT_EQ(descriptor.aligned, nullptr);
  quilt_gpu_reset_status();
}

TEST_F(Device, ArrivalCountersAreZeroAgainAfterAFailure) {
  EXPECT_EQ(quilt_gpu_arrival_counters(0), nullptr);
  EXPECT_CALL_OK();
  int32_t *counters = quilt_gpu_arrival_counters(100);
  ASSERT_NE(counters, nullptr) << quilt_gpu_last_error();
  std::vector<int32_t> host(100, -1);
  mgpuMemcpy(host.data(), counters, 100 * sizeof(int32_t), nullptr);
  mgpuStreamSynchronize(nullptr);
  EXPECT_CALL_OK();
  EXPECT_EQ(std::count(host.begin(), host.end(), 0), 100);
  // A kernel that stopped midway left counts: while nothing failed, the
  // runtime trusts the kernels to have reset them...
  mgpuMemset32(counters, 3, 100, nullptr);
  mgpuStreamSynchronize(nullptr);
  EXPECT_EQ(quilt_gpu_arrival_counters(50), counters);
  mgpuMemcpy(host.data(), counters, sizeof(int32_t), nullptr);
  mgpuStreamSynchronize(nullptr);
  EXPECT_EQ(host[0], 3);
  // ... and after a failure on the thread it zeroes them.
  _mlir_ciface_quilt_gpu_arrival_counters(nullptr, 4);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  quilt_gpu_reset_status();
  quilt_gpu_i32_memref descriptor;
  _mlir_ciface_quilt_gpu_arrival_counters(&descriptor, 100);
  EXPECT_CALL_OK();
  EXPECT_EQ(descriptor.aligned, counters);
  EXPECT_EQ(descriptor.size, 100);
  EXPECT_EQ(descriptor.stride, 1);
  mgpuMemcpy(host.data(), counters, 100 * sizeof(int32_t), nullptr);
  mgpuStreamSynchronize(nullptr);
  EXPECT_EQ(std::count(host.begin(), host.end(), 0), 100);
  // More than the held buffer: a new one, zeroed to its end.
  int32_t *larger = quilt_gpu_arrival_counters(1000);
  ASSERT_NE(larger, nullptr) << quilt_gpu_last_error();
  host.assign(1000, -1);
  mgpuMemcpy(host.data(), larger, 1000 * sizeof(int32_t), nullptr);
  mgpuStreamSynchronize(nullptr);
  EXPECT_EQ(std::count(host.begin(), host.end(), 0), 1000);
  _mlir_ciface_quilt_gpu_arrival_counters(&descriptor, -1);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(descriptor.aligned, nullptr);
  quilt_gpu_reset_status();
}

TEST_F(Device, HostMemRefRegistration) {
  std::vector<float> data(4 * 16);
  // memref<4x16xf32>: allocated, aligned, offset, sizes, strides.
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } descriptor = {data.data(), data.data(), 0, {4, 16}, {16, 1}};
  mgpuMemHostRegisterMemRef(2, &descriptor, sizeof(float));
  EXPECT_CALL_OK();
  mgpuMemHostUnregisterMemRef(2, &descriptor, sizeof(float));
  EXPECT_CALL_OK();
}

TEST_F(Device, TensorMapsAreEncodedOnceOnTheDevice) {
  if (!nvidia() || facts.arch_major < 9)
    GTEST_SKIP() << "tensor maps need an sm_90 device";
  void *buffer = mgpuMemAlloc(128 * 128 * 2, nullptr, false);
  ASSERT_NE(buffer, nullptr) << quilt_gpu_last_error();
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } descriptor = {buffer, buffer, 0, {128, 128}, {128, 1}};
  int64_t box[2] = {64, 64};
  // f16 (6), no interleave, 128-byte swizzle (3), no L2 promotion, zero fill.
  void *map =
      mgpuTensorMapEncodeTiledMemref(2, &descriptor, 6, 0, 3, 0, 0, box);
  ASSERT_NE(map, nullptr) << quilt_gpu_last_error();
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, &descriptor, 6, 0, 3, 0, 0, box),
            map);
  // A strided innermost dimension cannot be a tensor map.
  descriptor.strides[1] = 2;
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, &descriptor, 6, 0, 3, 0, 0, box),
            nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  mgpuMemFree(buffer, nullptr);
}

TEST_F(Device, TileMapsAreEncodedIntoTheCallersBuffer) {
  if (!nvidia() || facts.arch_major < 9)
    GTEST_SKIP() << "tensor maps need an sm_90 device";
  void *buffer = mgpuMemAlloc(2 * 100 * 80 * 2, nullptr, false);
  ASSERT_NE(buffer, nullptr) << quilt_gpu_last_error();
  using Map = std::array<unsigned char, QUILT_GPU_TENSOR_MAP_BYTES>;
  alignas(QUILT_GPU_TENSOR_MAP_BYTES) Map map, again, other;
  // Two f16 matrices of 100 x 72 (rows 80 apart), boxes of 128 x 64.
  ASSERT_EQ(
      quilt_gpu_tile_map(map.data(), buffer, 6, 2, 100, 72, 8000, 80, 128, 64),
      1)
      << quilt_gpu_last_error();
  ASSERT_EQ(quilt_gpu_tile_map(again.data(), buffer, 6, 2, 100, 72, 8000, 80,
                               128, 64),
            1);
  EXPECT_EQ(map, again);
  ASSERT_EQ(
      quilt_gpu_tile_map(other.data(), buffer, 6, 2, 100, 72, 8000, 80, 64, 64),
      1);
  EXPECT_NE(other, map);
  // One matrix: its (unused) matrix stride is its extent.
  EXPECT_EQ(
      quilt_gpu_tile_map(other.data(), buffer, 9, 1, 100, 72, 0, 80, 64, 64), 1)
      << quilt_gpu_last_error();
  // A misaligned buffer is refused: the driver writes a CUtensorMap there.
  EXPECT_EQ(quilt_gpu_tile_map(map.data() + 64, buffer, 6, 2, 100, 72, 8000, 80,
                               128, 64),
            0);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  quilt_gpu_reset_status();
  mgpuMemFree(buffer, nullptr);
  EXPECT_EQ(quilt_gpu_status(), QUILT_GPU_SUCCESS) << quilt_gpu_first_error();
}

TEST_F(Device, OneDevicePerProcess) {
  mgpuSetDefaultDevice(facts.ordinal);
  EXPECT_CALL_OK();
  mgpuSetDefaultDevice(facts.ordinal + 1);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_UNSUPPORTED);
}

} // namespace
