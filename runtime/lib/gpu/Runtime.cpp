//===- Runtime.cpp - Device, caches and checks behind mgpu* ---------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"
#include "Status.h"

#include "QuiltRuntime.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace quilt::gpu {
namespace {

Error invalid(std::string what) {
  return Error::make(QUILT_GPU_ERROR_INVALID_ARGUMENT, std::move(what));
}

/// QUILT_GPU_DEVICE, or 0 when unset.
Error ordinalFromEnvironment(int32_t &ordinal) {
  ordinal = 0;
  const char *value = std::getenv("QUILT_GPU_DEVICE");
  if (!value || !*value)
    return Error::success();
  char *end = nullptr;
  errno = 0;
  long parsed = std::strtol(value, &end, 10);
  if (errno || *end || parsed < 0 || parsed > std::numeric_limits<int>::max())
    return invalid(std::string("QUILT_GPU_DEVICE=") + value +
                   " is not a device ordinal");
  ordinal = int32_t(parsed);
  return Error::success();
}

/// A ranked memref descriptor: allocated and aligned pointers, offset,
/// sizes[rank], strides[rank] (MLIR's StridedMemRefType layout).
struct MemRefView {
  char *aligned;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;

  MemRefView(const void *descriptor, int64_t rank) {
    auto *pointers = static_cast<char *const *>(descriptor);
    auto *fields = reinterpret_cast<const int64_t *>(pointers + 2);
    aligned = pointers[1];
    offset = fields[0];
    sizes = fields + 1;
    strides = fields + 1 + rank;
  }
};

/// Bytes per element of each CUtensorMapDataType up to TFLOAT32_FTZ (the
/// sub-byte packed types after it are not supported).
constexpr int64_t kTensorMapElementBytes[] = {1, 2, 4, 4, 8, 8, 2,
                                              4, 8, 2, 4, 4, 4};

} // namespace

Runtime &Runtime::instance() {
  // Never destroyed: generated global destructors call in during exit.
  static Runtime *runtime = new Runtime(builtinBackend());
  return *runtime;
}

Runtime::State Runtime::open() {
  std::lock_guard<std::mutex> lock(openMutex_);
  int state = state_.load(std::memory_order_acquire);
  if (state != kUnopened)
    return State(state);
  int32_t ordinal = requestedOrdinal_;
  Error error = ordinal < 0 ? ordinalFromEnvironment(ordinal) : Error();
  if (!error.failed()) {
    // The vendor's own variable first, so that one process can give each
    // vendor's runtime another driver (both emulators, say).
    const char *driver = std::getenv(backend_.vendor() == QUILT_GPU_VENDOR_AMD
                                         ? "QUILT_HIP_DRIVER"
                                         : "QUILT_CUDA_DRIVER");
    if (!driver || !*driver)
      driver = std::getenv("QUILT_GPU_DRIVER");
    error = backend_.open(driver ? driver : "", ordinal, facts_);
  }
  if (error.failed()) {
    openError_ = std::move(error);
    facts_ = quilt_gpu_facts{};
    state_.store(kFailed, std::memory_order_release);
    return kFailed;
  }
  facts_.vendor = backend_.vendor();
  facts_.ordinal = ordinal;
  // Selection models this device from now on (kernels can opt in to the
  // per-block maximum, so that is the limit the model checks).
  quilt_rt_set_device_facts(facts_.vendor, facts_.compute_units,
                            facts_.clock_ghz, facts_.shared_mem_per_block_optin,
                            facts_.shared_mem_per_cu);
  state_.store(kOpen, std::memory_order_release);
  return kOpen;
}

Error Runtime::ready() {
  int state = state_.load(std::memory_order_acquire);
  if (state == kUnopened)
    state = open();
  if (state == kFailed)
    return openError_;
  return backend_.bindThread();
}

Error Runtime::selectDevice(int32_t ordinal) {
  if (ordinal < 0)
    return invalid("device " + std::to_string(ordinal) +
                   " is not a device ordinal");
  std::lock_guard<std::mutex> lock(openMutex_);
  switch (state_.load(std::memory_order_acquire)) {
  case kUnopened:
    requestedOrdinal_ = ordinal;
    return Error::success();
  case kFailed:
    return openError_;
  default:
    if (ordinal == facts_.ordinal)
      return Error::success();
    return Error::make(
        QUILT_GPU_ERROR_UNSUPPORTED,
        "device " + std::to_string(ordinal) +
            " requested, but the runtime "
            "already uses device " +
            std::to_string(facts_.ordinal) +
            " (one device per process; QUILT_GPU_DEVICE selects it)");
  }
}

