//===- Workload.cpp - Parsing workload lines ------------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Workload.h"
#include "TextUtil.h"

#include <array>

namespace quilt {

namespace {

/// Operands larger than this many elements could overflow index arithmetic
/// that multiplies an element index by the element size.
constexpr int64_t kMaxElements = int64_t(1) << 62;

/// Product of non-negative factors, or -1 when it exceeds kMaxElements.
int64_t boundedProduct(std::initializer_list<int64_t> factors) {
  int64_t product = 1;
  for (int64_t f : factors) {
    if (f == 0)
      return 0;
    if (__builtin_mul_overflow(product, f, &product) || product > kMaxElements)
      return -1;
  }
  return product;
}

struct KeySpec {
  const char *key;
  bool required;
  int64_t defaultValue;
};

/// Keys each op accepts, in the order Workload::str prints them.
std::vector<KeySpec> keysFor(OpKind op) {
  switch (op) {
  case OpKind::Matmul:
    return {{"M", true, 0}, {"N", true, 0}, {"K", true, 0}};
  case OpKind::BatchMatmul:
    return {{"B", true, 0}, {"M", true, 0}, {"N", true, 0}, {"K", true, 0}};
  case OpKind::Conv2dNhwcHwcf:
  case OpKind::Conv2dNchwFchw:
    return {{"N", true, 0}, {"H", true, 0},       {"W", true, 0},
            {"C", true, 0}, {"F", true, 0},       {"R", true, 0},
            {"S", true, 0}, {"stride", false, 1}, {"pad", false, 0}};
  }
  return {};
}

std::string convError(const ConvParams &p) {
  if (p.r < 1 || p.s < 1)
    return "filter size must be positive (R=" + std::to_string(p.r) +
           " S=" + std::to_string(p.s) + ")";
  if (p.stride < 1)
    return "stride must be positive (got " + std::to_string(p.stride) + ")";
  if (p.h > 0 && p.h + 2 * p.pad < p.r)
    return "filter R=" + std::to_string(p.r) +
           " is larger than the padded input H+2*pad=" +
           std::to_string(p.h + 2 * p.pad);
  if (p.w > 0 && p.w + 2 * p.pad < p.s)
    return "filter S=" + std::to_string(p.s) +
           " is larger than the padded input W+2*pad=" +
           std::to_string(p.w + 2 * p.pad);
  return "";
}

} // namespace

std::string checkGemmShape(const GemmShape &s) {
  const std::array<std::pair<const char *, int64_t>, 4> dims = {
      {{"B", s.b}, {"M", s.m}, {"N", s.n}, {"K", s.k}}};
  for (const auto &[name, value] : dims)
    if (value < 0)
      return std::string("negative dimension ") + name + "=" +
             std::to_string(value);
  if (boundedProduct({s.b, s.m, s.k}) < 0)
    return "operand A (B x M x K) has more than 2^62 elements";
  if (boundedProduct({s.b, s.k, s.n}) < 0)
    return "operand B (B x K x N) has more than 2^62 elements";
  if (boundedProduct({s.b, s.m, s.n}) < 0)
    return "result C (B x M x N) has more than 2^62 elements";
  return "";
}

std::string Workload::str() const {
  std::string s =
      std::string(stringify(op)) + " " + std::string(stringify(elem));
  auto add = [&](const char *key, int64_t v) {
    s += " " + std::string(key) + "=" + std::to_string(v);
  };
  if (conv) {
    add("N", conv->n), add("H", conv->h), add("W", conv->w);
    add("C", conv->c), add("F", conv->f), add("R", conv->r);
    add("S", conv->s), add("stride", conv->stride), add("pad", conv->pad);
    return s;
  }
  if (op == OpKind::BatchMatmul)
    add("B", gemm.b);
  add("M", gemm.m), add("N", gemm.n), add("K", gemm.k);
  return s;
}

bool parseWorkload(std::string_view line, Workload &out, std::string &error) {
  std::vector<std::string_view> words = splitWords(line);
  if (words.empty()) {
    error = "empty workload";
    return false;
  }
  std::optional<OpKind> op = parseOpKind(words[0]);
  if (!op) {
    error = "unknown op '" + std::string(words[0]) +
            "' (expected matmul, batch_matmul, conv2d_nhwc or conv2d_nchw)";
    return false;
  }
  if (words.size() < 2) {
    error = "missing element type after '" + std::string(words[0]) + "'";
    return false;
  }
  std::optional<ElemType> elem = parseElemType(words[1]);
  if (!elem) {
    error = "unknown element type '" + std::string(words[1]) +
            "' (expected f32, f16, bf16 or f64)";
    return false;
  }

  std::vector<KeySpec> keys = keysFor(*op);
  std::vector<std::optional<int64_t>> values(keys.size());
  for (size_t i = 2; i < words.size(); ++i) {
    std::string_view word = words[i];
    size_t eq = word.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      error = "malformed '" + std::string(word) + "' (expected KEY=VALUE)";
      return false;
    }
    std::string_view key = word.substr(0, eq), text = word.substr(eq + 1);
    size_t index = 0;
    while (index < keys.size() && keys[index].key != key)
      ++index;
    if (index == keys.size()) {
      error = "unknown key '" + std::string(key) + "=' for " +
              std::string(stringify(*op));
      return false;
    }
    if (values[index]) {
      error = "duplicate key '" + std::string(key) + "='";
      return false;
    }
    int64_t v;
    if (!parseInt64(text, v)) {
      bool digits =
          !text.empty() && text.find_first_not_of("-0123456789") == text.npos;
      error = digits ? "dimension " + std::string(word) + " is out of range"
                     : "bad value '" + std::string(word) +
                           "' (expected an integer)";
      return false;
    }
    if (v < 0) {
      error = (std::string(key) == "pad" ? "negative padding "
                                         : "negative dimension ") +
              std::string(word);
      return false;
    }
    values[index] = v;
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (values[i])
      continue;
    if (keys[i].required) {
      error = "missing " + std::string(keys[i].key) + "=";
      return false;
    }
    values[i] = keys[i].defaultValue;
  }

