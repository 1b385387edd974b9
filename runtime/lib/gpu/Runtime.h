//===- Runtime.h - Device, caches and checks behind mgpu* -------*- C++ -*-===//
//
// Part of the Quilt project. The process's one GPU runtime: opens the
// device once (and hands its facts to run-time selection), caches modules
// by binary and functions by (module, name), opts kernels in to large
// dynamic shared memory once, and checks what the generated code passes
// before the driver sees it. The mgpu* entry points (MgpuAbi.cpp) are thin
// wrappers over it.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_RUNTIME_GPU_RUNTIME_H
#define QUILT_RUNTIME_GPU_RUNTIME_H

#include "Backend.h"

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace quilt::gpu {

/// A batch of row-major matrices that Quilt's TMA kernels read in swizzled
/// tiles (quilt_gpu_tile_map). Sizes and strides in elements.
struct TileMapRequest {
  const void *address = nullptr;
  int64_t dtype = 0;
  int64_t batch = 0, rows = 0, cols = 0;
  int64_t batchStride = 0, rowStride = 0;
  int64_t boxRows = 0, boxCols = 0;

  /// Whether a tensor map can describe the matrices and the box (the
  /// conditions of QuiltGpuRuntime.h); needs no device.
  bool describable() const;
  /// Elements between matrices as the driver is told (describable requests
  /// only: rows * rowStride does not overflow there).
  int64_t matrixStride() const;
};

class Runtime {
public:
  /// The process's runtime over builtinBackend().
  static Runtime &instance();

  explicit Runtime(Backend &backend) : backend_(backend) {}

  /// Opens the device on first use (once per process: an open that failed
  /// fails every later call with the same error) and binds it to the
  /// calling thread.
  Error ready();
  /// Before the device is open: selects the ordinal (else QUILT_GPU_DEVICE,
  /// else 0). After: accepts only the ordinal in use.
  Error selectDevice(int32_t ordinal);
  /// The device's facts; valid after ready() succeeded.
  const quilt_gpu_facts &facts() const { return facts_; }
  Backend &backend() { return backend_; }

  /// `jitOptLevel` < 0 loads a binary, else JIT-compiles PTX at that level.
  Error loadModule(const void *image, size_t size, int jitOptLevel,
                   void *&module);
  Error unloadModule(void *module);
  Error getFunction(void *module, const char *name, void *&function);
  Error launch(void *function, const intptr_t grid[3], const intptr_t block[3],
               int32_t smem, void *stream, void **params, void **extra);
  /// Streams from a pool: generated code creates and destroys a stream
  /// around every call (gpu-to-llvm's async tokens), two driver calls in
  /// the path of every call that a reused stream avoids (their cost is not
  /// measured: no GPU has been lent yet). A released stream is kept
  /// (up to kMaxIdleStreams) and handed out again; work still queued on it
  /// runs first, in order, as it would have on a destroyed stream.
  Error acquireStream(void *&stream);
  Error releaseStream(void *stream);
  Error registerHostMemRef(int64_t rank, const void *descriptor,
                           int64_t elementBytes, bool registering);
  Error encodeTensorMap(int64_t rank, const void *descriptor, int64_t dtype,
                        int64_t interleave, int64_t swizzle, int64_t l2promo,
                        int64_t oob, const int64_t *boxDims, void *&map);
  /// Encodes a describable request's map into `map`
  /// (QUILT_GPU_TENSOR_MAP_BYTES bytes, aligned as much); `encoded` says
  /// whether it did (not when the backend has no tensor maps).
  Error encodeTileMap(const TileMapRequest &request, void *map, bool &encoded);
  /// The calling thread's scratch buffer of at least `bytes` (> 0)
  /// (quilt_gpu_workspace): grown, never shrunk, freed at thread exit.
  Error workspace(uint64_t bytes, void *&ptr);
  /// The calling thread's buffer of at least `bytes` (> 0) for aligned
  /// copies of operands (quilt_gpu_operand_copies): kept apart from the
  /// workspace, as a call uses both at once; grown, never shrunk.
  Error operandCopies(uint64_t bytes, void *&ptr);
  /// The calling thread's `count` (> 0) zeroed 32-bit counters
  /// (quilt_gpu_arrival_counters): grown, never shrunk, zeroed when
  /// allocated and again after a failure on the thread.
  Error arrivalCounters(uint64_t count, int32_t *&ptr);

private:
  enum State : int { kUnopened, kOpen, kFailed };
  State open();
  Error optIn(void *function, int32_t smem);
  /// Encodes `request` and returns its device copy (shared by identical
  /// encodings).
  Error deviceTensorMap(const TensorMapRequest &request, void *&map);

  Backend &backend_;

  std::mutex openMutex_;
  std::atomic<int> state_{kUnopened};
  int32_t requestedOrdinal_ = -1;
  Error openError_;
  quilt_gpu_facts facts_{};

  /// Modules by the binary they were loaded from, with a reference count:
  /// generated code loads in a global constructor and unloads in a global
  /// destructor, which can run more than once for one binary.
  struct ModuleKey {
    const void *image;
    size_t size;
    int jitOptLevel;
    bool operator<(const ModuleKey &o) const {
      return std::tie(image, size, jitOptLevel) <
             std::tie(o.image, o.size, o.jitOptLevel);
    }
  };
  struct ModuleEntry {
    void *module;
    int references;
  };
  std::mutex modulesMutex_;
  std::map<ModuleKey, ModuleEntry> modules_;
  std::unordered_map<void *, ModuleKey> keyOfModule_;

  /// Functions per module by name (transparent comparator: looked up by
  /// the caller's C string without a copy), read on every launch.
  std::shared_mutex functionsMutex_;
  std::unordered_map<void *, std::map<std::string, void *, std::less<>>>
      functions_;
  /// The dynamic shared memory each function was opted in to.
  std::unordered_map<void *, int32_t> optedIn_;

  static constexpr size_t kMaxIdleStreams = 16;
  std::mutex streamsMutex_;
  std::vector<void *> idleStreams_;

  /// Device copies of tensor maps by their encoded bytes.
  std::mutex tensorMapsMutex_;
  std::map<std::string, void *> tensorMaps_;
};

} // namespace quilt::gpu

#endif // QUILT_RUNTIME_GPU_RUNTIME_H
