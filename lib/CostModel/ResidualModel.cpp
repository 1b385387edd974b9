//===- ResidualModel.cpp - Features and tree ensembles of the residual ----===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/ResidualModel.h"
#include "TextUtil.h"

#include <algorithm>
#include <cmath>

namespace quilt {

namespace {

constexpr std::string_view kMagic = "quilt-residual-model";
constexpr int kVersion = 1;
/// Bounds that keep a corrupt file from allocating without limit.
constexpr int64_t kMaxTrees = 100000, kMaxNodes = 1 << 16;

constexpr const char *kFeatureNames[kNumResidualFeatures] = {
    // The shape.
    "log2_b", "log2_m", "log2_n", "log2_k", "log2_flops", "elem_bytes",
    // The target's facts, so that one body serves several targets.
    "target_lanes", "target_registers", "log2_target_l1", "log2_target_l2",
    "target_cores", "target_is_gpu",
    // The configuration's knobs, one token each.
    "log2_tile_m", "log2_tile_n", "log2_tile_k", "thread_tile_m",
    "thread_tile_n_vectors", "vector_width", "split_k", "stages", "warps",
    "inst_kind",
    // What the knobs mean for this shape on this target.
    "accumulator_fraction", "loads_per_fma", "m_remainder", "n_remainder",
    "k_remainder", "log2_m_blocks", "log2_n_blocks", "log2_k_blocks",
    "a_block_over_l2", "b_panel_over_l1",
    // The analytic model's own terms.
    "log2_predicted_us", "compute_share", "onchip_share", "pack_share",
    "memory_share", "overhead_share", "padding_waste", "issue_efficiency"};

double log2p1(double x) { return std::log2(1.0 + std::max(x, 0.0)); }

/// The fraction of a padded extent that lies outside the problem when `n`
/// is covered in steps of `step`.
double remainder(int64_t n, int64_t step) {
  if (n <= 0 || step <= 1)
    return 0;
  int64_t padded = (n + step - 1) / step * step;
  return double(padded - n) / double(padded);
}

int64_t blocks(int64_t n, int64_t step) {
  return step > 0 ? (std::max<int64_t>(n, 0) + step - 1) / step : 0;
}

} // namespace

const char *residualFeatureName(int index) {
  return index >= 0 && index < kNumResidualFeatures ? kFeatureNames[index]
                                                    : "?";
}

ResidualFeatures residualFeatures(const GemmShape &shape, ElemType elem,
                                  const KernelConfig &config,
                                  const TargetDesc &target,
                                  const Prediction &prediction) {
  double bytes = double(elemBytes(elem));
  double vector = double(std::max<int64_t>(config.vectorWidth, 1));
  double accumulators = double(config.threadTileM) *
                        double(config.threadTileN) /
                        (target.isGpu() ? 1.0 : vector);
  double loadsPerStep =
      double(config.threadTileM) +
      double(config.threadTileN) / (target.isGpu() ? 1.0 : vector);
  double total = std::max(prediction.totalUs, 1e-9);
  auto share = [&](Term term) { return prediction[term] / total; };
  double flops = 2.0 * double(std::max<int64_t>(shape.b, 0)) *
                 double(std::max<int64_t>(shape.m, 0)) *
                 double(std::max<int64_t>(shape.n, 0)) *
                 double(std::max<int64_t>(shape.k, 0));
  auto ratio = [](double x, double y) { return y > 0 ? x / y : 0.0; };

  return {log2p1(double(shape.b)),
          log2p1(double(shape.m)),
          log2p1(double(shape.n)),
          log2p1(double(shape.k)),
          log2p1(flops),
          bytes,
          double(target.cpuLanes()),
          double(target.maxRegistersPerThread),
          log2p1(double(target.l1Bytes)),
          log2p1(double(target.l2Bytes)),
          double(target.computeUnits),
          target.isGpu() ? 1.0 : 0.0,
          log2p1(double(config.tileM)),
          log2p1(double(config.tileN)),
          log2p1(double(config.tileK)),
          double(config.threadTileM),
          double(config.threadTileN) / vector,
          vector,
          double(config.splitK),
          double(config.stages),
          double(config.warps()),
          double(static_cast<int>(config.inst)),
          ratio(accumulators, double(target.maxRegistersPerThread)),
          ratio(loadsPerStep, accumulators),
          remainder(shape.m, config.threadTileM),
          remainder(shape.n, config.threadTileN),
          remainder(shape.k, config.tileK),
          log2p1(double(blocks(shape.m, config.tileM))),
          log2p1(double(blocks(shape.n, config.tileN))),
          log2p1(double(blocks(shape.k, config.tileK))),
          ratio(double(config.tileM * config.tileK) * bytes,
                double(target.l2Bytes)),
          ratio(double(config.tileK * config.threadTileN) * bytes,
                double(target.l1Bytes)),
          std::log2(total),
          share(Term::ComputeUs),
          share(Term::OnChipUs),
          share(Term::PackUs),
          share(Term::MemoryUs),
          (prediction[Term::TileOverheadUs] + prediction[Term::LaunchUs]) /
              total,
          prediction[Term::PaddingWaste],
          prediction[Term::IssueEfficiency]};
}

double RegressionTree::evaluate(const ResidualFeatures &features) const {
  // Children always follow their parent (checked on load), so this walk
  // ends. Features compare at single precision, as the trainer's trees
  // (scikit-learn) compare them: a threshold halfway between two training
  // values then sends every value to the same side as it did in training.
  int i = 0;
  while (nodes[i].feature >= 0) {
    double value = static_cast<float>(features[nodes[i].feature]);
    i = value <= nodes[i].threshold ? nodes[i].left : nodes[i].right;
  }
  return nodes[i].value;
}

double TreeEnsemble::evaluate(const ResidualFeatures &features) const {
  double sum = bias;
  for (const RegressionTree &tree : trees)
    sum += tree.evaluate(features);
  return sum;
}

double ResidualModel::logResidual(const ResidualFeatures &features,
                                  std::string_view target) const {
  double r = body_.evaluate(features);
  if (auto head = heads_.find(target); head != heads_.end())
    r += head->second.evaluate(features);
  return r;
}

double ResidualModel::correctedUs(const GemmShape &shape, ElemType elem,
                                  const KernelConfig &config,
                                  const TargetDesc &target,
                                  const Prediction &prediction) const {
  return correct(prediction.totalUs,
                 residualFeatures(shape, elem, config, target, prediction),
                 target.name);
}

double ResidualModel::correct(double predictedUs,
                              const ResidualFeatures &features,
                              std::string_view target) const {
  return predictedUs * std::exp(logResidual(features, target));
}

bool ResidualModel::hasHead(std::string_view target) const {
  return heads_.find(target) != heads_.end();
}

bool ResidualModel::load(const std::string &path, std::string &error) {
  std::string text;
  if (!readFile(path, text)) {
    error = path + ": cannot read the residual model";
    return false;
  }
  return parse(text, path, error);
}

bool ResidualModel::parse(std::string_view text, const std::string &source,
                          std::string &error) {
  int lineNo = 0;
  std::string_view line;
  auto fail = [&](const std::string &what) {
    error =
        source + (lineNo > 0 ? ":" + std::to_string(lineNo) : "") + ": " + what;
    return false;
  };
  auto next = [&]() { return nextContentLine(text, line, lineNo); };
  // "key=value" words after a section keyword.
  auto keyValue = [&](std::string_view word, std::string_view key,
                      std::string_view &value) {
    if (!startsWith(word, key) || word.size() <= key.size() ||
        word[key.size()] != '=')
      return false;
    value = word.substr(key.size() + 1);
    return true;
  };

  ResidualModel model;
  model.source_ = source;
  if (!next())
    return fail("empty file: expected '" + std::string(kMagic) + " " +
                std::to_string(kVersion) + "'");
  std::vector<std::string_view> words = splitWords(line);
  int64_t version = 0;
  if (words.size() != 2 || words[0] != kMagic || !parseInt64(words[1], version))
    return fail("expected '" + std::string(kMagic) + " " +
                std::to_string(kVersion) + "'");
  if (version != kVersion)
    return fail("format version " + std::to_string(version) +
                " is not supported (this Quilt reads version " +
                std::to_string(kVersion) + ")");

  // The optional provenance line, then the feature list.
  if (!next())
    return fail("expected 'features N'");
  if (startsWith(line, "trained_on")) {
    model.provenance_ = std::string(trim(line.substr(10)));
    if (!next())
      return fail("expected 'features N'");
  }
  words = splitWords(line);
  int64_t count = 0;
  if (words.size() != 2 || words[0] != "features" ||
      !parseInt64(words[1], count))
    return fail("expected 'features N'");
  if (count != kNumResidualFeatures)
    return fail("the model uses " + std::to_string(count) +
                " features; this Quilt computes " +
                std::to_string(kNumResidualFeatures) +
                ": retrain it (bench/host/train_residual.py)");
  for (int i = 0; i < kNumResidualFeatures; ++i) {
    if (!next())
      return fail("expected 'feature " + std::string(kFeatureNames[i]) + "'");
    words = splitWords(line);
    if (words.size() != 2 || words[0] != "feature")
      return fail("expected 'feature NAME'");
    if (words[1] != kFeatureNames[i])
      return fail("feature " + std::to_string(i) + " is '" +
                  std::string(words[1]) + "'; this Quilt computes '" +
                  kFeatureNames[i] + "' there: retrain the model");
  }

  // Ensembles: "body bias=B trees=T" once, then "head TARGET bias=B
  // trees=T" per target; each tree is "tree NODES" and its nodes.
  bool haveBody = false;
  while (next()) {
    words = splitWords(line);
    TreeEnsemble ensemble;
    std::string head;
    size_t first = 1;
    if (words[0] == "head") {
      if (words.size() < 2)
        return fail("expected 'head TARGET bias=B trees=T'");
      head = std::string(words[1]);
      if (model.heads_.count(head))
        return fail("a second head for target '" + head + "'");
      first = 2;
    } else if (words[0] == "body") {
      if (haveBody)
        return fail("a second body");
      haveBody = true;
    } else {
      return fail("expected 'body' or 'head', got '" + std::string(words[0]) +
                  "'");
    }
    int64_t trees = -1;
    bool haveBias = false;
    for (size_t w = first; w < words.size(); ++w) {
      std::string_view value;
      if (keyValue(words[w], "bias", value)) {
        if (!parseDouble(value, ensemble.bias) || !std::isfinite(ensemble.bias))
          return fail("bias '" + std::string(value) + "' is not a number");
        haveBias = true;
      } else if (keyValue(words[w], "trees", value)) {
        if (!parseInt64(value, trees) || trees < 0 || trees > kMaxTrees)
          return fail("trees '" + std::string(value) +
                      "' is not a count from 0 to " +
                      std::to_string(kMaxTrees));
      } else {
        return fail("unexpected '" + std::string(words[w]) +
                    "' (expected bias=B trees=T)");
      }
    }
    if (!haveBias || trees < 0)
      return fail("expected bias=B and trees=T");
    for (int64_t t = 0; t < trees; ++t) {
      int64_t nodes = 0;
      if (!next() || (words = splitWords(line)).size() != 2 ||
          words[0] != "tree" || !parseInt64(words[1], nodes) || nodes < 1 ||
          nodes > kMaxNodes)
        return fail("expected 'tree N' with 1 to " + std::to_string(kMaxNodes) +
                    " nodes (tree " + std::to_string(t) + " of " +
                    std::to_string(trees) + ")");
      RegressionTree tree;
      tree.nodes.resize(size_t(nodes));
      for (int64_t n = 0; n < nodes; ++n) {
        RegressionTree::Node &node = tree.nodes[size_t(n)];
        if (!next())
          return fail("the file ends inside a tree");
        words = splitWords(line);
        if (words.size() == 2 && words[0] == "leaf") {
          if (!parseDouble(words[1], node.value) || !std::isfinite(node.value))
            return fail("leaf value '" + std::string(words[1]) +
                        "' is not a number");
          continue;
        }
        int64_t feature = 0, left = 0, right = 0;
        if (words.size() != 5 || words[0] != "node" ||
            !parseInt64(words[1], feature) ||
            !parseDouble(words[2], node.threshold) ||
            !parseInt64(words[3], left) || !parseInt64(words[4], right))
          return fail("expected 'node FEATURE THRESHOLD LEFT RIGHT' or "
                      "'leaf VALUE'");
        if (feature < 0 || feature >= kNumResidualFeatures)
          return fail("feature index " + std::to_string(feature) +
                      " is out of range");
        // Children after their parent: evaluation cannot loop.
        if (left <= n || right <= n || left >= nodes || right >= nodes)
          return fail("node " + std::to_string(n) + "'s children " +
                      std::to_string(left) + " and " + std::to_string(right) +
                      " must follow it within the tree's " +
                      std::to_string(nodes) + " nodes");
        node.feature = int(feature);
        node.left = int(left), node.right = int(right);
      }
      ensemble.trees.push_back(std::move(tree));
    }
    if (head.empty())
      model.body_ = std::move(ensemble);
    else
      model.heads_.emplace(std::move(head), std::move(ensemble));
  }
  if (!haveBody)
    return fail("the file has no 'body'");
  *this = std::move(model);
  return true;
}

} // namespace quilt
