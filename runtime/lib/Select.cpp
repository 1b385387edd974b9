//===- Select.cpp - Run-time micro-kernel selection, C ABI ----------------===//
//
// Part of the Quilt project. The compiler embeds a selection spec per
// dispatch; on the first call the spec is parsed and a table prepared once,
// and every call then runs the same allocation-free selection as
// `quiltc explain`.
//
//===----------------------------------------------------------------------===//

#include "QuiltRuntime.h"
#include "Status.h"

#include "CostModel/CostModel.h"
#include "CostModel/DeviceFacts.h"
#include "CostModel/Dispatch.h"
#include "CostModel/SelectionSpec.h"
#include "CostModel/Workload.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace {

/// quilt_rt_force_kernel's choice, -1 when selection is normal.
int32_t forcedKernel = -1;

/// quilt_rt_set_device_facts's facts, applied to every spec parsed after.
std::mutex deviceFactsMutex;
std::optional<quilt::DeviceFacts> deviceFacts;

/// Refreshes a parsed spec's target from the running device; false when
/// there are no facts for its vendor.
bool applyCurrentDeviceFacts(quilt::TargetDesc &target) {
  std::lock_guard<std::mutex> lock(deviceFactsMutex);
  return deviceFacts && quilt::applyDeviceFacts(target, *deviceFacts);
}

/// Prepares the table for a parsed spec, modeling the running device when
/// its facts are known. A device on which some candidate does not fit
/// (less shared memory than the spec's target) keeps the spec's target:
/// selection still works, and launching that candidate reports the limit.
/// Tuned regions apply either way: they name candidates, not resources.
bool prepare(const quilt::SelectionSpec &spec, quilt::PreparedTable &table,
             std::string &error) {
  quilt::TargetDesc device = spec.target;
  bool prepared = (applyCurrentDeviceFacts(device) &&
                   quilt::prepareTable(spec.candidates, spec.elem, device,
                                       device.calibration, table, error)) ||
                  quilt::prepareTable(spec.candidates, spec.elem, spec.target,
                                      spec.target.calibration, table, error);
  return prepared && quilt::addTunedRegions(spec.tuned, table, error);
}

/// A dispatch's spec as parsed (for the trace) and its prepared table.
struct PreparedDispatch {
  quilt::SelectionSpec spec;
  quilt::PreparedTable table;
};

/// Stored in a dispatch's cache slot when its spec cannot be used, so that
/// later calls fail fast instead of parsing it again.
PreparedDispatch *const kUnusableSpec =
    reinterpret_cast<PreparedDispatch *>(uintptr_t(1));

/// The dispatch for a spec, prepared on first use. Concurrent first calls
/// may both prepare one; the first to publish wins and the other is dropped.
const PreparedDispatch *dispatchFor(const char *spec, void **cache) {
  auto *slot = reinterpret_cast<PreparedDispatch **>(cache);
  PreparedDispatch *table = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (table)
    return table == kUnusableSpec ? nullptr : table;

  auto prepared = std::make_unique<PreparedDispatch>();
  std::string error;
  PreparedDispatch *published = kUnusableSpec;
  if (!quilt::parseSelectionSpec(spec, prepared->spec, error) ||
      !prepare(prepared->spec, prepared->table, error)) {
    quilt::rt::setLastError("quilt_rt_select: unusable selection spec: " +
                            error);
  } else {
    prepared->table.policy = prepared->spec.policy;
    prepared->table.fixedIndex = prepared->spec.fixedIndex;
    published = prepared.get();
  }
  PreparedDispatch *expected = nullptr;
  if (__atomic_compare_exchange_n(slot, &expected, published, false,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    if (published != kUnusableSpec)
      prepared.release(); // Owned by the slot until quilt_rt_release.
    return published == kUnusableSpec ? nullptr : published;
  }
  return expected == kUnusableSpec ? nullptr : expected;
}

/// Whether QUILT_TRACE_SELECTION is set (to anything but "" or "0"): then
/// every selection is printed to stderr. Read once.
bool tracing() {
  static const bool enabled = [] {
    const char *value = std::getenv("QUILT_TRACE_SELECTION");
    return value && *value && std::string_view(value) != "0";
  }();
  return enabled;
}

/// One line per call: the shape, the kernel(s) and why (`forced` by
/// quilt_rt_force_kernel, a tuned region, or the policy).
void trace(const PreparedDispatch &dispatch, const quilt::GemmShape &shape,
           const quilt::Selection &selection, bool forced) {
  const std::vector<quilt::KernelConfig> &configs = dispatch.spec.candidates;
  std::string choice = "#" + std::to_string(selection.candidate) + " " +
                       configs[selection.candidate].str();
  if (selection.remainder >= 0)
    choice += " + #" + std::to_string(selection.remainder) + " " +
              configs[selection.remainder].str() + " (patch)";
  std::string why =
      forced ? std::string("forced")
      : selection.tunedRegion >= 0
          ? "tuned: " + dispatch.spec.tuned[selection.tunedRegion].source
          : std::string(quilt::stringify(dispatch.spec.policy));
  std::fprintf(stderr, "quilt: select b=%lld m=%lld n=%lld k=%lld: %s (%s)\n",
               (long long)shape.b, (long long)shape.m, (long long)shape.n,
               (long long)shape.k, choice.c_str(), why.c_str());
}

} // namespace