Error Runtime::loadModule(const void *image, size_t size, int jitOptLevel,
                          void *&module) {
  std::lock_guard<std::mutex> lock(modulesMutex_);
  ModuleKey key{image, size, jitOptLevel};
  auto it = modules_.find(key);
  if (it != modules_.end()) {
    ++it->second.references;
    module = it->second.module;
    return Error::success();
  }
  Error error = jitOptLevel < 0
                    ? backend_.loadModule(image, module)
                    : backend_.loadModuleJit(image, jitOptLevel, module);
  if (error.failed()) {
    module = nullptr;
    return error;
  }
  modules_.emplace(key, ModuleEntry{module, 1});
  keyOfModule_.emplace(module, key);
  return Error::success();
}

Error Runtime::unloadModule(void *module) {
  std::lock_guard<std::mutex> lock(modulesMutex_);
  auto it = keyOfModule_.find(module);
  if (it != keyOfModule_.end()) {
    auto entry = modules_.find(it->second);
    if (--entry->second.references > 0)
      return Error::success();
    modules_.erase(entry);
    keyOfModule_.erase(it);
  }
  {
    std::unique_lock<std::shared_mutex> functionsLock(functionsMutex_);
    auto functions = functions_.find(module);
    if (functions != functions_.end()) {
      for (auto &named : functions->second)
        optedIn_.erase(named.second);
      functions_.erase(functions);
    }
  }
  return backend_.unloadModule(module);
}

Error Runtime::getFunction(void *module, const char *name, void *&function) {
  {
    std::shared_lock<std::shared_mutex> lock(functionsMutex_);
    auto functions = functions_.find(module);
    if (functions != functions_.end()) {
      auto named = functions->second.find(std::string_view(name));
      if (named != functions->second.end()) {
        function = named->second;
        return Error::success();
      }
    }
  }
  Error error = backend_.getFunction(module, name, function);
  if (error.failed()) {
    function = nullptr;
    return error;
  }
  std::unique_lock<std::shared_mutex> lock(functionsMutex_);
  functions_[module].emplace(name, function);
  return Error::success();
}

Error Runtime::optIn(void *function, int32_t smem) {
  {
    std::shared_lock<std::shared_mutex> lock(functionsMutex_);
    auto it = optedIn_.find(function);
    if (it != optedIn_.end() && it->second >= smem)
      return Error::success();
  }
  // Exclusive while setting, so that the recorded size is the attribute's.
  std::unique_lock<std::shared_mutex> lock(functionsMutex_);
  int32_t &current = optedIn_[function];
  if (current >= smem)
    return Error::success();
  Error error = backend_.setMaxDynamicSharedMemory(function, smem);
  if (!error.failed())
    current = smem;
  return error;
}

Error Runtime::launch(void *function, const intptr_t grid[3],
                      const intptr_t block[3], int32_t smem, void *stream,
                      void **params, void **extra) {
  static const char *const kAxis[] = {"x", "y", "z"};
  constexpr intptr_t kMaxDim = std::numeric_limits<uint32_t>::max();
  uint32_t grid32[3], block32[3];
  bool empty = false;
  int64_t threads = 1;
  for (int i = 0; i < 3; ++i) {
    if (grid[i] < 0 || grid[i] > kMaxDim)
      return invalid("grid size " + std::string(kAxis[i]) + " = " +
                     std::to_string(grid[i]) + " is out of range");
    if (block[i] < 1 || block[i] > kMaxDim)
      return invalid("block size " + std::string(kAxis[i]) + " = " +
                     std::to_string(block[i]) + " is out of range");
    empty |= grid[i] == 0;
    grid32[i] = uint32_t(grid[i]);
    block32[i] = uint32_t(block[i]);
    threads *= block[i];
  }
  if (threads > facts_.max_threads_per_block && facts_.max_threads_per_block)
    return invalid("a block of " + std::to_string(threads) +
                   " threads exceeds the device's " +
                   std::to_string(facts_.max_threads_per_block));
  if (smem < 0)
    return invalid("negative dynamic shared memory " + std::to_string(smem));
  // An empty dynamic shape gives an empty grid: nothing to run.
  if (empty)
    return Error::success();
  if (smem > facts_.shared_mem_per_block_optin)
    return invalid("the kernel asks for " + std::to_string(smem) +
                   " bytes of dynamic shared memory; device " +
                   std::to_string(facts_.ordinal) + " allows at most " +
                   std::to_string(facts_.shared_mem_per_block_optin) +
                   " per block");
  // Past 48 KiB, static and dynamic shared memory together, a kernel must
  // opt in to its dynamic size. The static size is the kernel's own, so
  // opt in to any dynamic size: once per function and size.
  if (smem > 0) {
    Error error = optIn(function, smem);
    if (error.failed())
      return error;
  }
  return backend_.launch(function, grid32, block32, uint32_t(smem), stream,
                         params, extra);
}