  Workload w;
  w.op = *op;
  w.elem = *elem;
  if (*op == OpKind::Matmul) {
    w.gemm = {1, *values[0], *values[1], *values[2]};
  } else if (*op == OpKind::BatchMatmul) {
    w.gemm = {*values[0], *values[1], *values[2], *values[3]};
  } else {
    ConvParams p;
    p.n = *values[0], p.h = *values[1], p.w = *values[2], p.c = *values[3];
    p.f = *values[4], p.r = *values[5], p.s = *values[6];
    p.stride = *values[7], p.pad = *values[8];
    if (std::string err = convError(p); !err.empty()) {
      error = err;
      return false;
    }
    p.outH = p.h == 0 ? 0 : (p.h + 2 * p.pad - p.r) / p.stride + 1;
    p.outW = p.w == 0 ? 0 : (p.w + 2 * p.pad - p.s) / p.stride + 1;
    int64_t m = boundedProduct({p.n, p.outH, p.outW});
    int64_t k = boundedProduct({p.c, p.r, p.s});
    if (m < 0 || k < 0) {
      error = "implicit GEMM dimension exceeds 2^62";
      return false;
    }
    w.gemm = {1, m, p.f, k};
    w.conv = p;
  }
  if (std::string err = checkGemmShape(w.gemm); !err.empty()) {
    error = err;
    return false;
  }
  out = std::move(w);
  return true;
}

bool parseWorkloads(std::string_view text, std::vector<Workload> &out,
                    std::string &error) {
  std::vector<Workload> result;
  int lineNo = 0;
  std::string_view line;
  while (nextContentLine(text, line, lineNo)) {
    Workload w;
    std::string reason;
    if (!parseWorkload(line, w, reason)) {
      error = "line " + std::to_string(lineNo) + ": " + reason;
      return false;
    }
    result.push_back(std::move(w));
  }
  out = std::move(result);
  return true;
}

bool parseWorkloadFile(const std::string &path, std::vector<Workload> &out,
                       std::string &error) {
  std::string text;
  if (!readFile(path, text)) {
    error = path + ": cannot open for reading";
    return false;
  }
  if (!parseWorkloads(text, out, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

} // namespace quilt