extern "C" QUILT_RT_EXPORT int32_t quilt_rt_select(const char *spec,
                                                   void **cache, int64_t b,
                                                   int64_t m, int64_t n,
                                                   int64_t k, int64_t *out) {
  if (!out) {
    quilt::rt::setLastError("quilt_rt_select: null output array");
    return QUILT_STATUS_NULL_ARGUMENT;
  }
  // Whatever happens below, leave a choice that computes the right result.
  out[0] = 0;
  out[1] = 0;
  out[2] = m;
  out[3] = n;
  if (!spec || !cache) {
    quilt::rt::setLastError("quilt_rt_select: null spec or cache");
    return QUILT_STATUS_NULL_ARGUMENT;
  }
  const PreparedDispatch *dispatch = dispatchFor(spec, cache);
  if (!dispatch)
    return QUILT_RT_STATUS_BAD_SPEC;
  const quilt::PreparedTable *table = &dispatch->table;

  // A fixed policy's dispatch has only its own kernel compiled.
  int32_t forced = __atomic_load_n(&forcedKernel, __ATOMIC_RELAXED);
  if (forced >= 0 && forced < table->count &&
      table->policy != quilt::SelectionPolicy::Fixed) {
    out[0] = forced;
    out[1] = forced;
    if (tracing()) {
      quilt::Selection chosen;
      chosen.candidate = forced;
      trace(*dispatch, quilt::GemmShape{b, m, n, k}, chosen, /*forced=*/true);
    }
    return QUILT_STATUS_OK;
  }

  quilt::Selection selection;
  quilt::SelectStatus status =
      quilt::selectKernel(*table, quilt::GemmShape{b, m, n, k}, selection);
  if (status != quilt::SelectStatus::Ok) {
    quilt::rt::setLastError(std::string("quilt_rt_select: ") +
                            quilt_status_string(static_cast<int>(status)));
    return static_cast<int32_t>(status);
  }
  if (tracing())
    trace(*dispatch, quilt::GemmShape{b, m, n, k}, selection,
          /*forced=*/false);
  out[0] = selection.candidate;
  out[1] = selection.remainder >= 0 ? selection.remainder : selection.candidate;
  switch (selection.patchDim) {
  case quilt::PatchDim::None:
    break;
  case quilt::PatchDim::M:
    out[2] = selection.mainExtent;
    break;
  case quilt::PatchDim::N:
    out[3] = selection.mainExtent;
    break;
  }
  return QUILT_STATUS_OK;
}

extern "C" QUILT_RT_EXPORT void quilt_rt_release(void **cache) {
  if (!cache)
    return;
  auto *slot = reinterpret_cast<PreparedDispatch **>(cache);
  PreparedDispatch *table = __atomic_exchange_n(slot, nullptr, __ATOMIC_ACQ_REL);
  if (table != kUnusableSpec)
    delete table;
}

extern "C" QUILT_RT_EXPORT void quilt_rt_force_kernel(int32_t kernel) {
  __atomic_store_n(&forcedKernel, kernel < 0 ? -1 : kernel, __ATOMIC_RELAXED);
}

extern "C" QUILT_RT_EXPORT void
quilt_rt_set_device_facts(int32_t vendor, int64_t compute_units,
                          double clock_ghz, int64_t shared_mem_per_block,
                          int64_t shared_mem_per_cu) {
  std::lock_guard<std::mutex> lock(deviceFactsMutex);
  if (vendor != QUILT_RT_VENDOR_NVIDIA && vendor != QUILT_RT_VENDOR_AMD) {
    deviceFacts.reset();
    return;
  }
  quilt::DeviceFacts facts;
  facts.vendor = vendor == QUILT_RT_VENDOR_NVIDIA ? quilt::Vendor::NVIDIA
                                                  : quilt::Vendor::AMD;
  facts.computeUnits = compute_units;
  facts.clockGHz = clock_ghz;
  facts.sharedMemPerBlock = shared_mem_per_block;
  facts.sharedMemPerCU = shared_mem_per_cu;
  deviceFacts = facts;
}