Error Runtime::acquireStream(void *&stream) {
  {
    std::lock_guard<std::mutex> lock(streamsMutex_);
    if (!idleStreams_.empty()) {
      stream = idleStreams_.back();
      idleStreams_.pop_back();
      return Error::success();
    }
  }
  return backend_.streamCreate(stream);
}

Error Runtime::releaseStream(void *stream) {
  {
    std::lock_guard<std::mutex> lock(streamsMutex_);
    if (idleStreams_.size() < kMaxIdleStreams) {
      idleStreams_.push_back(stream);
      return Error::success();
    }
  }
  return backend_.streamDestroy(stream);
}

Error Runtime::registerHostMemRef(int64_t rank, const void *descriptor,
                                  int64_t elementBytes, bool registering) {
  if (rank < 0 || elementBytes <= 0)
    return invalid("rank " + std::to_string(rank) + " and element size " +
                   std::to_string(elementBytes) + " do not describe a memref");
  MemRefView view(descriptor, rank);
  char *start = view.aligned + view.offset * elementBytes;
  if (!registering)
    return backend_.hostUnregister(start);
  // The span from the first to the last element, whatever the layout.
  int64_t lastIndex = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (view.sizes[i] == 0)
      return Error::success(); // No elements, nothing to register.
    if (view.sizes[i] < 0 || view.strides[i] < 0)
      return invalid("dimension " + std::to_string(i) +
                     " has a negative size or stride");
    lastIndex += (view.sizes[i] - 1) * view.strides[i];
  }
  return backend_.hostRegister(start, size_t(lastIndex + 1) * elementBytes);
}

Error Runtime::encodeTensorMap(int64_t rank, const void *descriptor,
                               int64_t dtype, int64_t interleave,
                               int64_t swizzle, int64_t l2promo, int64_t oob,
                               const int64_t *boxDims, void *&map) {
  map = nullptr;
  if (rank < 1 || rank > 5)
    return invalid("tensor map rank " + std::to_string(rank) +
                   " is not in 1..5");
  constexpr int64_t kTypes = sizeof(kTensorMapElementBytes) / sizeof(int64_t);
  if (dtype < 0 || dtype >= kTypes)
    return Error::make(QUILT_GPU_ERROR_UNSUPPORTED, "tensor map data type " +
                                                        std::to_string(dtype) +
                                                        " is not supported");
  int64_t elementBytes = kTensorMapElementBytes[dtype];
  MemRefView view(descriptor, rank);
  if (view.strides[rank - 1] != 1)
    return invalid("the innermost stride is " +
                   std::to_string(view.strides[rank - 1]) +
                   "; a tensor map needs 1");
  // The driver wants the innermost dimension first.
  TensorMapRequest request;
  request.rank = rank;
  request.globalAddress = view.aligned + view.offset * elementBytes;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = rank - 1 - i;
    if (view.sizes[dim] < 0 || boxDims[dim] < 0)
      return invalid("dimension " + std::to_string(dim) +
                     " has a negative size or box size");
    request.globalDim[i] = uint64_t(view.sizes[dim]);
    request.boxDim[i] = uint32_t(boxDims[dim]);
    if (i > 0)
      request.globalStrides[i - 1] = uint64_t(view.strides[dim] * elementBytes);
  }
  request.dtype = dtype;
  request.interleave = interleave;
  request.swizzle = swizzle;
  request.l2promo = l2promo;
  request.oob = oob;
  return deviceTensorMap(request, map);
}

