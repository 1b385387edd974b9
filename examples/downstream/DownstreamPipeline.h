//===- DownstreamPipeline.h - The downstream compiler's pipeline -*- C++ -*-===//
//
// An example of a compiler built on an installed Quilt.
//
//===----------------------------------------------------------------------===//

#ifndef DOWNSTREAM_DOWNSTREAMPIPELINE_H
#define DOWNSTREAM_DOWNSTREAMPIPELINE_H

namespace downstream {

/// Registers `downstream-lower-matmul{target=... lower-to-llvm=...}`.
void registerDownstreamPipelines();

} // namespace downstream

#endif // DOWNSTREAM_DOWNSTREAMPIPELINE_H
