//===- Calibration.h - Per-target coefficients of the cost model ----------===//
//
// Part of the Quilt project. The analytic model predicts time from published
// hardware figures; these few coefficients absorb what the figures do not
// say (how close kernels get to peak, fixed costs). They have documented
// defaults per vendor, can be written in the target database
// (`calib.compute_efficiency = 0.8`), and can be fitted from a handful of
// measurements with `quiltc calibrate` (see CalibrationFit.h).
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_CALIBRATION_H
#define QUILT_COSTMODEL_CALIBRATION_H

#include "CostModel/Types.h"

namespace quilt {

struct Calibration {
  /// Fraction of the instruction's peak a well-shaped kernel sustains.
  double computeEfficiency = 0.8;
  /// Fraction of the DRAM/HBM bandwidth a streaming kernel sustains.
  double memoryEfficiency = 0.85;
  /// Fixed cost per launch: driver/runtime launch latency on GPUs, fork/join
  /// of the worker threads on CPUs.
  double launchOverheadUs = 4.0;
  /// Fixed cost per tile a compute unit processes in sequence (pipeline
  /// fill, epilogue store latency).
  double tileOverheadUs = 0.5;

  bool operator==(const Calibration &o) const {
    return computeEfficiency == o.computeEfficiency &&
           memoryEfficiency == o.memoryEfficiency &&
           launchOverheadUs == o.launchOverheadUs &&
           tileOverheadUs == o.tileOverheadUs;
  }
};

/// The documented defaults for a vendor, used when the database gives none.
Calibration defaultCalibration(Vendor vendor);

} // namespace quilt

#endif // QUILT_COSTMODEL_CALIBRATION_H