Error Runtime::deviceTensorMap(const TensorMapRequest &request, void *&map) {
  map = nullptr;
  alignas(128) unsigned char encoded[512];
  size_t bytes = std::min(backend_.tensorMapBytes(), sizeof(encoded));
  std::memset(encoded, 0, sizeof(encoded));
  Error error = backend_.encodeTensorMap(request, encoded);
  if (error.failed())
    return error;

  std::lock_guard<std::mutex> lock(tensorMapsMutex_);
  std::string key(reinterpret_cast<const char *>(encoded), bytes);
  auto it = tensorMaps_.find(key);
  if (it != tensorMaps_.end()) {
    map = it->second;
    return Error::success();
  }
  void *device = nullptr;
  error = backend_.memAlloc(bytes, /*hostShared=*/false, device);
  if (!error.failed())
    error = backend_.copyToDevice(device, encoded, bytes);
  if (error.failed()) {
    if (device)
      backend_.memFree(device);
    return error;
  }
  tensorMaps_.emplace(std::move(key), device);
  map = device;
  return Error::success();
}

namespace {
/// CUtensorMapDataType's FLOAT16 and BFLOAT16, CUtensorMapSwizzle's 128B,
/// CUtensorMapL2promotion's L2_128B.
constexpr int64_t kF16 = 6, kBF16 = 9, kSwizzle128B = 3, kL2Promote128B = 2;
/// Bytes of an element of either.
constexpr int64_t kTileElementBytes = 2;
/// TMA's limits: 16-byte aligned addresses, box rows and strides below
/// 2^40 bytes, at most 256 elements a box dimension, 128 bytes a swizzled
/// box row. The kernels' coordinates are signed 32-bit.
constexpr int64_t kTmaAlignment = 16, kMaxBoxDim = 256, kSwizzleBytes = 128;
constexpr int64_t kMaxStrideBytes = int64_t(1) << 40;
constexpr int64_t kMaxCoordinate = int64_t(1) << 31;
/// CUtensorMap's alignment (cuda.h: alignas(128)).
constexpr uintptr_t kTensorMapAlignment = QUILT_GPU_TENSOR_MAP_BYTES;
} // namespace

bool TileMapRequest::describable() const {
  if (dtype != kF16 && dtype != kBF16)
    return false;
  if (!address || batch <= 0 || rows <= 0 || cols <= 0 ||
      batch >= kMaxCoordinate || rows >= kMaxCoordinate ||
      cols >= kMaxCoordinate || boxRows <= 0 || boxRows > kMaxBoxDim ||
      boxCols <= 0 || boxCols * kTileElementBytes > kSwizzleBytes ||
      (boxCols * kTileElementBytes) % kTmaAlignment != 0)
    return false;
  // Disjoint rows and matrices (the driver wants each stride at least the
  // extent of the dimension inside it), every byte offset aligned and in
  // range.
  auto fits = [&](int64_t stride, int64_t minimum) {
    return stride >= minimum && stride < kMaxStrideBytes / kTileElementBytes &&
           (stride * kTileElementBytes) % kTmaAlignment == 0;
  };
  if (reinterpret_cast<uintptr_t>(address) % kTmaAlignment != 0 ||
      !fits(rowStride, cols) ||
      rowStride > std::numeric_limits<int64_t>::max() / rows ||
      !fits(matrixStride(), rows * rowStride))
    return false;
  return true;
}

int64_t TileMapRequest::matrixStride() const {
  // A single matrix's is not read; it is the matrix's extent.
  return batch > 1 ? batchStride : rows * rowStride;
}

