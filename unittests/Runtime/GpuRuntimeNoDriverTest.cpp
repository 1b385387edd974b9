//===- GpuRuntimeNoDriverTest.cpp - The GPU runtime without a driver ------===//
//
// Part of the Quilt project. Runs with QUILT_GPU_DRIVER naming a library
// that does not exist (set by main before the runtime opens anything), so
// every machine, with a GPU or not, takes the paths a machine without a
// driver takes: no call aborts, each fails with a status and a message,
// and the no-op cases succeed.
//
//===----------------------------------------------------------------------===//

#include "QuiltGpuRuntime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

std::string lastError() { return quilt_gpu_last_error(); }

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// What every call that needs the device says.
const std::string kMissing = std::string(QUILT_TEST_DRIVER_WHAT) + " " +
                             QUILT_TEST_MISSING_DRIVER + " not found: ";

class NoDriver : public ::testing::Test {
protected:
  void SetUp() override { quilt_gpu_reset_status(); }
};

TEST_F(NoDriver, ModuleLoadReturnsNullAndSaysWhy) {
  const char blob[] = "not a binary";
  EXPECT_EQ(mgpuModuleLoad(const_cast<char *>(blob), sizeof(blob)), nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_TRUE(contains(lastError(), "mgpuModuleLoad: " + kMissing))
      << lastError();
  // The first failure is kept for the host program.
  EXPECT_EQ(quilt_gpu_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_EQ(std::string(quilt_gpu_first_error()), lastError());

  EXPECT_EQ(mgpuModuleLoadJIT(const_cast<char *>(blob), 2), nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_TRUE(contains(lastError(), "mgpuModuleLoadJIT: " + kMissing));
}

TEST_F(NoDriver, NullHandlesAreInvalidArgumentsNamingTheEarlierFailure) {
  EXPECT_EQ(mgpuModuleLoad(nullptr, 0), nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mgpuModuleLoad: null binary");

  const char blob[] = "x";
  void *module = mgpuModuleLoad(const_cast<char *>(blob), sizeof(blob));
  void *function = mgpuModuleGetFunction(module, "kernel");
  EXPECT_EQ(function, nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "mgpuModuleGetFunction: null module "
                                    "(after an earlier failure: "))
      << lastError();

  mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr,
                   0);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "mgpuLaunchKernel: null function"));

  mgpuEventSynchronize(nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  mgpuEventRecord(nullptr, nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  mgpuStreamWaitEvent(nullptr, nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  int host[4] = {};
  mgpuMemcpy(nullptr, host, sizeof(host), nullptr);
  EXPECT_TRUE(contains(lastError(), "mgpuMemcpy: null destination"));
  mgpuMemset32(nullptr, 0, 4, nullptr);
  EXPECT_TRUE(contains(lastError(), "mgpuMemset32: null destination"));
  mgpuMemset16(nullptr, 0, 4, nullptr);
  EXPECT_TRUE(contains(lastError(), "mgpuMemset16: null destination"));
  mgpuMemHostRegisterMemRef(1, nullptr, 4);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, nullptr, 6, 0, 0, 0, 0, nullptr),
            nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  // The first failure is still the first one.
  EXPECT_EQ(quilt_gpu_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(quilt_gpu_first_error(), "mgpuModuleLoad: null binary");
}

TEST_F(NoDriver, EveryCallThatNeedsTheDeviceFailsCleanly) {
  // Handles that look real: the runtime must not touch them without a
  // device.
  int dummy[64] = {};
  void *fake = dummy;
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_EQ(mgpuEventCreate(), nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_EQ(mgpuMemAlloc(1024, nullptr, false), nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_EQ(mgpuMemAlloc(1024, nullptr, true), nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_TRUE(contains(lastError(), "mgpuMemAlloc: " + kMissing));

  mgpuLaunchKernel(fake, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_EQ(mgpuModuleGetFunction(fake, "kernel"), nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuModuleUnload(fake);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuStreamSynchronize(nullptr); // The default stream.
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuStreamSynchronize(fake);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuStreamDestroy(fake);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuStreamWaitEvent(fake, fake);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuEventRecord(fake, nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuEventSynchronize(fake);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuEventDestroy(fake);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuMemFree(fake, nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuMemcpy(fake, fake, 16, nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuMemset32(fake, 7, 4, nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuMemset16(fake, 7, 4, nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuMemHostRegisterMemRef(1, fake, 4);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  mgpuMemHostUnregisterMemRef(1, fake, 4);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  int64_t box[2] = {64, 64};
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, fake, 6, 0, 0, 0, 0, box),
            nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_EQ(quilt_gpu_workspace(1024), nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  quilt_gpu_byte_memref workspace;
  _mlir_ciface_quilt_gpu_workspace(&workspace, 1024);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_EQ(workspace.aligned, nullptr);
  EXPECT_EQ(workspace.size, 0);
  EXPECT_EQ(quilt_gpu_operand_copies(1024), nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  quilt_gpu_byte_memref copies;
  _mlir_ciface_quilt_gpu_operand_copies(&copies, 1024);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_EQ(copies.aligned, nullptr);
  EXPECT_EQ(quilt_gpu_arrival_counters(16), nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  quilt_gpu_i32_memref counters;
  _mlir_ciface_quilt_gpu_arrival_counters(&counters, 16);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_EQ(counters.aligned, nullptr);
  EXPECT_EQ(counters.size, 0);
  // Once the device is known to be unusable, choosing one says why.
  mgpuSetDefaultDevice(0);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
}

TEST_F(NoDriver, TileMapsRefuseWhatATensorMapCannotDescribeWithoutAnError) {
  alignas(16) static char buffer[1 << 16];
  const void *aligned = buffer;
  alignas(
      QUILT_GPU_TENSOR_MAP_BYTES) unsigned char map[QUILT_GPU_TENSOR_MAP_BYTES];
  // f16 (6): 3 matrices of 100 x 72, rows 80 and matrices 8000 apart,
  // boxes of 128 x 64. Describable, so it needs the device.
  EXPECT_EQ(quilt_gpu_tile_map(map, aligned, 6, 3, 100, 72, 8000, 80, 128, 64),
            0);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_TRUE(contains(lastError(), "quilt_gpu_tile_map: " + kMissing));
  // A single matrix's matrix stride is not used; bf16 (9) too.
  EXPECT_EQ(quilt_gpu_tile_map(map, aligned, 9, 1, 100, 72, 0, 72, 64, 64), 0);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_NO_DRIVER);
  // No buffer for the map is the caller's error, whatever the view.
  quilt_gpu_reset_status();
  EXPECT_EQ(quilt_gpu_tile_map(nullptr, aligned, 7, 1, 100, 72, 0, 80, 64, 64),
            0);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);

  struct Case {
    const char *why;
    const void *address;
    int64_t dtype, batch, rows, cols, batchStride, rowStride, boxRows, boxCols;
  };
  const Case refused[] = {
      {"f32", aligned, 7, 1, 100, 72, 0, 80, 128, 64},
      {"no matrices", aligned, 6, 0, 100, 72, 8000, 80, 128, 64},
      {"no rows", aligned, 6, 1, 0, 72, 0, 80, 128, 64},
      {"no columns (K = 0)", aligned, 6, 1, 100, 0, 0, 80, 128, 64},
      {"address 2 bytes off", buffer + 2, 6, 1, 100, 72, 0, 80, 128, 64},
      {"row stride 36 bytes", aligned, 6, 1, 100, 16, 0, 18, 128, 16},
      {"matrix stride 8002 bytes", aligned, 6, 2, 50, 72, 4001, 80, 64, 64},
      {"overlapping rows", aligned, 6, 1, 100, 72, 0, 64, 128, 64},
      {"overlapping matrices", aligned, 6, 2, 100, 72, 7992, 80, 128, 64},
      {"broadcast matrix", aligned, 6, 2, 100, 72, 0, 80, 128, 64},
      {"box of 512 rows", aligned, 6, 1, 100, 72, 0, 80, 512, 64},
      {"box row of 256 bytes", aligned, 6, 1, 100, 200, 0, 200, 128, 128},
      {"negative stride", aligned, 6, 1, 100, 72, 0, -80, 128, 64},
      {"null address", nullptr, 6, 1, 100, 72, 0, 80, 128, 64},
      {"box row of 8 bytes", aligned, 6, 1, 100, 72, 0, 80, 128, 4},
      {"2^31 rows", aligned, 6, 1, int64_t(1) << 31, 72, 0, 80, 128, 64},
      {"matrix extent 2^40 bytes", aligned, 6, 1, int64_t(1) << 30, 72, 0, 1024,
       128, 64},
  };
  for (const Case &c : refused) {
    quilt_gpu_reset_status();
    EXPECT_EQ(quilt_gpu_tile_map(map, c.address, c.dtype, c.batch, c.rows,
                                 c.cols, c.batchStride, c.rowStride, c.boxRows,
                                 c.boxCols),
              0)
        << c.why;
    EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_SUCCESS) << c.why;
    EXPECT_EQ(quilt_gpu_status(), QUILT_GPU_SUCCESS) << c.why;
  }
}

TEST_F(NoDriver, EmptyAndNullReleasesAreNotErrors) {
  // What generated code does after a failed load or allocation, and for
  // empty dynamic shapes: nothing to report beyond the first failure.
  EXPECT_EQ(mgpuMemAlloc(0, nullptr, false), nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_SUCCESS);
  mgpuMemFree(nullptr, nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_SUCCESS);
  mgpuModuleUnload(nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_SUCCESS);
  mgpuStreamDestroy(nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_SUCCESS);
  mgpuEventDestroy(nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_SUCCESS);
  mgpuMemcpy(nullptr, nullptr, 0, nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_SUCCESS);
  mgpuMemset32(nullptr, 0, 0, nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_SUCCESS);
  EXPECT_EQ(quilt_gpu_status(), QUILT_GPU_SUCCESS);
  EXPECT_STREQ(quilt_gpu_first_error(), "");
}

TEST_F(NoDriver, StatusIsStickyUntilResetAndLastErrorIsPerThread) {
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  std::string first = lastError();
  EXPECT_EQ(quilt_gpu_status(), QUILT_GPU_ERROR_NO_DRIVER);

  // A later success clears the last status, not the first failure.
  mgpuMemFree(nullptr, nullptr);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_SUCCESS);
  EXPECT_EQ(lastError(), "");
  EXPECT_EQ(quilt_gpu_status(), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_EQ(std::string(quilt_gpu_first_error()), first);

  // Another thread's failures are its own; the first failure stays first.
  std::thread([] {
    EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_SUCCESS);
    mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr,
                     0);
    EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  }).join();
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_SUCCESS);
  EXPECT_EQ(std::string(quilt_gpu_first_error()), first);

  quilt_gpu_reset_status();
  EXPECT_EQ(quilt_gpu_status(), QUILT_GPU_SUCCESS);
  EXPECT_STREQ(quilt_gpu_first_error(), "");
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_SUCCESS);
  // The driver is still missing: the next call fails the same way.
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  EXPECT_EQ(lastError(), first);
  EXPECT_EQ(quilt_gpu_status(), QUILT_GPU_ERROR_NO_DRIVER);
}

TEST_F(NoDriver, FactsQueryFailsCleanly) {
  quilt_gpu_facts facts;
  std::memset(&facts, 0xff, sizeof(facts));
  EXPECT_EQ(quilt_gpu_device_facts(&facts), QUILT_GPU_ERROR_NO_DRIVER);
  EXPECT_EQ(facts.compute_units, 0);
  EXPECT_EQ(facts.clock_ghz, 0.0);
  EXPECT_STREQ(facts.name, "");
  EXPECT_TRUE(contains(lastError(), "quilt_gpu_device_facts: " + kMissing));
  EXPECT_EQ(quilt_gpu_device_facts(nullptr), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(quilt_gpu_backend(), QUILT_TEST_BACKEND);
}

TEST_F(NoDriver, BadDeviceOrdinalIsAnInvalidArgument) {
  mgpuSetDefaultDevice(-1);
  EXPECT_EQ(quilt_gpu_last_status(), QUILT_GPU_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(),
            "mgpuSetDefaultDevice: device -1 is not a device ordinal");
}

} // namespace

int main(int argc, char **argv) {
  // Before any runtime call: the driver the runtime opens does not exist.
  setenv("QUILT_GPU_DRIVER", QUILT_TEST_MISSING_DRIVER, /*overwrite=*/1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
