//===- Workload.h - Workload lines and their GEMM shapes ------------------===//
//
// Part of the Quilt project. A workload file has one operation per line:
//
//   matmul f16 M=1000 N=768 K=3072
//   batch_matmul f32 B=192 M=43 N=64 K=43
//   conv2d_nhwc f32 N=16 H=339 W=339 C=128 F=64 R=3 S=3 stride=1 pad=1
//
// with `#` comments and blank lines. Convolutions run as implicit GEMM
// (M = N*OH*OW, N = F, K = C*R*S), so everything the cost model sees is a
// (batched) GEMM shape.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_WORKLOAD_H
#define QUILT_COSTMODEL_WORKLOAD_H

#include "CostModel/Types.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quilt {

/// A batch of `b` independent M x N x K products. Every dimension may be 0.
struct GemmShape {
  int64_t b = 1, m = 0, n = 0, k = 0;
  bool operator==(const GemmShape &o) const {
    return b == o.b && m == o.m && n == o.n && k == o.k;
  }
};

/// Why a shape cannot be run: a negative dimension, or an operand with more
/// elements than 64-bit index arithmetic can address safely (2^62). Empty
/// when the shape is fine.
std::string checkGemmShape(const GemmShape &shape);

struct ConvParams {
  int64_t n = 0, h = 0, w = 0, c = 0, f = 0, r = 1, s = 1;
  int64_t stride = 1, pad = 0;
  int64_t outH = 0, outW = 0;
};

struct Workload {
  OpKind op = OpKind::Matmul;
  ElemType elem = ElemType::F32;
  GemmShape gemm;
  std::optional<ConvParams> conv; ///< set for conv2d_* workloads
  /// Canonical text, e.g. "matmul f16 M=1000 N=768 K=3072".
  std::string str() const;
};

/// Parses one workload (no comment, not blank). On failure returns false and
/// sets `error` to the reason without a location, e.g. "missing K=".
bool parseWorkload(std::string_view line, Workload &out, std::string &error);

/// Parses a whole workload file's text. Errors read "line 3: <reason>".
bool parseWorkloads(std::string_view text, std::vector<Workload> &out,
                    std::string &error);

/// Reads and parses a file. Errors read "<path>: line 3: <reason>" or
/// "<path>: cannot open for reading".
bool parseWorkloadFile(const std::string &path, std::vector<Workload> &out,
                       std::string &error);

} // namespace quilt

#endif // QUILT_COSTMODEL_WORKLOAD_H
