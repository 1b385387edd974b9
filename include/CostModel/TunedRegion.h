//===- TunedRegion.h - Shapes whose kernel was measured, not predicted ----===//
//
// Part of the Quilt project. A tuning database (TuningDatabase.h) records,
// for a box of (batched) GEMM shapes, the configuration that measured
// fastest there. A dispatch compiled with the database carries each box as
// a region naming one of its candidates; run-time selection takes that
// candidate for shapes inside the region and asks the cost model elsewhere.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_TUNEDREGION_H
#define QUILT_COSTMODEL_TUNEDREGION_H

#include "CostModel/Workload.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace quilt {

/// Inclusive bounds on b, m, n and k, in that order.
struct ShapeRegion {
  std::array<int64_t, 4> lower{1, 0, 0, 0}, upper{1, 0, 0, 0};

  /// The region holding exactly one shape.
  static ShapeRegion exactly(const GemmShape &shape);
  bool contains(const GemmShape &shape) const;
  /// Empty when the bounds are usable: non-negative, lower <= upper.
  std::string check() const;
  bool operator==(const ShapeRegion &o) const {
    return lower == o.lower && upper == o.upper;
  }
};

/// "b=1 m=96..181 n=768 k=768": a dimension with equal bounds is one number.
std::string formatShapeRegion(const ShapeRegion &region);
/// Reads formatShapeRegion's four words back; false with `error` otherwise.
bool parseShapeRegion(const std::vector<std::string_view> &words,
                      ShapeRegion &region, std::string &error);

/// One region of a dispatch: inside it, `candidate` runs. `source` says
/// where the entry came from ("tuned.db:12"), for explain and diagnostics.
struct TunedRegion {
  ShapeRegion region;
  int32_t candidate = 0;
  std::string source;
  bool operator==(const TunedRegion &o) const {
    return region == o.region && candidate == o.candidate && source == o.source;
  }
};

} // namespace quilt

#endif // QUILT_COSTMODEL_TUNEDREGION_H
