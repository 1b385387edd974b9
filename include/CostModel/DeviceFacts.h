//===- DeviceFacts.h - A target refreshed from the device -------*- C++ -*-===//
//
// Part of the Quilt project. The target database describes one product
// (an H100 SXM); the GPU runtime measures the device a program actually
// runs on (an H100 PCIe has 114 SMs at a lower clock) and run-time
// selection models that one instead.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_DEVICEFACTS_H
#define QUILT_COSTMODEL_DEVICEFACTS_H

#include "CostModel/Target.h"

namespace quilt {

/// What the GPU runtime reads from the driver. Zero means "not measured".
struct DeviceFacts {
  Vendor vendor = Vendor::NVIDIA;
  int64_t computeUnits = 0;
  double clockGHz = 0;
  int64_t sharedMemPerBlock = 0; ///< the opt-in maximum per block
  int64_t sharedMemPerCU = 0;
};

/// Overrides `target`'s compute units, clock and shared memory with the
/// measured ones when the vendors match (returns false and leaves `target`
/// alone otherwise). The per-instruction peaks are scaled with compute
/// units x clock, since throughput per SM per clock is the architecture's
/// and does not change between products of one chip.
bool applyDeviceFacts(TargetDesc &target, const DeviceFacts &facts);

} // namespace quilt

#endif // QUILT_COSTMODEL_DEVICEFACTS_H
