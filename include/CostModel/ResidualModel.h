//===- ResidualModel.h - A learned correction to the analytic model -------===//
//
// Part of the Quilt project. The analytic model (CostModel.h) has named
// terms for what it understands; what it does not (a register block's
// instruction scheduling, remainder loops, the packing of odd shapes) shows
// up as the ratio of measured to predicted time. A residual model learns
// log(measured / predicted) from a configuration's knobs (as tokens, the
// way TLP reads schedule primitives), the shape, the target's facts and the
// analytic model's own terms, and corrects the prediction by that factor:
//
//   learned_us = predicted_us x exp(body(features) + head[target](features))
//
// The body is shared by every target; a head is an ensemble fitted to
// one target's measurements on top of the body, so that a new target needs
// few of them. Both are gradient-boosted regression trees, trained offline
// (bench/host/train_residual.py, with scikit-learn) and kept as a versioned
// text file this library evaluates without any learning library.
// docs/tuning.md describes the format and the training.
//
// The residual model reranks candidates where time allows: explain, the
// candidate pruning at compile time and the starting points of `quiltc
// tune`. It is not on the run-time selection path, whose budget a few
// hundred tree nodes per candidate would exceed.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_RESIDUALMODEL_H
#define QUILT_COSTMODEL_RESIDUALMODEL_H

#include "CostModel/CostModel.h"

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace quilt {

/// The features of one (shape, configuration, target) with its analytic
/// prediction, in a fixed order. A model file lists the names it was
/// trained on; loading checks them against this list.
inline constexpr int kNumResidualFeatures = 40;
using ResidualFeatures = std::array<double, kNumResidualFeatures>;

const char *residualFeatureName(int index);

ResidualFeatures residualFeatures(const GemmShape &shape, ElemType elem,
                                  const KernelConfig &config,
                                  const TargetDesc &target,
                                  const Prediction &prediction);

/// One regression tree: internal nodes compare one feature with a
/// threshold (`feature <= threshold` goes left), leaves hold a value.
struct RegressionTree {
  struct Node {
    int feature = -1; ///< -1 for a leaf
    double threshold = 0;
    int left = -1, right = -1;
    double value = 0; ///< leaves only
  };
  std::vector<Node> nodes; ///< nodes[0] is the root
  double evaluate(const ResidualFeatures &features) const;
};

/// A bias plus a sum of trees.
struct TreeEnsemble {
  double bias = 0;
  std::vector<RegressionTree> trees;
  double evaluate(const ResidualFeatures &features) const;
};

class ResidualModel {
public:
  /// Reads a model file; false with `error` as "FILE:LINE: ..." for another
  /// format version, features this library does not compute (in another
  /// order), a malformed node, or a tree whose children do not follow
  /// their parent.
  bool load(const std::string &path, std::string &error);
  bool parse(std::string_view text, const std::string &source,
             std::string &error);

  /// log(measured / predicted) for the features on `target`: the body,
  /// plus the target's head when the file has one.
  double logResidual(const ResidualFeatures &features,
                     std::string_view target) const;
  /// `predictedUs` corrected by the residual at `features` on `target`.
  double correct(double predictedUs, const ResidualFeatures &features,
                 std::string_view target) const;
  /// The analytic prediction corrected by the residual.
  double correctedUs(const GemmShape &shape, ElemType elem,
                     const KernelConfig &config, const TargetDesc &target,
                     const Prediction &prediction) const;

  bool hasHead(std::string_view target) const;
  /// "file" as given to load (or parse's source).
  const std::string &source() const { return source_; }
  /// The file's `trained_on` line: what it learned from, for people.
  const std::string &provenance() const { return provenance_; }

private:
  std::string source_, provenance_;
  TreeEnsemble body_;
  std::map<std::string, TreeEnsemble, std::less<>> heads_;
};

} // namespace quilt

#endif // QUILT_COSTMODEL_RESIDUALMODEL_H
