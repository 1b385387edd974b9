//===- MatrixLayoutTest.cpp - MFMA/WMMA layouts against AMD's tables ------===//
//
// Part of the Quilt project.
//
// MatrixLayouts/ holds, per matrix instruction Quilt's AMD kernels use, the
// register layout of A, B and D as AMD's matrix instruction calculator
// prints it (the command is at the top of each file). Each test places
// random small integers (exact in f16, bf16 and f32) into the registers the
// table names, runs the emulator's instruction, and reads every element of
// D back from where the table says it is: any lane, register or half the
// emulator puts elsewhere changes the product.
//
//===----------------------------------------------------------------------===//

#include "TestWave.h"

#include "VectorAlu.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>

using namespace quilt::amdgcn;

namespace {

/// One register slot: lane, register, and half (-1: the whole register).
struct Slot {
  unsigned lane, reg;
  int half;
};

/// matrix letter -> (row, column) -> slots holding that element.
using Layout = std::map<char, std::map<std::pair<unsigned, unsigned>,
                                       std::vector<Slot>>>;

Layout readLayout(const std::string &path) {
  std::ifstream in(path);
  Layout layout;
  std::vector<std::pair<unsigned, int>> columns; // register, half
  std::string line;
  std::regex headerCell(R"(v(\d+)(?:\.\[(\d+):\d+\])?)");
  std::regex entry(R"(([ABD])\[(\d+)\]\[(\d+)\])");
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::stringstream cells(line);
    std::string cell;
    std::getline(cells, cell, ',');
    if (cell == "lane") {
      columns.clear();
      while (std::getline(cells, cell, ',')) {
        std::smatch m;
        EXPECT_TRUE(std::regex_match(cell, m, headerCell)) << cell;
        columns.push_back({unsigned(std::stoi(m[1])),
                           m[2].matched ? std::stoi(m[2]) / 16 : -1});
      }
      continue;
    }
    unsigned lane = std::stoi(cell);
    for (size_t c = 0; std::getline(cells, cell, ','); ++c) {
      std::smatch m;
      EXPECT_TRUE(std::regex_match(cell, m, entry)) << cell;
      layout[m[1].str()[0]][{unsigned(std::stoi(m[2])), unsigned(std::stoi(m[3]))}]
          .push_back({lane, columns.at(c).first, columns.at(c).second});
    }
  }
  return layout;
}

std::pair<unsigned, unsigned> extent(const std::map<std::pair<unsigned, unsigned>,
                                                   std::vector<Slot>> &m) {
  unsigned rows = 0, cols = 0;
  for (auto &[rc, slots] : m) {
    rows = std::max(rows, rc.first + 1);
    cols = std::max(cols, rc.second + 1);
  }
  return {rows, cols};
}

unsigned registersOf(const std::map<std::pair<unsigned, unsigned>,
                                    std::vector<Slot>> &m) {
  unsigned regs = 0;
  for (auto &[rc, slots] : m)
    for (const Slot &s : slots)
      regs = std::max(regs, s.reg + 1);
  return regs;
}

class MatrixLayout : public ::testing::TestWithParam<std::string> {};

TEST_P(MatrixLayout, ProductLandsWhereAmdsTableSays) {
  std::string file = GetParam();
  std::string mnemonic = file.substr(file.find('-') + 1);
  mnemonic = mnemonic.substr(0, mnemonic.size() - 4);
  bool rdna = file.rfind("RDNA", 0) == 0;
  bool bf16 = mnemonic.find("bf16") != std::string::npos;
  Layout layout = readLayout(std::string(QUILT_MATRIX_LAYOUTS_DIR) + "/" + file);
  auto [m, k] = extent(layout['A']);
  auto [k2, n] = extent(layout['B']);
  auto [m2, n2] = extent(layout['D']);
  ASSERT_EQ(k, k2);
  ASSERT_EQ(m, m2);
  ASSERT_EQ(n, n2);

  std::mt19937 rng(42);
  std::uniform_int_distribution<int> small(-3, 3);
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (float &x : a) x = small(rng);
  for (float &x : b) x = small(rng);
  for (float &x : c) x = small(rng);

  TestWave t(rdna ? 32 : 64);
  const unsigned aBase = 0, bBase = 16, cBase = 32, dBase = 64;
  auto encode16 = [&](float x) -> uint32_t {
    return bf16 ? bitsF32(x) >> 16 : f32ToF16(x);
  };
  auto place = [&](char matrix, unsigned base, const std::vector<float> &values,
                   unsigned cols) {
    for (auto &[rc, slots] : layout[matrix])
      for (const Slot &s : slots) {
        float x = values[rc.first * cols + rc.second];
        uint32_t &reg = t.v(base + s.reg, s.lane);
        if (s.half < 0) {
          reg = bitsF32(x);
        } else {
          uint32_t bits = matrix == 'D' ? f32ToF16(x) : encode16(x);
          reg = s.half ? (reg & 0xffffu) | (bits << 16)
                       : (reg & 0xffff0000u) | bits;
        }
      }
  };
  place('A', aBase, a, k);
  place('B', bBase, b, n);
  place('D', cBase, c, n); // C has D's layout
  auto range = [](unsigned base, unsigned count) {
    return "v[" + std::to_string(base) + ":" + std::to_string(base + count - 1) + "]";
  };
  std::string text = mnemonic + " " + range(dBase, registersOf(layout['D'])) +
                     ", " + range(aBase, registersOf(layout['A'])) + ", " +
                     range(bBase, registersOf(layout['B'])) + ", " +
                     range(cBase, registersOf(layout['D']));
  t.run(text);
  ASSERT_FALSE(t.dispatch.failed) << t.dispatch.failure.report;

  unsigned checked = 0;
  for (auto &[rc, slots] : layout['D']) {
    double expected = c[rc.first * n + rc.second];
    for (unsigned i = 0; i < k; ++i)
      expected += double(a[rc.first * k + i]) * b[i * n + rc.second];
    for (const Slot &s : slots) {
      uint32_t reg = t.v(dBase + s.reg, s.lane);
      float got = s.half < 0 ? asF32(reg)
                             : f16ToF32(uint16_t(s.half ? reg >> 16 : reg));
      EXPECT_EQ(got, float(expected))
          << text << ": D[" << rc.first << "][" << rc.second << "] at lane "
          << s.lane << " v" << s.reg;
      ++checked;
    }
  }
  EXPECT_EQ(checked, m * n);
}

std::vector<std::string> layoutFiles() {
  std::vector<std::string> files;
  for (auto &entry : std::filesystem::directory_iterator(QUILT_MATRIX_LAYOUTS_DIR))
    if (entry.path().extension() == ".csv")
      files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

INSTANTIATE_TEST_SUITE_P(
    AmdTables, MatrixLayout, ::testing::ValuesIn(layoutFiles()),
    [](const ::testing::TestParamInfo<std::string> &info) {
      std::string name = info.param.substr(0, info.param.size() - 4);
      for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
          c = '_';
      return name;
    });

} // namespace