Error Runtime::encodeTileMap(const TileMapRequest &r, void *map,
                             bool &encoded) {
  encoded = false;
  if (!map || reinterpret_cast<uintptr_t>(map) % kTensorMapAlignment != 0)
    return invalid("the tensor map's buffer is null or not " +
                   std::to_string(kTensorMapAlignment) + "-byte aligned");
  // A runtime built without CUDA 12 headers, or HIP: the caller's cp.async
  // kernel is as correct, so this is not a failure.
  // (CudaBackend.cpp checks at compile time that a map fits the buffer.)
  if (backend_.tensorMapBytes() == 0)
    return Error::success();
  // The driver wants the innermost dimension first. A single matrix still
  // gets a (valid, unused) matrix stride.
  TensorMapRequest request;
  request.rank = 3;
  request.globalAddress = const_cast<void *>(r.address);
  request.globalDim[0] = uint64_t(r.cols);
  request.globalDim[1] = uint64_t(r.rows);
  request.globalDim[2] = uint64_t(r.batch);
  request.globalStrides[0] = uint64_t(r.rowStride * kTileElementBytes);
  request.globalStrides[1] = uint64_t(r.matrixStride() * kTileElementBytes);
  request.boxDim[0] = uint32_t(r.boxCols);
  request.boxDim[1] = uint32_t(r.boxRows);
  request.boxDim[2] = 1;
  request.dtype = r.dtype;
  request.swizzle = kSwizzle128B;
  request.l2promo = kL2Promote128B;
  std::memset(map, 0, QUILT_GPU_TENSOR_MAP_BYTES);
  Error error = backend_.encodeTensorMap(request, map);
  // An older driver: as above.
  if (error.status == QUILT_GPU_ERROR_UNSUPPORTED)
    return Error::success();
  encoded = !error.failed();
  return error;
}

namespace {

/// A device buffer of the calling thread, kept across calls and grown (at
/// least doubled, so that a sequence of growing shapes reallocates a few
/// times, not on every call). Freed when the thread exits: its last user (a
/// generated call) waited for its kernels, and a failure then has no one to
/// report to.
struct ThreadBuffer {
  Backend *backend = nullptr;
  void *ptr = nullptr;
  uint64_t bytes = 0;

  ~ThreadBuffer() {
    if (ptr)
      (void)backend->memFree(ptr);
  }

  /// At least `wanted` bytes from `from`; `fresh` says whether they are a
  /// new allocation (whose contents are undefined).
  Error reserve(Backend &from, uint64_t wanted, bool &fresh) {
    fresh = !ptr || bytes < wanted;
    if (!fresh)
      return Error::success();
    uint64_t grown = std::max(wanted, 2 * bytes);
    if (ptr) {
      Error freed = backend->memFree(ptr);
      ptr = nullptr, bytes = 0;
      if (freed.failed())
        return freed;
    }
    void *allocated = nullptr;
    if (Error error = from.memAlloc(grown, /*hostShared=*/false, allocated);
        error.failed())
      return error;
    backend = &from, ptr = allocated, bytes = grown;
    return Error::success();
  }

  /// At least `wanted` bytes from `from` in `out`, whatever they hold (the
  /// scratch buffers, which their users overwrite).
  Error lend(Backend &from, uint64_t wanted, void *&out) {
    bool fresh = false;
    if (Error error = reserve(from, wanted, fresh); error.failed())
      return error;
    out = ptr;
    return Error::success();
  }
};

thread_local ThreadBuffer threadWorkspace;
thread_local ThreadBuffer threadOperandCopies;

/// The arrival counters, and the thread's failure count when they were last
/// known to be zero.
thread_local ThreadBuffer threadCounters;
thread_local uint64_t countersZeroedAtFailures = 0;

} // namespace

Error Runtime::workspace(uint64_t bytes, void *&ptr) {
  return threadWorkspace.lend(backend_, bytes, ptr);
}

Error Runtime::operandCopies(uint64_t bytes, void *&ptr) {
  return threadOperandCopies.lend(backend_, bytes, ptr);
}

Error Runtime::arrivalCounters(uint64_t count, int32_t *&ptr) {
  ThreadBuffer &held = threadCounters;
  bool fresh = false;
  if (Error error = held.reserve(backend_, count * sizeof(int32_t), fresh);
      error.failed())
    return error;
  // The kernels that count leave every counter at zero, but one stopped
  // midway (a trap, a failed launch) may not have: whatever failed on this
  // thread since they were zeroed, they are zeroed again.
  if (fresh || countersZeroedAtFailures != failuresOnThisThread()) {
    if (Error error = backend_.memset32Async(
            held.ptr, 0, held.bytes / sizeof(int32_t), nullptr);
        error.failed())
      return error;
    if (Error error = backend_.streamSynchronize(nullptr); error.failed())
      return error;
    countersZeroedAtFailures = failuresOnThisThread();
  }
  ptr = static_cast<int32_t *>(held.ptr);
  return Error::success();
}

} // namespace quilt::gpu
