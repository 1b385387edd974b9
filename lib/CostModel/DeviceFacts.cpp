//===- DeviceFacts.cpp - A target refreshed from the running device -------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/DeviceFacts.h"

#include <algorithm>

namespace quilt {

bool applyDeviceFacts(TargetDesc &target, const DeviceFacts &facts) {
  if (!target.isGpu() || facts.vendor != target.vendor)
    return false;
  double oldRate = double(target.computeUnits) * target.clockGHz;
  if (facts.computeUnits > 0)
    target.computeUnits = facts.computeUnits;
  if (facts.clockGHz > 0)
    target.clockGHz = facts.clockGHz;
  double newRate = double(target.computeUnits) * target.clockGHz;
  if (oldRate > 0 && newRate > 0)
    for (double &peak : target.peakTflops)
      peak *= newRate / oldRate;
  if (facts.sharedMemPerCU > 0)
    target.sharedMemPerCU = facts.sharedMemPerCU;
  if (facts.sharedMemPerBlock > 0)
    target.sharedMemPerBlock = facts.sharedMemPerBlock;
  // The database guarantees per block <= per CU; keep it.
  target.sharedMemPerBlock =
      std::min(target.sharedMemPerBlock, target.sharedMemPerCU);
  return true;
}

} // namespace quilt
