//===- EmulatorDriverTest.cpp - PTX kernels through the driver API --------===//
//
// Part of the Quilt project.
//
// End-to-end tests of libquilt_cuda_emulator.so: every test hands a small
// hand-written PTX kernel to the CUDA driver API the library exports
// (cuModuleLoadData, cuLaunchKernel, ...), then checks either the values the
// kernel computed or, for the checkers, the CUresult of the launch and the
// report cuGetErrorString appends:
//
//   "<description> (Quilt PTX emulator: <kind> in <kernel> at PTX line <n>,
//    CTA (x,y,z) thread (x,y,z): <detail>)"
//
// PTX line numbers count from the start of the kernel's text, as the
// emulator does (line 1 is the empty rest of the line that opens the raw
// string, so `.version` is line 2): the lines a test needs are marked with a
// `// @name` comment and located with lineOf().
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// cuGetErrorString of `r`: the driver's description plus, for the last
/// error of this thread, the emulator's report.
std::string errorString(CUresult r) {
  const char *text = nullptr;
  if (cuGetErrorString(r, &text) != CUDA_SUCCESS || !text)
    return "<no error string>";
  return text;
}

/// The 1-based line of `ptx` that contains `marker` (which must occur on
/// exactly one line).
int lineOf(const std::string &ptx, const std::string &marker) {
  int line = 1, found = 0, count = 0;
  size_t start = 0;
  while (start <= ptx.size()) {
    size_t end = ptx.find('\n', start);
    if (end == std::string::npos)
      end = ptx.size();
    if (ptx.substr(start, end - start).find(marker) != std::string::npos) {
      found = line;
      ++count;
    }
    start = end + 1;
    ++line;
  }
  EXPECT_EQ(count, 1) << "marker " << marker;
  return found;
}

/// "<kind> in <kernel> at PTX line <n>, CTA (..) thread (..): ".
std::string where(const std::string &kind, const std::string &kernel, int line,
                  const std::string &cta, const std::string &thread) {
  return kind + " in " + kernel + " at PTX line " + std::to_string(line) +
         ", CTA " + cta + " thread " + thread + ": ";
}

/// Expects `r` to be `want` and its error string to carry the emulator's
/// report with every one of `parts`.
void expectReport(CUresult r, CUresult want,
                  const std::vector<std::string> &parts) {
  ASSERT_EQ(r, want) << errorString(r);
  std::string text = errorString(r);
  EXPECT_NE(text.find("(Quilt PTX emulator: "), std::string::npos) << text;
  for (const std::string &part : parts)
    EXPECT_NE(text.find(part), std::string::npos)
        << "missing \"" << part << "\" in\n  " << text;
}

/// A grid or block shape, as cuLaunchKernel takes it.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  Dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

class Emulator : public ::testing::Test {
protected:
  static void SetUpTestSuite() { ASSERT_EQ(cuInit(0), CUDA_SUCCESS); }

  void TearDown() override {
    for (CUdeviceptr p : allocations_)
      EXPECT_EQ(cuMemFree(p), CUDA_SUCCESS);
    for (CUmodule m : modules_)
      EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
  }

  /// Loads `ptx` and returns its kernel `name` (null after a failure).
  CUfunction kernel(const std::string &ptx, const char *name) {
    CUmodule module = nullptr;
    CUresult r = cuModuleLoadData(&module, ptx.c_str());
    EXPECT_EQ(r, CUDA_SUCCESS) << errorString(r);
    if (r != CUDA_SUCCESS)
      return nullptr;
    modules_.push_back(module);
    CUfunction f = nullptr;
    r = cuModuleGetFunction(&f, module, name);
    EXPECT_EQ(r, CUDA_SUCCESS) << errorString(r);
    return f;
  }

  CUdeviceptr alloc(size_t bytes) {
    CUdeviceptr p = 0;
    CUresult r = cuMemAlloc(&p, bytes);
    EXPECT_EQ(r, CUDA_SUCCESS) << errorString(r);
    allocations_.push_back(p);
    return p;
  }

  template <typename T> CUdeviceptr upload(const std::vector<T> &host) {
    CUdeviceptr p = alloc(host.size() * sizeof(T));
    EXPECT_EQ(cuMemcpyHtoD(p, host.data(), host.size() * sizeof(T)),
              CUDA_SUCCESS);
    return p;
  }

  template <typename T> std::vector<T> download(CUdeviceptr p, size_t n) {
    std::vector<T> host(n);
    EXPECT_EQ(cuMemcpyDtoH(host.data(), p, n * sizeof(T)), CUDA_SUCCESS);
    return host;
  }

  static CUresult launch(CUfunction f, Dim3 grid, Dim3 block,
                         std::vector<void *> params,
                         unsigned sharedBytes = 0) {
    if (!f)
      return CUDA_ERROR_INVALID_HANDLE;
    return cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y,
                          block.z, sharedBytes, nullptr,
                          params.empty() ? nullptr : params.data(), nullptr);
  }

  std::vector<CUdeviceptr> allocations_;
  std::vector<CUmodule> modules_;
};

float bitsToFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

uint32_t floatToBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

/// f16 bits of a small integer value (|v| <= 2048: exact).
uint16_t halfOfInt(int v) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned a = unsigned(std::abs(v));
  int e = 31 - __builtin_clz(a);
  uint16_t mantissa = uint16_t(((a << 10) >> e) & 0x3ff);
  return uint16_t(sign | uint16_t((e + 15) << 10) | mantissa);
}

//===----------------------------------------------------------------------===//
// 1. Positive execution
//===----------------------------------------------------------------------===//

// Proves integer, float and conversion semantics per thread, divergence with
// reconvergence (activemask after the join), vote.ballot and a shfl.bfly
// reduction. 24 result words per thread.
const char *const kArithPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry arith(.param .u64 out_param)
{
  .reg .pred %p<4>;
  .reg .b16 %h<2>;
  .reg .b32 %r<40>;
  .reg .f32 %f<16>;
  .reg .b64 %rd<8>;

  ld.param.u64 %rd1, [out_param];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;                    // i
  mul.wide.u32 %rd2, %r1, 96;             // 24 words per thread
  add.s64 %rd3, %rd1, %rd2;

  add.u32 %r2, %r1, 7;                    // [0] i + 7
  st.global.u32 [%rd3+0], %r2;
  mul.lo.u32 %r3, %r1, 3;                 // [1] i * 3
  st.global.u32 [%rd3+4], %r3;
  mad.lo.s32 %r4, %r1, %r1, 5;            // [2] i * i + 5
  st.global.u32 [%rd3+8], %r4;
  add.u32 %r5, %r1, 1;                    // [4..5] (i + 1) * 2^31, 64-bit
  mul.wide.u32 %rd4, %r5, 0x80000000;
  st.global.u64 [%rd3+16], %rd4;
  shl.b32 %r6, %r1, 3;                    // [6] i << 3
  st.global.u32 [%rd3+24], %r6;
  mul.lo.s32 %r7, %r5, -16;               // [7] (-(i + 1) * 16) >> 2, arithmetic
  shr.s32 %r7, %r7, 2;
  st.global.u32 [%rd3+28], %r7;
  and.b32 %r8, %r1, 3;                    // [8] 0xF0000000 >> (i & 3), logical
  mov.u32 %r9, 0xF0000000;
  shr.u32 %r9, %r9, %r8;
  st.global.u32 [%rd3+32], %r9;
  and.b32 %r10, %r1, 5;                   // [9] i & 5
  st.global.u32 [%rd3+36], %r10;
  or.b32 %r11, %r1, 8;                    // [10] i | 8
  st.global.u32 [%rd3+40], %r11;
  xor.b32 %r12, %r1, 255;                 // [11] i ^ 0xff
  st.global.u32 [%rd3+44], %r12;
  setp.lt.u32 %p1, %r1, 10;               // [12] i < 10 ? 100 : 200
  selp.u32 %r13, 100, 200, %p1;
  st.global.u32 [%rd3+48], %r13;
  sub.s32 %r14, %r1, 16;                  // [13] min(i - 16, 0), signed
  min.s32 %r14, %r14, 0;
  st.global.u32 [%rd3+52], %r14;
  max.u32 %r15, %r1, 20;                  // [14] max(i, 20)
  st.global.u32 [%rd3+56], %r15;

  cvt.rn.f32.u32 %f1, %r1;                // fi = i
  fma.rn.f32 %f2, %f1, 0f39800000, 0f3F800000;  // 1 + i * 2^-12
  cvt.rn.f16.f32 %h1, %f2;                // [15] through f16 and back
  cvt.f32.f16 %f3, %h1;
  st.global.f32 [%rd3+60], %f3;
  neg.f32 %f4, %f1;                       // [16] rzi(-(i + 0.75)) = -i
  add.f32 %f4, %f4, 0fBF400000;
  cvt.rzi.s32.f32 %r16, %f4;
  st.global.u32 [%rd3+64], %r16;
  fma.rn.f32 %f5, %f1, 0f3F000000, 0f3E800000;  // [17] i * 0.5 + 0.25
  st.global.f32 [%rd3+68], %f5;
  div.rn.f32 %f6, %f1, 0f40400000;        // [18] i / 3
  st.global.f32 [%rd3+72], %f6;
  mul.f32 %f7, %f1, 0f3E000000;           // [19] 2^(i / 8)
  ex2.approx.f32 %f8, %f7;
  st.global.f32 [%rd3+76], %f8;

  and.b32 %r20, %r1, 1;                   // [20] odd: 1000 + i, even: 2000 + i
  setp.eq.u32 %p2, %r20, 0;
  @%p2 bra EVEN;
  add.u32 %r21, %r1, 1000;
  bra.uni JOIN;
EVEN:
  add.u32 %r21, %r1, 2000;
JOIN:
  st.global.u32 [%rd3+80], %r21;
  activemask.b32 %r22;                    // [21] the whole warp again
  st.global.u32 [%rd3+84], %r22;
  vote.sync.ballot.b32 %r23, %p2, -1;     // [22] even lanes
  st.global.u32 [%rd3+88], %r23;
  mov.u32 %r24, %r1;                      // [23] warp sum of i
  shfl.sync.bfly.b32 %r25, %r24, 16, 31, -1;
  add.u32 %r24, %r24, %r25;
  shfl.sync.bfly.b32 %r25, %r24, 8, 31, -1;
  add.u32 %r24, %r24, %r25;
  shfl.sync.bfly.b32 %r25, %r24, 4, 31, -1;
  add.u32 %r24, %r24, %r25;
  shfl.sync.bfly.b32 %r25, %r24, 2, 31, -1;
  add.u32 %r24, %r24, %r25;
  shfl.sync.bfly.b32 %r25, %r24, 1, 31, -1;
  add.u32 %r24, %r24, %r25;
  st.global.u32 [%rd3+92], %r24;
  ret;
}
)";

TEST_F(Emulator, ScalarArithmeticDivergenceAndWarpOps) {
  CUfunction f = kernel(kArithPtx, "arith");
  const unsigned threads = 64;
  CUdeviceptr out = alloc(threads * 96);
  CUresult r = launch(f, {1}, {threads}, {&out});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  std::vector<uint32_t> w = download<uint32_t>(out, threads * 24);
  for (unsigned i = 0; i < threads; ++i) {
    const uint32_t *o = &w[i * 24];
    SCOPED_TRACE("thread " + std::to_string(i));
    EXPECT_EQ(o[0], i + 7);
    EXPECT_EQ(o[1], i * 3);
    EXPECT_EQ(o[2], i * i + 5);
    uint64_t wide = uint64_t(o[4]) | uint64_t(o[5]) << 32;
    EXPECT_EQ(wide, uint64_t(i + 1) * 0x80000000ull);
    EXPECT_EQ(o[6], i << 3);
    EXPECT_EQ(int32_t(o[7]), -int32_t(i + 1) * 4);
    EXPECT_EQ(o[8], 0xF0000000u >> (i & 3));
    EXPECT_EQ(o[9], i & 5);
    EXPECT_EQ(o[10], i | 8);
    EXPECT_EQ(o[11], i ^ 0xffu);
    EXPECT_EQ(o[12], i < 10 ? 100u : 200u);
    EXPECT_EQ(int32_t(o[13]), std::min(int32_t(i) - 16, 0));
    EXPECT_EQ(o[14], std::max(i, 20u));
    // f16 has 10 fraction bits in [1, 2): i * 2^-12 rounds to a multiple of
    // 2^-10, ties to even (i = 2 gives 1.0, i = 6 gives 1 + 2^-9).
    float half = 1.0f + float(std::nearbyint(double(i) / 4.0)) / 1024.0f;
    EXPECT_EQ(bitsToFloat(o[15]), half);
    EXPECT_EQ(int32_t(o[16]), -int32_t(i));
    EXPECT_EQ(bitsToFloat(o[17]), float(i) * 0.5f + 0.25f);
    EXPECT_EQ(o[18], floatToBits(float(i) / 3.0f)); // IEEE division, exact
    float ex2 = std::exp2(float(i) / 8.0f);
    EXPECT_NEAR(bitsToFloat(o[19]), ex2, ex2 * 1e-6f);
    EXPECT_EQ(o[20], (i % 2 ? 1000u : 2000u) + i);
    EXPECT_EQ(o[21], 0xffffffffu) << "lanes did not reconverge at JOIN";
    EXPECT_EQ(o[22], 0x55555555u);
    unsigned base = i / 32 * 32;
    EXPECT_EQ(o[23], 32 * base + 496u); // sum of the warp's 32 ids
  }
}

// Proves floating-point literals take the instruction's type. PTX ISA 4.5.1:
// floating-point constants (decimal, or 0d hex) are 64-bit doubles, and
// "each 64-bit floating-point constant is converted to the appropriate
// floating-point size based on the data or instruction type at its use";
// only 0f hex literals are exact single-precision bits.
//
const char *const kFloatLiteralsPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry float_literals(.param .u64 out_param)
{
  .reg .f32 %f<4>;
  .reg .b64 %rd<2>;

  ld.param.u64 %rd1, [out_param];
  add.f32 %f1, 0f3F800000, 1.5;           // 1.0 + 1.5
  mov.f32 %f2, 2.5;
  mov.f32 %f3, 0d4004000000000000;        // 2.5 as a double
  st.global.v4.f32 [%rd1], {%f1, %f2, %f3, 0f00000000};
  ret;
}
)";

TEST_F(Emulator, FloatLiteralsConvertToInstructionType) {
  CUfunction f = kernel(kFloatLiteralsPtx, "float_literals");
  CUdeviceptr out = alloc(16);
  CUresult r = launch(f, {1}, {1}, {&out});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  std::vector<float> v = download<float>(out, 4);
  EXPECT_EQ(v[0], 2.5f);
  EXPECT_EQ(v[1], 2.5f);
  EXPECT_EQ(v[2], 2.5f);
}

// Proves bar.sync orders shared-memory traffic between warps: each thread
// writes its slot, and after the barrier reads the slot of the thread 32
// away (in the other warp); the race checker must stay silent.
const char *const kExchangePtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 4 .b32 sbuf[64];

.visible .entry exchange(.param .u64 out_param)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;

  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sbuf;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  mad.lo.u32 %r5, %r1, %r1, 1;            // sbuf[t] = t * t + 1
  st.shared.u32 [%r4], %r5;
  bar.sync 0;
  add.u32 %r6, %r1, 32;                   // read sbuf[(t + 32) % 64]
  and.b32 %r6, %r6, 63;
  shl.b32 %r7, %r6, 2;
  add.u32 %r8, %r2, %r7;
  ld.shared.u32 %r9, [%r8];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
  ret;
}
)";

TEST_F(Emulator, BarSyncExchangeBetweenWarps) {
  CUfunction f = kernel(kExchangePtx, "exchange");
  CUdeviceptr out = alloc(64 * 4);
  CUresult r = launch(f, {1}, {64}, {&out});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  std::vector<uint32_t> v = download<uint32_t>(out, 64);
  for (uint32_t t = 0; t < 64; ++t) {
    uint32_t s = (t + 32) % 64;
    EXPECT_EQ(v[t], s * s + 1) << t;
  }
}

// Proves 16-byte vector loads and stores: each thread reverses one uint4.
const char *const kVectorPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry reverse4(.param .u64 in_param, .param .u64 out_param)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;

  ld.param.u64 %rd1, [in_param];
  ld.param.u64 %rd2, [out_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
  st.global.v4.u32 [%rd5], {%r5, %r4, %r3, %r2};
  ret;
}
)";

TEST_F(Emulator, VectorLoadStore) {
  CUfunction f = kernel(kVectorPtx, "reverse4");
  std::vector<uint32_t> in(32);
  std::iota(in.begin(), in.end(), 0x1000u);
  CUdeviceptr dIn = upload(in), dOut = alloc(32 * 4);
  CUresult r = launch(f, {1}, {8}, {&dIn, &dOut});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  std::vector<uint32_t> out = download<uint32_t>(dOut, 32);
  for (unsigned t = 0; t < 8; ++t)
    for (unsigned j = 0; j < 4; ++j)
      EXPECT_EQ(out[4 * t + j], in[4 * t + 3 - j]) << t << "," << j;
}

// Proves atom.global.add returns distinct old values across warps and CTAs:
// 256 threads in 2 CTAs each take a ticket.
const char *const kAtomPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry tickets(.param .u64 counter_param, .param .u64 seen_param)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;

  ld.param.u64 %rd1, [counter_param];
  ld.param.u64 %rd2, [seen_param];
  atom.global.add.u32 %r1, [%rd1], 1;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.u32 %r5, %r2, %r3, %r4;          // global thread id
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r1;
  ret;
}
)";

TEST_F(Emulator, AtomicCounterAcrossCtas) {
  CUfunction f = kernel(kAtomPtx, "tickets");
  CUdeviceptr counter = upload(std::vector<uint32_t>{0});
  CUdeviceptr seen = alloc(256 * 4);
  CUresult r = launch(f, {2}, {128}, {&counter, &seen});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  EXPECT_EQ(download<uint32_t>(counter, 1)[0], 256u);
  std::vector<uint32_t> tickets = download<uint32_t>(seen, 256);
  std::sort(tickets.begin(), tickets.end());
  for (uint32_t i = 0; i < 256; ++i)
    EXPECT_EQ(tickets[i], i);
}

// Proves %ctaid, %tid, %ntid and %nctaid over a 2-D grid of 2-D blocks.
const char *const kGridPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry ids2d(.param .u64 out_param)
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;

  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ctaid.y;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %tid.y;
  mov.u32 %r5, %ntid.x;
  mov.u32 %r6, %ntid.y;
  mov.u32 %r7, %nctaid.x;
  mov.u32 %r8, %nctaid.y;
  mad.lo.u32 %r9, %r2, %r7, %r1;          // linear CTA
  mad.lo.u32 %r10, %r9, %r6, %r4;         // linear row
  mad.lo.u32 %r11, %r10, %r5, %r3;        // linear thread
  shl.b32 %r12, %r2, 8;                   // ctaid.x | ctaid.y << 8 |
  or.b32 %r12, %r12, %r1;                 // tid.x << 16 | tid.y << 24
  shl.b32 %r13, %r3, 16;
  or.b32 %r12, %r12, %r13;
  shl.b32 %r13, %r4, 24;
  or.b32 %r12, %r12, %r13;
  shl.b32 %r14, %r6, 8;                   // ntid.x | ntid.y << 8 |
  or.b32 %r14, %r14, %r5;                 // nctaid.x << 16 | nctaid.y << 24
  shl.b32 %r13, %r7, 16;
  or.b32 %r14, %r14, %r13;
  shl.b32 %r13, %r8, 24;
  or.b32 %r14, %r14, %r13;
  mul.wide.u32 %rd2, %r11, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r12, %r14};
  ret;
}
)";

TEST_F(Emulator, TwoDimensionalGridIds) {
  CUfunction f = kernel(kGridPtx, "ids2d");
  const unsigned gx = 3, gy = 2, bx = 4, by = 2;
  const unsigned n = gx * gy * bx * by;
  CUdeviceptr out = alloc(n * 8);
  CUresult r = launch(f, {gx, gy}, {bx, by}, {&out});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  std::vector<uint32_t> v = download<uint32_t>(out, 2 * n);
  for (unsigned cy = 0; cy < gy; ++cy)
    for (unsigned cx = 0; cx < gx; ++cx)
      for (unsigned ty = 0; ty < by; ++ty)
        for (unsigned tx = 0; tx < bx; ++tx) {
          unsigned i = ((cy * gx + cx) * by + ty) * bx + tx;
          EXPECT_EQ(v[2 * i], cx | cy << 8 | tx << 16 | ty << 24) << i;
          EXPECT_EQ(v[2 * i + 1], bx | by << 8 | gx << 16 | gy << 24) << i;
        }
}

//===----------------------------------------------------------------------===//
// 2. cp.async
//===----------------------------------------------------------------------===//

// Proves the cp.async pipeline: 64 threads each copy 16 bytes into shared
// memory (commit, wait_group 0, bar.sync), then each reads the chunk the
// thread 32 away copied, i.e. another warp's copy.
const char *const kCpAsyncPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 16 .b8 stage[1024];

.visible .entry pipeline(.param .u64 in_param, .param .u64 out_param)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;

  ld.param.u64 %rd1, [in_param];
  ld.param.u64 %rd2, [out_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, stage;
  shl.b32 %r3, %r1, 4;
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.cg.shared.global [%r4], [%rd4], 16;
  cp.async.commit_group;
  cp.async.wait_group 0;
  bar.sync 0;
  add.u32 %r5, %r1, 32;
  and.b32 %r5, %r5, 63;
  shl.b32 %r6, %r5, 4;
  add.u32 %r7, %r2, %r6;
  ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%r7];
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.u32 [%rd5], {%r8, %r9, %r10, %r11};
  ret;
}
)";

TEST_F(Emulator, CpAsyncPipeline) {
  CUfunction f = kernel(kCpAsyncPtx, "pipeline");
  std::vector<uint32_t> in(256);
  for (uint32_t i = 0; i < 256; ++i)
    in[i] = 0xC0DE0000u + i;
  CUdeviceptr dIn = upload(in), dOut = alloc(256 * 4);
  CUresult r = launch(f, {1}, {64}, {&dIn, &dOut});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  std::vector<uint32_t> out = download<uint32_t>(dOut, 256);
  for (uint32_t t = 0; t < 64; ++t)
    for (uint32_t j = 0; j < 4; ++j)
      EXPECT_EQ(out[4 * t + j], in[4 * ((t + 32) % 64) + j]) << t;
}

// Proves src-size: thread t first fills its 16 shared bytes with 0xff, then
// copies 16 bytes of which only src-size[t] come from global memory; the
// rest must be zero-filled (PTX ISA, cp.async: "the remaining ... bytes are
// filled with zeros").
const char *const kCpAsyncZfillPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 16 .b8 stage[64];

.visible .entry zfill(.param .u64 in_param, .param .u64 sizes_param,
                      .param .u64 out_param)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<10>;

  ld.param.u64 %rd1, [in_param];
  ld.param.u64 %rd2, [sizes_param];
  ld.param.u64 %rd3, [out_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.u32 %r2, [%rd5];              // src-size of this thread
  mov.u32 %r3, stage;
  shl.b32 %r4, %r1, 4;
  add.u32 %r5, %r3, %r4;
  st.shared.v4.u32 [%r5], {-1, -1, -1, -1};
  mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd1, %rd6;
  cp.async.ca.shared.global [%r5], [%rd7], 16, %r2;
  cp.async.commit_group;
  cp.async.wait_group 0;
  ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r5];
  add.s64 %rd8, %rd3, %rd6;
  st.global.v4.u32 [%rd8], {%r6, %r7, %r8, %r9};
  ret;
}
)";

TEST_F(Emulator, CpAsyncSourceSizeZeroFills) {
  CUfunction f = kernel(kCpAsyncZfillPtx, "zfill");
  std::vector<uint8_t> in(64);
  for (int i = 0; i < 64; ++i)
    in[i] = uint8_t(0x40 + i);
  const std::vector<uint32_t> sizes = {16, 0, 4, 12};
  CUdeviceptr dIn = upload(in), dSizes = upload(sizes), dOut = alloc(64);
  CUresult r = launch(f, {1}, {4}, {&dIn, &dSizes, &dOut});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  std::vector<uint8_t> out = download<uint8_t>(dOut, 64);
  for (unsigned t = 0; t < 4; ++t)
    for (unsigned b = 0; b < 16; ++b)
      EXPECT_EQ(out[16 * t + b], b < sizes[t] ? in[16 * t + b] : 0)
          << "thread " << t << " byte " << b;
}

//===----------------------------------------------------------------------===//
// 3. mma.sync through ldmatrix
//===----------------------------------------------------------------------===//

// Proves ldmatrix.x4 (A, row-major 16x16), ldmatrix.x2.trans (B stored
// row-major 16x8, i.e. K x N, transposed into the "col" fragment) and
// mma.sync.m16n8k16.row.col.f32.f16.f16.f32 against a CPU matmul.
// Lane l gives ldmatrix row addresses: A + (l % 16) * 32 + (l / 16) * 16 and
// B + (l % 16) * 16. D fragment: c0,c1 at (l/4, 2(l%4)+{0,1}), c2,c3 eight
// rows below.
const char *const kMmaPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 16 .b8 sA[512];
.shared .align 16 .b8 sB[256];

.visible .entry mma16816(.param .u64 a_param, .param .u64 b_param,
                         .param .u64 d_param, .param .u32 half_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<40>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<12>;

  ld.param.u64 %rd1, [a_param];
  ld.param.u64 %rd2, [b_param];
  ld.param.u64 %rd3, [d_param];
  ld.param.u32 %r30, [half_param];
  mov.u32 %r1, %laneid;
  // Stage A (16 bytes per lane) and B (8 bytes per lane) in shared memory.
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5];
  mov.u32 %r6, sA;
  shl.b32 %r7, %r1, 4;
  add.u32 %r8, %r6, %r7;
  st.shared.v4.u32 [%r8], {%r2, %r3, %r4, %r5};
  mul.wide.u32 %rd6, %r1, 8;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.v2.u32 {%r2, %r3}, [%rd7];
  mov.u32 %r9, sB;
  shl.b32 %r10, %r1, 3;
  add.u32 %r11, %r9, %r10;
  st.shared.v2.u32 [%r11], {%r2, %r3};
  bar.sync 0;
  // ldmatrix row addresses.
  and.b32 %r12, %r1, 15;
  shr.u32 %r13, %r1, 4;
  shl.b32 %r14, %r12, 5;
  shl.b32 %r15, %r13, 4;
  add.u32 %r16, %r6, %r14;
  add.u32 %r16, %r16, %r15;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r20, %r21, %r22, %r23}, [%r16];
  shl.b32 %r17, %r12, 4;
  add.u32 %r18, %r9, %r17;
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r24, %r25}, [%r18];
  mov.f32 %f0, 0f00000000;
  mov.f32 %f1, 0f00000000;
  mov.f32 %f2, 0f00000000;
  mov.f32 %f3, 0f00000000;
  // With half_param != 0 only lanes 0..15 execute the mma.
  setp.lt.u32 %p1, %r1, 16;
  setp.eq.or.u32 %p1, %r30, 0, %p1;
  @%p1 mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r20, %r21, %r22, %r23}, {%r24, %r25}, {%f0, %f1, %f2, %f3}; // @mma
  // Store D[row][col] (16 x 8 f32).
  shr.u32 %r26, %r1, 2;                   // row
  and.b32 %r27, %r1, 3;
  shl.b32 %r27, %r27, 1;                  // col
  shl.b32 %r28, %r26, 3;
  add.u32 %r28, %r28, %r27;               // row * 8 + col
  mul.wide.u32 %rd8, %r28, 4;
  add.s64 %rd9, %rd3, %rd8;
  st.global.v2.f32 [%rd9], {%f0, %f1};
  st.global.v2.f32 [%rd9+256], {%f2, %f3};  // eight rows below
  ret;
}
)";

class MmaTest : public Emulator {
protected:
  void SetUp() override {
    for (int i = 0; i < 16; ++i)
      for (int k = 0; k < 16; ++k)
        a[i][k] = (i * 3 + k * 5) % 9 - 4;
    for (int k = 0; k < 16; ++k)
      for (int j = 0; j < 8; ++j)
        b[k][j] = (k * 7 + j * 3) % 11 - 5;
    std::vector<uint16_t> ha, hb;
    for (int i = 0; i < 16; ++i)
      for (int k = 0; k < 16; ++k)
        ha.push_back(halfOfInt(a[i][k]));
    for (int k = 0; k < 16; ++k)
      for (int j = 0; j < 8; ++j)
        hb.push_back(halfOfInt(b[k][j]));
    dA = upload(ha);
    dB = upload(hb);
    dD = alloc(16 * 8 * 4);
  }
  int a[16][16], b[16][8];
  CUdeviceptr dA = 0, dB = 0, dD = 0;
};

TEST_F(MmaTest, LdmatrixMmaSyncMatchesCpuMatmul) {
  CUfunction f = kernel(kMmaPtx, "mma16816");
  uint32_t wholeWarp = 0;
  CUresult r = launch(f, {1}, {32}, {&dA, &dB, &dD, &wholeWarp});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  std::vector<float> d = download<float>(dD, 128);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      int sum = 0;
      for (int k = 0; k < 16; ++k)
        sum += a[i][k] * b[k][j];
      EXPECT_EQ(d[i * 8 + j], float(sum)) << "D[" << i << "][" << j << "]";
    }
}

//===----------------------------------------------------------------------===//
// 4. TMA + mbarrier
//===----------------------------------------------------------------------===//

// Proves a 2-D TMA tile load completing on an mbarrier: thread 0 initializes
// the mbarrier, arrives with expect_tx of the whole box (1024 bytes, out of
// bounds elements included) and issues the copy; every thread waits on
// phase parity 0, then copies 8 bytes of the raw (128B-swizzled) tile out.
// With wait_param == 0 the wait is skipped (the negative test 8).
const char *const kTmaPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 1024 .b8 tile[1024];
.shared .align 8 .b64 bar;

.visible .entry tma_tile(.param .u64 map_param, .param .u64 out_param,
                         .param .u32 c0_param, .param .u32 c1_param,
                         .param .u32 wait_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<10>;

  ld.param.u64 %rd1, [map_param];
  ld.param.u64 %rd2, [out_param];
  ld.param.u32 %r1, [c0_param];
  ld.param.u32 %r2, [c1_param];
  ld.param.u32 %r3, [wait_param];
  mov.u32 %r4, %tid.x;
  setp.eq.u32 %p1, %r4, 0;
  @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 1024;
  @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [tile], [%rd1, {%r1, %r2}], [bar];
  setp.eq.u32 %p3, %r3, 0;
  @%p3 bra READ;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra WAIT;
READ:
  mov.u32 %r5, tile;
  shl.b32 %r6, %r4, 3;
  add.u32 %r7, %r5, %r6;
  ld.shared.u64 %rd4, [%r7]; // @read
  mul.wide.u32 %rd5, %r4, 8;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u64 [%rd6], %rd4;
  ret;
}
)";

class TmaTest : public Emulator {
protected:
  static constexpr unsigned kCols = 100, kRows = 10, kPitch = 128; // elements
  void SetUp() override {
    std::vector<uint16_t> host(kPitch * kRows, 0xdead);
    for (unsigned r = 0; r < kRows; ++r)
      for (unsigned c = 0; c < kCols; ++c)
        host[r * kPitch + c] = uint16_t(r * 1000 + c + 1); // never 0
    tensor = upload(host);
    const cuuint64_t dims[2] = {kCols, kRows};
    const cuuint64_t strides[1] = {kPitch * 2};
    const cuuint32_t box[2] = {64, 8};
    const cuuint32_t elementStrides[2] = {1, 1};
    CUtensorMap map; // the type carries the alignment the API needs
    CUresult r = cuTensorMapEncodeTiled(
        &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
        reinterpret_cast<void *>(tensor), dims, strides, box, elementStrides,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
    static_assert(sizeof(CUtensorMap) == 128, "a tensor map is 128 bytes");
    hostMap = map;
    dMap = alloc(128);
    ASSERT_EQ(cuMemcpyHtoD(dMap, &map, 128), CUDA_SUCCESS);
    dOut = alloc(1024);
  }
  /// Expects the raw tile of the box at column 0, row 1 (wholly inside).
  void expectInteriorBox() {
    std::vector<uint16_t> raw = download<uint16_t>(dOut, 512);
    for (unsigned row = 0; row < 8; ++row)
      for (unsigned col = 0; col < 64; ++col) {
        unsigned byte = col * 2;
        unsigned physical =
            row * 128 + ((byte / 16) ^ (row % 8)) * 16 + byte % 16;
        EXPECT_EQ(raw[physical / 2], uint16_t((row + 1) * 1000 + col + 1))
            << row << "," << col;
      }
  }
  CUtensorMap hostMap;
  CUdeviceptr tensor = 0, dMap = 0, dOut = 0;
};

/// kTmaPtx with the map passed by value, as CUDA passes a `const
/// __grid_constant__ CUtensorMap` (and Quilt's TMA kernels do): a 128-byte
/// parameter whose generic address (cvta.param) the copy reads, prefetched
/// in both address forms.
std::string gridConstantTmaPtx() {
  std::string ptx = kTmaPtx;
  auto replace = [&](const std::string &from, const std::string &to) {
    size_t at = ptx.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    ptx.replace(at, from.size(), to);
  };
  replace(".param .u64 map_param,", ".param .align 64 .b8 map_param[128],");
  replace("ld.param.u64 %rd1, [map_param];",
          "mov.b64 %rd9, map_param;\n"
          "  cvta.param.u64 %rd1, %rd9;\n"
          "  prefetch.param.tensormap [map_param];\n"
          "  prefetch.tensormap [%rd1];");
  return ptx;
}

TEST_F(TmaTest, TiledLoadWithSwizzleAndOutOfBoundsFill) {
  CUfunction f = kernel(kTmaPtx, "tma_tile");
  // Box (64 x 8) at column 64, row 8: columns 100..127 and rows 10..15 lie
  // outside the 100 x 10 tensor and read as zero.
  uint32_t c0 = 64, c1 = 8, wait = 1;
  CUresult r = launch(f, {1}, {128}, {&dMap, &dOut, &c0, &c1, &wait});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  std::vector<uint16_t> raw = download<uint16_t>(dOut, 512);
  unsigned inBounds = 0;
  for (unsigned row = 0; row < 8; ++row)
    for (unsigned col = 0; col < 64; ++col) {
      // 128B swizzle: 16-byte chunk c of 128-byte row r is stored at
      // chunk c ^ (r % 8).
      unsigned byte = col * 2;
      unsigned physical = row * 128 + ((byte / 16) ^ (row % 8)) * 16 + byte % 16;
      unsigned gr = c1 + row, gc = c0 + col;
      uint16_t expected =
          gr < kRows && gc < kCols ? uint16_t(gr * 1000 + gc + 1) : 0;
      inBounds += expected != 0;
      EXPECT_EQ(raw[physical / 2], expected)
          << "box row " << row << " col " << col;
    }
  EXPECT_EQ(inBounds, 2u * 36u); // rows 8, 9 x columns 64..99
}

TEST_F(TmaTest, TiledLoadInteriorBox) {
  CUfunction f = kernel(kTmaPtx, "tma_tile");
  uint32_t c0 = 0, c1 = 1, wait = 1; // wholly inside
  CUresult r = launch(f, {1}, {128}, {&dMap, &dOut, &c0, &c1, &wait});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  expectInteriorBox();
}

TEST_F(TmaTest, TiledLoadFromAGridConstantMap) {
  CUfunction f = kernel(gridConstantTmaPtx(), "tma_tile");
  uint32_t c0 = 0, c1 = 1, wait = 1;
  // The launch copies the host's 128 bytes into the kernel's parameters.
  CUresult r = launch(f, {1}, {128}, {&hostMap, &dOut, &c0, &c1, &wait});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  expectInteriorBox();
}

// Proves kernel parameters are read-only through their generic address too.
const char *const kParamStorePtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry param_store(.param .align 64 .b8 map_param[128])
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;

  mov.b64 %rd1, map_param;
  cvta.param.u64 %rd2, %rd1;
  ld.u32 %r1, [%rd2];
  st.u32 [%rd2], %r1; // @store
  ret;
}
)";

TEST_F(Emulator, GenericStoreToAKernelParameter) {
  CUfunction f = kernel(kParamStorePtx, "param_store");
  alignas(64) unsigned char map[128] = {};
  CUresult r = launch(f, {1}, {1}, {map});
  expectReport(r, CUDA_ERROR_ILLEGAL_ADDRESS,
               {where("invalid parameter store", "param_store",
                      lineOf(kParamStorePtx, "@store"), "(0,0,0)", "(0,0,0)"),
                "kernel parameters are read-only"});
}

//===----------------------------------------------------------------------===//
// 5. memcheck: bounds and alignment
//===----------------------------------------------------------------------===//

// Proves global loads are bounds-checked: each thread reads in[tid] from a
// 32-float allocation; thread 32 reads 4 bytes past the end.
const char *const kOobLoadPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry oob_load(.param .u64 in_param, .param .u64 out_param)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<8>;

  ld.param.u64 %rd1, [in_param];
  ld.param.u64 %rd2, [out_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4]; // @load
  add.s64 %rd5, %rd2, %rd3;
  st.global.f32 [%rd5], %f1;
  ret;
}
)";

TEST_F(Emulator, OutOfBoundsGlobalLoad) {
  CUfunction f = kernel(kOobLoadPtx, "oob_load");
  CUdeviceptr in = alloc(32 * 4), out = alloc(64 * 4);
  CUresult r = launch(f, {1}, {64}, {&in, &out});
  char address[64];
  std::snprintf(address, sizeof(address), "4 bytes at 0x%llx, ",
                (unsigned long long)(in + 128));
  char allocation[96];
  std::snprintf(allocation, sizeof(allocation),
                "after the 128-byte allocation at 0x%llx",
                (unsigned long long)in);
  expectReport(r, CUDA_ERROR_ILLEGAL_ADDRESS,
               {"an illegal memory access was encountered",
                where("out-of-bounds global load", "oob_load",
                      lineOf(kOobLoadPtx, "@load"), "(0,0,0)", "(32,0,0)"),
                address, allocation});
}

// Proves global stores are bounds-checked and that the report decomposes
// the thread index over a 2-D block: linear thread 32 of a 16 x 4 block is
// (0,2,0).
const char *const kOobStorePtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry oob_store(.param .u64 out_param)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;

  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4; // @store
  ret;
}
)";

TEST_F(Emulator, OutOfBoundsGlobalStore) {
  CUfunction f = kernel(kOobStorePtx, "oob_store");
  CUdeviceptr out = alloc(32 * 4);
  CUresult r = launch(f, {1}, {16, 4}, {&out});
  char address[64];
  std::snprintf(address, sizeof(address), "4 bytes at 0x%llx, ",
                (unsigned long long)(out + 128));
  expectReport(r, CUDA_ERROR_ILLEGAL_ADDRESS,
               {where("out-of-bounds global store", "oob_store",
                      lineOf(kOobStorePtx, "@store"), "(0,0,0)", "(0,2,0)"),
                address});
  // The threads before the faulting one did store.
  std::vector<uint32_t> v = download<uint32_t>(out, 32);
  for (uint32_t i = 0; i < 32; ++i)
    EXPECT_EQ(v[i], i);
}

// Proves shared stores are bounds-checked against static + dynamic shared
// memory: 64 static bytes + 64 dynamic bytes; thread t stores at offset
// 64 * t, so thread 2 stores at 128, the first byte past both. The second
// CTA of the grid reports it (CTA (1,0,0)) when the first is in bounds.
const char *const kOobSharedPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 16 .b8 fixed[64];
.extern .shared .align 16 .b8 dynamic[];

.visible .entry oob_shared()
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;

  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  add.u32 %r1, %r1, %r2;                  // CTA 1 shifts thread t to t + 1
  shl.b32 %r3, %r1, 6;
  mov.u32 %r4, fixed;
  add.u32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r1; // @store
  st.shared.u32 [dynamic+60], %r1;        // the last dynamic word is legal
  ret;
}
)";

TEST_F(Emulator, OutOfBoundsSharedStore) {
  CUfunction f = kernel(kOobSharedPtx, "oob_shared");
  // CTA 0: threads 0, 1 store at 0 and 64 (legal); CTA 1: thread 1 at 128.
  CUresult r = launch(f, {2}, {2}, {}, 64);
  expectReport(r, CUDA_ERROR_ILLEGAL_ADDRESS,
               {where("out-of-bounds shared store", "oob_shared",
                      lineOf(kOobSharedPtx, "@store"), "(1,0,0)", "(1,0,0)"),
                "4 bytes at shared offset 128, outside the CTA's 128 bytes"});
  // With 80 dynamic bytes (144 in all) the same stores are legal.
  r = launch(f, {2}, {2}, {}, 80);
  EXPECT_EQ(r, CUDA_SUCCESS) << errorString(r);
}

// Proves dynamic shared memory (an unsized `.extern .shared` array) starts
// after all static shared memory, whatever the declaration order: the CUDA
// programming guide places the dynamic allocation after the static ones,
// and the emulator itself allocates it there (Cta::Cta,
// emulator/lib/Executor.cpp:60, at the static size rounded to 16). Here the
// extern array is declared before a static one (module scope), or a static
// one is declared inside the kernel: storing to `dynamic` must not change
// `fixed`.
//
const char *const kExternFirstPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.extern .shared .align 16 .b8 dynamic[];
.shared .align 16 .b32 fixed[4];

.visible .entry extern_first(.param .u64 out_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;

  ld.param.u64 %rd1, [out_param];
  st.shared.u32 [fixed], 111;
  st.shared.u32 [dynamic], 222;
  ld.shared.u32 %r1, [fixed];
  mov.u32 %r2, fixed;
  mov.u32 %r3, dynamic;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, 0};
  ret;
}
)";

const char *const kFunctionScopeStaticPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.extern .shared .align 16 .b8 dynamic[];

.visible .entry function_scope(.param .u64 out_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  .shared .align 16 .b32 fixed[4];

  ld.param.u64 %rd1, [out_param];
  st.shared.u32 [fixed], 111;
  st.shared.u32 [dynamic], 222;
  ld.shared.u32 %r1, [fixed];
  mov.u32 %r2, fixed;
  mov.u32 %r3, dynamic;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, 0};
  ret;
}
)";

TEST_F(Emulator, DynamicSharedMemoryFollowsStaticSharedMemory) {
  const std::pair<const char *, const char *> kernels[] = {
      {kExternFirstPtx, "extern_first"},
      {kFunctionScopeStaticPtx, "function_scope"}};
  for (const auto &[ptx, name] : kernels) {
    SCOPED_TRACE(name);
    CUfunction f = kernel(ptx, name);
    CUdeviceptr out = alloc(16);
    CUresult r = launch(f, {1}, {1}, {&out}, 16);
    ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
    std::vector<uint32_t> v = download<uint32_t>(out, 4);
    EXPECT_EQ(v[0], 111u) << "the dynamic store overwrote fixed[0]";
    EXPECT_GE(v[2], v[1] + 16) << "dynamic at shared offset " << v[2]
                               << ", fixed at " << v[1];
  }
}

// Proves vector accesses must be aligned to the whole vector: a v4.f32 load
// 4 bytes into an allocation.
const char *const kMisalignedPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry misaligned(.param .u64 in_param, .param .u64 out_param)
{
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;

  ld.param.u64 %rd1, [in_param];
  ld.param.u64 %rd2, [out_param];
  add.s64 %rd1, %rd1, 4;
  ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd1]; // @load
  st.global.v4.f32 [%rd2], {%f0, %f1, %f2, %f3};
  ret;
}
)";

TEST_F(Emulator, MisalignedVectorLoad) {
  CUfunction f = kernel(kMisalignedPtx, "misaligned");
  CUdeviceptr in = alloc(64), out = alloc(64);
  CUresult r = launch(f, {1}, {1}, {&in, &out});
  char detail[96];
  std::snprintf(detail, sizeof(detail),
                "16-byte global load at 0x%llx is not aligned to 16",
                (unsigned long long)(in + 4));
  expectReport(r, CUDA_ERROR_MISALIGNED_ADDRESS,
               {"misaligned address (Quilt PTX emulator: ",
                where("misaligned address", "misaligned",
                      lineOf(kMisalignedPtx, "@load"), "(0,0,0)", "(0,0,0)"),
                detail});
}

//===----------------------------------------------------------------------===//
// 6. racecheck
//===----------------------------------------------------------------------===//

/// A kernel in which thread 0 (warp 0) does `first` on the shared word and
/// thread 32 (warp 1) then does `second`, with or without a bar.sync
/// between. `first`/`second` are "st" or "ld".
std::string raceKernel(const std::string &first, const std::string &second,
                       bool barrier) {
  auto access = [](const std::string &what, const char *pred,
                   const char *marker) {
    return "  @" + std::string(pred) + " " +
           (what == "st" ? std::string("st.shared.u32 [word], %r3;")
                         : std::string("ld.shared.u32 %r2, [word];")) +
           " // " + marker + "\n";
  };
  return std::string(R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 4 .b32 word;

.visible .entry race(.param .u64 out_param)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;

  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  add.u32 %r3, %r1, 100;                  // what a thread stores
  setp.eq.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r1, 32;
)") + access(first, "%p1", "@first") +
         (barrier ? "  bar.sync 0;\n" : "") +
         access(second, "%p2", "@second") + R"(
  @%p2 st.global.u32 [%rd1], %r2;
  ret;
}
)";
}

struct RaceCase {
  const char *first, *second, *hazard;
};

class RaceTest : public Emulator,
                 public ::testing::WithParamInterface<RaceCase> {};

TEST_P(RaceTest, ReportedWithoutBarrier) {
  const RaceCase &c = GetParam();
  std::string ptx = raceKernel(c.first, c.second, false);
  CUfunction f = kernel(ptx, "race");
  CUdeviceptr out = alloc(4);
  CUresult r = launch(f, {1}, {64}, {&out});
  expectReport(r, CUDA_ERROR_LAUNCH_FAILED,
               {"unspecified launch failure (Quilt PTX emulator: ",
                where("shared-memory hazard", "race",
                      lineOf(ptx, "@second"), "(0,0,0)", "(32,0,0)"),
                std::string(c.hazard) +
                    " hazard on byte 0 with thread 0 (no barrier between)"});
}

TEST_P(RaceTest, SilentWithBarrier) {
  const RaceCase &c = GetParam();
  std::string ptx = raceKernel(c.first, c.second, true);
  CUfunction f = kernel(ptx, "race");
  CUdeviceptr out = alloc(4);
  CUresult r = launch(f, {1}, {64}, {&out});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  // Thread 32 copies %r2 out: what it loaded (thread 0's 100), or 0 when
  // it did not load.
  uint32_t expected = std::string(c.second) == "ld" ? 100u : 0u;
  EXPECT_EQ(download<uint32_t>(out, 1)[0], expected);
}

INSTANTIATE_TEST_SUITE_P(
    Hazards, RaceTest,
    ::testing::Values(RaceCase{"st", "ld", "read-after-write"},
                      RaceCase{"ld", "st", "write-after-read"},
                      RaceCase{"st", "st", "write-after-write"}),
    [](const ::testing::TestParamInfo<RaceCase> &info) {
      return std::string(info.param.first) + "_" + info.param.second;
    });

// The value a barrier-ordered read sees: thread 0 stores 77, thread 32 reads
// it after bar.sync.
const char *const kOrderedPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 4 .b32 word;

.visible .entry ordered(.param .u64 out_param)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;

  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r1, 32;
  @%p1 st.shared.u32 [word], 77;
  bar.sync 0;
  @%p2 ld.shared.u32 %r2, [word];
  @%p2 st.global.u32 [%rd1], %r2;
  ret;
}
)";

TEST_F(Emulator, BarrierOrderedReadSeesWrite) {
  CUfunction f = kernel(kOrderedPtx, "ordered");
  CUdeviceptr out = alloc(4);
  CUresult r = launch(f, {1}, {64}, {&out});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  EXPECT_EQ(download<uint32_t>(out, 1)[0], 77u);
}

// Proves a write races with reads by *several* warps: every thread of
// warps 0 and 1 reads `word`, warp 1 exits, and after a spin (longer than
// the emulator's 2048-instruction time slice, so that warp 1's reads
// happen first) thread 1 writes `word` with no barrier since. Thread 1's
// store races with the reads of threads 32..63 (racecheck's WAR hazard).
//
const char *const kWarManyReadersPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 4 .b32 word;

.visible .entry war_many_readers()
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;

  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p3, %r1, 1;
  setp.ge.u32 %p2, %r1, 32;
  ld.shared.u32 %r2, [word];              // threads 0..63 read
  @%p2 bra DONE;                          // warp 1 is done
  mov.u32 %r3, 0;
SPIN:
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, 4000;
  @%p1 bra SPIN;
  @%p3 st.shared.u32 [word], 5; // @store
DONE:
  ret;
}
)";

TEST_F(Emulator, WriteAfterReadsOfAnotherWarpIsReported) {
  CUfunction f = kernel(kWarManyReadersPtx, "war_many_readers");
  CUresult r = launch(f, {1}, {64}, {});
  expectReport(r, CUDA_ERROR_LAUNCH_FAILED,
               {where("shared-memory hazard", "war_many_readers",
                      lineOf(kWarManyReadersPtx, "@store"), "(0,0,0)",
                      "(1,0,0)"),
                "write-after-read hazard on byte 0 with thread "});
}

//===----------------------------------------------------------------------===//
// 7, 8. Asynchronous copies read too early
//===----------------------------------------------------------------------===//

// Proves a cp.async destination may not be read before cp.async.wait_group
// completes its group (here: committed, never waited for).
const char *const kCpAsyncEarlyPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 16 .b8 stage[512];

.visible .entry early_cp(.param .u64 in_param, .param .u64 out_param)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;

  ld.param.u64 %rd1, [in_param];
  ld.param.u64 %rd2, [out_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, stage;
  shl.b32 %r3, %r1, 4;
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.cg.shared.global [%r4], [%rd4], 16;
  cp.async.commit_group;
  ld.shared.u32 %r5, [%r4]; // @read
  cp.async.wait_group 0;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r5;
  ret;
}
)";

TEST_F(Emulator, CpAsyncDestinationReadBeforeWait) {
  CUfunction f = kernel(kCpAsyncEarlyPtx, "early_cp");
  CUdeviceptr in = alloc(32 * 16), out = alloc(32 * 16);
  CUresult r = launch(f, {1}, {32}, {&in, &out});
  expectReport(r, CUDA_ERROR_LAUNCH_FAILED,
               {where("shared-memory hazard", "early_cp",
                      lineOf(kCpAsyncEarlyPtx, "@read"), "(0,0,0)", "(0,0,0)"),
                "reads byte 0 that a cp.async of thread 0 has not completed"});
}

TEST_F(TmaTest, DestinationReadBeforeMbarrierWait) {
  CUfunction f = kernel(kTmaPtx, "tma_tile");
  uint32_t c0 = 0, c1 = 0, skipWait = 0;
  CUresult r = launch(f, {1}, {128}, {&dMap, &dOut, &c0, &c1, &skipWait});
  // The mbarrier `bar` follows the 1024-byte tile: shared offset 1024.
  expectReport(r, CUDA_ERROR_LAUNCH_FAILED,
               {where("shared-memory hazard", "tma_tile",
                      lineOf(kTmaPtx, "@read"), "(0,0,0)", "(0,0,0)"),
                "reads byte 0 of a TMA load before waiting for phase 0 of "
                "the mbarrier at 1024"});
}

// Proves what a wgmma left in flight forbids (WgmmaHazards.cpp). Two
// warpgroups each issue one m64n8k16 wgmma reading the same stage (A at
// shared 0, B at 2048, unswizzled), commit it and wait for it; then thread
// 0 overwrites the stage's first byte. `mode` picks how thread 0 learns
// that warpgroup 1's wgmma completed:
//   0: it does not: a race with warpgroup 1's read;
//   1: lane 0 of every warp arrives on the stage's `empty` mbarrier after
//      its wait_group, and thread 0 waits for that phase: no race (the
//      hand-back of a pipelined mainloop);
//   2: thread 0 writes before its own warp's wait_group: a race with
//      warpgroup 0's read;
//   3: every thread reads an accumulator before its wait_group.
const char *const kWgmmaStagePtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 1024 .b8 stage[4096];
.shared .align 8 .b64 empty;

.visible .entry wgmma_stage(.param .u64 out_param, .param .u32 mode_param)
{
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<16>;

  ld.param.u64 %rd1, [out_param];
  ld.param.u32 %r1, [mode_param];
  mov.u32 %r2, %tid.x;
  and.b32 %r3, %r2, 31;
  setp.eq.u32 %p1, %r2, 0;
  setp.eq.u32 %p2, %r3, 0;
  @%p1 mbarrier.init.shared::cta.b64 [empty], 8;
  bar.sync 0;
  // Descriptors: start / 16, leading offset 128 B, stride offset 256 B.
  mov.u32 %r4, stage;
  cvt.u64.u32 %rd2, %r4;
  shr.u64 %rd3, %rd2, 4;
  or.b64 %rd4, %rd3, 68720001024;
  add.s64 %rd5, %rd4, 128;
  setp.ne.u32 %p3, 0, 0;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd4, %rd5, %p3, 1, 1, 0, 0;
  wgmma.commit_group.sync.aligned;
  setp.eq.u32 %p4, %r1, 3;
  @%p4 bra EARLY_READ;
  setp.eq.u32 %p5, %r1, 2;
  and.pred %p6, %p5, %p1;
  @%p6 st.shared.u8 [stage], 1; // @early-write
  wgmma.wait_group.sync.aligned 0;
  setp.ne.u32 %p7, %r1, 1;
  @%p7 bra WRITE;
  @%p2 mbarrier.arrive.shared::cta.b64 %rd6, [empty];
  @!%p1 bra DONE;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [empty], 0;
  @!%p5 bra WAIT;
WRITE:
  @%p1 st.shared.u8 [stage], 1; // @write
  bra DONE;
EARLY_READ:
  mov.f32 %f5, %f1; // @early-read
  wgmma.wait_group.sync.aligned 0;
DONE:
  mul.wide.u32 %rd7, %r2, 4;
  add.s64 %rd8, %rd1, %rd7;
  st.global.f32 [%rd8], %f1;
  ret;
}
)";

class WgmmaStageTest : public Emulator {
protected:
  /// Runs kWgmmaStagePtx in `mode` on two warpgroups.
  CUresult run(uint32_t mode) {
    CUfunction f = kernel(kWgmmaStagePtx, "wgmma_stage");
    out = alloc(256 * 4);
    return launch(f, {1}, {256}, {&out, &mode});
  }
  CUdeviceptr out = 0;
};

TEST_F(WgmmaStageTest, OperandOverwrittenWithoutRelease) {
  expectReport(run(0), CUDA_ERROR_LAUNCH_FAILED,
               {where("shared-memory hazard", "wgmma_stage",
                      lineOf(kWgmmaStagePtx, "@write"), "(0,0,0)", "(0,0,0)"),
                "overwrites byte 0 that wgmma.mma_async 1 of warpgroup 1 "
                "reads, and the writer has not synchronized with the "
                "wgmma.wait_group that completes it"});
}

TEST_F(WgmmaStageTest, OperandOverwriteAfterMbarrierReleaseIsOrdered) {
  CUresult r = run(1);
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  // The operands were zeros: so is every accumulator.
  for (float v : download<float>(out, 256))
    EXPECT_EQ(v, 0.0f);
}

TEST_F(WgmmaStageTest, OperandOverwrittenBeforeItsWait) {
  expectReport(run(2), CUDA_ERROR_LAUNCH_FAILED,
               {where("shared-memory hazard", "wgmma_stage",
                      lineOf(kWgmmaStagePtx, "@early-write"), "(0,0,0)",
                      "(0,0,0)"),
                "overwrites byte 0 that wgmma.mma_async 1 of warpgroup 0 "
                "reads"});
}

TEST_F(WgmmaStageTest, AccumulatorReadBeforeItsWait) {
  expectReport(run(3), CUDA_ERROR_LAUNCH_FAILED,
               {"wgmma accumulator hazard in wgmma_stage at PTX line " +
                    std::to_string(lineOf(kWgmmaStagePtx, "@early-read")),
                "%f1 is an accumulator of wgmma.mma_async 1 of this "
                "warpgroup", "which no wgmma.wait_group of this warp has "
                "completed"});
}

//===----------------------------------------------------------------------===//
// 9. Warp collectives reached by part of the warp
//===----------------------------------------------------------------------===//

// Proves shfl.sync with membermask 0xffffffff must be executed by every
// lane named: here only lanes 0..15 reach it.
const char *const kPartialShflPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry partial_shfl(.param .u64 out_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;

  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 16;
  mov.u32 %r2, 0;
  @%p1 shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1; // @shfl
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

TEST_F(Emulator, ShflReachedByHalfTheWarp) {
  CUfunction f = kernel(kPartialShflPtx, "partial_shfl");
  CUdeviceptr out = alloc(32 * 4);
  CUresult r = launch(f, {1}, {32}, {&out});
  expectReport(r, CUDA_ERROR_LAUNCH_FAILED,
               {where("divergent warp-collective instruction", "partial_shfl",
                      lineOf(kPartialShflPtx, "@shfl"), "(0,0,0)", "(0,0,0)"),
                "membermask 0xffffffff with live lanes 0xffffffff, but "
                "executed by lanes 0x0000ffff"});
}

TEST_F(MmaTest, MmaSyncReachedByHalfTheWarp) {
  CUfunction f = kernel(kMmaPtx, "mma16816");
  uint32_t halfWarp = 1;
  CUresult r = launch(f, {1}, {32}, {&dA, &dB, &dD, &halfWarp});
  expectReport(r, CUDA_ERROR_LAUNCH_FAILED,
               {where("divergent warp-collective instruction", "mma16816",
                      lineOf(kMmaPtx, "@mma"), "(0,0,0)", "(0,0,0)"),
                "executed by lanes 0x0000ffff of the live lanes 0xffffffff"});
}

//===----------------------------------------------------------------------===//
// 10. Deadlocks
//===----------------------------------------------------------------------===//

// Proves a deadlock between named barriers is reported: warp 0 waits at
// barrier 1, warp 1 at barrier 2; each expects the whole CTA (64 threads).
const char *const kBarrierDeadlockPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry named_deadlock()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;

  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra WARP0;
  bar.sync 2; // @bar2
  bra.uni DONE;
WARP0:
  bar.sync 1; // @bar1
DONE:
  ret;
}
)";

TEST_F(Emulator, DeadlockAtDifferentNamedBarriers) {
  CUfunction f = kernel(kBarrierDeadlockPtx, "named_deadlock");
  CUresult r = launch(f, {1}, {64}, {});
  expectReport(r, CUDA_ERROR_LAUNCH_FAILED,
               {where("deadlock", "named_deadlock",
                      lineOf(kBarrierDeadlockPtx, "@bar1"), "(0,0,0)",
                      "(0,0,0)"),
                "waits at barrier 1, which has 32 of 64 threads and no thread "
                "left to arrive"});
}

// Proves an mbarrier phase that can never complete is reported: count 2,
// only thread 0 arrives, every thread spins in a try_wait loop.
const char *const kMbarrierDeadlockPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 8 .b64 bar;

.visible .entry mbar_deadlock()
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;

  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [bar], 2;
  bar.sync 0;
  @%p1 mbarrier.arrive.shared::cta.b64 %rd1, [bar];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0; // @try_wait
  @!%p2 bra WAIT; // @branch
  ret;
}
)";

TEST_F(Emulator, DeadlockOnMbarrierThatNeverCompletes) {
  CUfunction f = kernel(kMbarrierDeadlockPtx, "mbar_deadlock");
  CUresult r = launch(f, {1}, {64}, {});
  ASSERT_EQ(r, CUDA_ERROR_LAUNCH_FAILED) << errorString(r);
  std::string text = errorString(r);
  EXPECT_NE(text.find("deadlock in mbar_deadlock at PTX line "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(", CTA (0,0,0) thread (0,0,0): spins on an mbarrier "
                      "whose phase can never complete"),
            std::string::npos)
      << text;
  // The spin loop is the try_wait and its branch back.
  int tryWait = lineOf(kMbarrierDeadlockPtx, "@try_wait");
  int branch = lineOf(kMbarrierDeadlockPtx, "@branch");
  bool inLoop =
      text.find("at PTX line " + std::to_string(tryWait) + ",") !=
          std::string::npos ||
      text.find("at PTX line " + std::to_string(branch) + ",") !=
          std::string::npos;
  EXPECT_TRUE(inLoop) << text;
}

// The deadlock report names the instruction that waits: the try_wait
// ("spins on an mbarrier ..."), not the branch of its spin loop.
TEST_F(Emulator, MbarrierDeadlockNamesTheTryWait) {
  CUfunction f = kernel(kMbarrierDeadlockPtx, "mbar_deadlock");
  CUresult r = launch(f, {1}, {64}, {});
  expectReport(r, CUDA_ERROR_LAUNCH_FAILED,
               {where("deadlock", "mbar_deadlock",
                      lineOf(kMbarrierDeadlockPtx, "@try_wait"), "(0,0,0)",
                      "(0,0,0)"),
                "spins on an mbarrier whose phase can never complete"});
}

//===----------------------------------------------------------------------===//
// setmaxnreg: registers moved between warpgroups (RegisterMoves.cpp)
//===----------------------------------------------------------------------===//

// A warp-specialized block: two consumer warpgroups (threads 0-255) and a
// producer one, one block an SM, so 168 registers a thread at launch. The
// consumers ask for CONSUMERS, the producer keeps PRODUCER; each consumer
// writes its thread index.
const char *const kRegisterMovesPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry moves(.param .u64 out_param)
.maxntid 384, 1, 1
MINBLOCKS
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;

  ld.param.u64 %rd1, [out_param];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, SPLIT;
  @%p1 bra PRODUCER;
  setmaxnreg.inc.sync.aligned.u32 CONSUMERS; // @inc
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
PRODUCER:
  setmaxnreg.dec.sync.aligned.u32 PRODUCER; // @dec
  ret;
}
)";

class RegisterMovesTest : public Emulator {
protected:
  /// kRegisterMovesPtx with its placeholders replaced.
  std::string ptx(int consumers, int producer = 40, bool minBlocks = true,
                  int split = 256) {
    std::string text = kRegisterMovesPtx;
    auto put = [&](const std::string &name, const std::string &value) {
      size_t at = text.find(name);
      ASSERT_NE(at, std::string::npos) << name;
      text.replace(at, name.size(), value);
    };
    put("MINBLOCKS", minBlocks ? ".minnctapersm 1" : "");
    put("SPLIT", std::to_string(split));
    put("CONSUMERS;", std::to_string(consumers) + ";");
    put("PRODUCER; // @dec", std::to_string(producer) + "; // @dec");
    return text;
  }

  CUresult run(const std::string &text) {
    CUfunction f = kernel(text, "moves");
    out = upload(std::vector<uint32_t>(384, 0xffffffffu));
    return launch(f, {1}, {384}, {&out});
  }

  CUdeviceptr out = 0;
};

// CUTLASS's 40 / 232: 128 x (168 - 40) released cover 256 x (232 - 168),
// whichever warps ask first (the consumers do, and wait for the producer).
TEST_F(RegisterMovesTest, ConsumersTakeWhatTheProducerReleases) {
  ASSERT_EQ(run(ptx(232)), CUDA_SUCCESS);
  std::vector<uint32_t> got = download<uint32_t>(out, 384);
  for (uint32_t i = 0; i < 384; ++i)
    EXPECT_EQ(got[i], i < 256 ? i : 0xffffffffu) << i;
}

// 240 would need 256 x 72 registers, 2048 more than the producer's 16384:
// seven consumer warps get theirs and the eighth waits forever.
TEST_F(RegisterMovesTest, AnIncThePoolNeverCoversDeadlocks) {
  std::string text = ptx(240);
  expectReport(run(text), CUDA_ERROR_LAUNCH_FAILED,
               {"deadlock in moves at PTX line " +
                    std::to_string(lineOf(text, "@inc")) + ",",
                "waits at setmaxnreg.inc for 2304 registers (from 168 to 240 "
                "a thread), but the CTA's pool holds 256 and no warp is left "
                "to give more"});
}

// Without .minnctapersm ptxas allocates for the code, not for the blocks:
// no pool is known, and on a GPU the .inc may wait forever.
TEST_F(RegisterMovesTest, WithoutMinBlocksThereIsNoBudget) {
  std::string text = ptx(232, 40, /*minBlocks=*/false);
  expectReport(run(text), CUDA_ERROR_LAUNCH_FAILED,
               {"setmaxnreg without a register budget in moves at PTX line ",
                "the kernel declares no .minnctapersm"});
}

// .sync.aligned: the whole warp executes it.
TEST_F(RegisterMovesTest, PartOfAWarpIsDivergent) {
  std::string text = ptx(232, 40, true, /*split=*/16);
  expectReport(run(text), CUDA_ERROR_LAUNCH_FAILED,
               {"divergent setmaxnreg in moves at PTX line ",
                " of a warp whose 32 lanes are all required"});
}

TEST_F(RegisterMovesTest, CountsOutsideTheRangeAreInvalid) {
  std::string text = ptx(100);
  expectReport(run(text), CUDA_ERROR_LAUNCH_FAILED,
               {where("invalid setmaxnreg", "moves", lineOf(text, "@inc"),
                      "(0,0,0)", "(0,0,0)"),
                "setmaxnreg.inc takes an immediate register count, a multiple "
                "of 8 from 24 to 256"});
  // .dec to more than the launch's 168.
  std::string raising = ptx(232, 200);
  expectReport(run(raising), CUDA_ERROR_LAUNCH_FAILED,
               {where("invalid setmaxnreg", "moves", lineOf(raising, "@dec"),
                      "(0,0,0)", "(256,0,0)"),
                "setmaxnreg.dec to 200 registers a thread, above the warp's "
                "168"});
}

// Every warp of a warpgroup executes the same setmaxnreg: here warp 0 takes
// one .inc and warp 1 another.
TEST_F(RegisterMovesTest, WarpsOfAWarpgroupTakeTheSameOne) {
  std::string text = ptx(232);
  std::string other = "  setmaxnreg.inc.sync.aligned.u32 232; // @inc";
  size_t at = text.find(other);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, other.size(),
               "  setp.lt.u32 %p2, %r1, 32;\n"
               "  @%p2 bra FIRST;\n"
               "  setmaxnreg.inc.sync.aligned.u32 232; // @second\n"
               "  bra.uni BODY;\n"
               "FIRST:\n"
               "  setmaxnreg.inc.sync.aligned.u32 232; // @first\n"
               "BODY:");
  expectReport(run(text), CUDA_ERROR_LAUNCH_FAILED,
               {where("divergent setmaxnreg", "moves", lineOf(text, "@second"),
                      "(0,0,0)", "(32,0,0)"),
                "warp 0 of the warpgroup executed the setmaxnreg at PTX line " +
                    std::to_string(lineOf(text, "@first")) +
                    " in this one's place"});
}

//===----------------------------------------------------------------------===//
// 11. Driver errors
//===----------------------------------------------------------------------===//

TEST_F(Emulator, SyntaxErrorFillsJitErrorLog) {
  const std::string ptx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry broken()
{
  .reg .b32 %r<2>;
  mov.u32 %r0, 1;
  frobnicate.u32 %r1, %r0; // @bad
  ret;
}
)";
  char log[512] = {0};
  CUjit_option options[2] = {CU_JIT_ERROR_LOG_BUFFER,
                             CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[2] = {log, reinterpret_cast<void *>(uintptr_t(sizeof(log)))};
  CUmodule module = nullptr;
  CUresult r = cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
  EXPECT_EQ(r, CUDA_ERROR_INVALID_PTX);
  std::string expected = "ptx:" + std::to_string(lineOf(ptx, "@bad")) + ": ";
  EXPECT_EQ(std::string(log).rfind(expected, 0), 0u) << log;
  EXPECT_NE(std::string(log).find("frobnicate"), std::string::npos) << log;
  EXPECT_NE(errorString(r).find(expected), std::string::npos)
      << errorString(r);
}

TEST_F(Emulator, CubinIsRejectedWithAPtxHint) {
  const char elf[] = "\x7f"
                     "ELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00";
  CUmodule module = nullptr;
  CUresult r = cuModuleLoadData(&module, elf);
  EXPECT_EQ(r, CUDA_ERROR_INVALID_IMAGE);
  EXPECT_NE(errorString(r).find("PTX"), std::string::npos) << errorString(r);
}

TEST_F(Emulator, MissingKernelIsNotFound) {
  CUmodule module = nullptr;
  ASSERT_EQ(cuModuleLoadData(&module, kVectorPtx), CUDA_SUCCESS);
  modules_.push_back(module);
  CUfunction f = nullptr;
  CUresult r = cuModuleGetFunction(&f, module, "no_such_kernel");
  EXPECT_EQ(r, CUDA_ERROR_NOT_FOUND);
  EXPECT_NE(errorString(r).find("no_such_kernel"), std::string::npos);
}

TEST_F(Emulator, DynamicSharedMemoryAboveDefaultNeedsAttribute) {
  CUfunction f = kernel(kOobSharedPtx, "oob_shared");
  const unsigned bytes = 64 * 1024; // above the 48 KiB default
  CUresult r = launch(f, {1}, {1}, {}, bytes);
  EXPECT_EQ(r, CUDA_ERROR_INVALID_VALUE);
  EXPECT_NE(errorString(r).find(
                "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"),
            std::string::npos)
      << errorString(r);
  ASSERT_EQ(cuFuncSetAttribute(
                f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
            CUDA_SUCCESS);
  r = launch(f, {1}, {1}, {}, bytes);
  EXPECT_EQ(r, CUDA_SUCCESS) << errorString(r);
  // Beyond the device's opt-in limit the attribute itself is refused.
  int optin = 0;
  ASSERT_EQ(cuDeviceGetAttribute(
                &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                0),
            CUDA_SUCCESS);
  EXPECT_EQ(cuFuncSetAttribute(
                f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, optin),
            CUDA_ERROR_INVALID_VALUE); // 64 static bytes leave less
}

TEST_F(Emulator, DeviceAttributesOfDefaultH100) {
  CUdevice device;
  ASSERT_EQ(cuDeviceGet(&device, 0), CUDA_SUCCESS);
  int major = 0, minor = -1, sms = 0;
  ASSERT_EQ(cuDeviceGetAttribute(
                &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
            CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetAttribute(
                &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
            CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                 device),
            CUDA_SUCCESS);
  EXPECT_EQ(major, 9);
  EXPECT_EQ(minor, 0);
  EXPECT_EQ(sms, 132);
}

TEST_F(Emulator, TensorMapWithMisalignedAddressIsRejected) {
  CUdeviceptr base = alloc(4096);
  const cuuint64_t dims[2] = {64, 16};
  const cuuint64_t strides[1] = {128};
  const cuuint32_t box[2] = {64, 8};
  const cuuint32_t elementStrides[2] = {1, 1};
  CUtensorMap map; // the type carries the alignment the API needs
  CUresult r = cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
      reinterpret_cast<void *>(base + 8), dims, strides, box, elementStrides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT_EQ(r, CUDA_ERROR_INVALID_VALUE);
  EXPECT_NE(errorString(r).find("globalAddress must be 16-byte aligned"),
            std::string::npos)
      << errorString(r);
  // The same map at an aligned address is accepted.
  r = cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, reinterpret_cast<void *>(base),
      dims, strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT_EQ(r, CUDA_SUCCESS) << errorString(r);
}

} // namespace

//===----------------------------------------------------------------------===//
// Reconvergence and mbarrier initialization
//===----------------------------------------------------------------------===//

namespace {

// Proves that lanes diverging at a branch reconverge at its immediate
// post-dominator even when the conditional block is laid out after the
// join, as LLVM places `if (lane == 0) { ... }`: lanes 1-31 reach JOIN
// first and must wait there for lane 0, so that the .sync.aligned shuffle
// runs with the whole warp (lowest-PC-first scheduling alone would run it
// without lane 0).
const char *const kLateBlockPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry late_block(.param .u64 out_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;

  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %laneid;
  mov.u32 %r2, 7;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra LANE0;
JOIN:
  shfl.sync.idx.b32 %r3, %r2, 0, 31, -1;  // every lane reads lane 0's %r2
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
LANE0:
  mov.u32 %r2, 42;
  bra.uni JOIN;
}
)";

} // namespace

TEST_F(Emulator, LanesReconvergeAtThePostDominatorOfTheirBranch) {
  CUfunction f = kernel(kLateBlockPtx, "late_block");
  CUdeviceptr out = alloc(32 * 4);
  CUresult r = launch(f, {1}, {32}, {&out});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  std::vector<uint32_t> values = download<uint32_t>(out, 32);
  for (uint32_t v : values)
    EXPECT_EQ(v, 42u);
}

namespace {

// Proves that an mbarrier.init over a barrier that has been used (an
// arrival recorded) is reported: the PTX ISA leaves it undefined, and it
// would silently drop the arrival. A second init of a fresh barrier, as
// MLIR's nvgpu lowering emits from every thread, is accepted.
const char *const kReinitPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 8 .b64 bar;

.visible .entry reinit(.param .u32 arrive_first)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;

  ld.param.u32 %r1, [arrive_first];
  mbarrier.init.shared.b64 [bar], 2;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 mbarrier.arrive.shared.b64 %rd1, [bar];
  mbarrier.init.shared.b64 [bar], 2; // @reinit
  ret;
}
)";

} // namespace

TEST_F(Emulator, ReinitializingAUsedMbarrierIsReported) {
  CUfunction f = kernel(kReinitPtx, "reinit");
  uint32_t arriveFirst = 0;
  CUresult r = launch(f, {1}, {1}, {&arriveFirst});
  EXPECT_EQ(r, CUDA_SUCCESS) << errorString(r);
  arriveFirst = 1;
  r = launch(f, {1}, {1}, {&arriveFirst});
  expectReport(r, CUDA_ERROR_LAUNCH_FAILED,
               {where("mbarrier re-initialized", "reinit",
                      lineOf(kReinitPtx, "@reinit"), "(0,0,0)", "(0,0,0)"),
                "1 of 2 arrivals", "mbarrier.inval it first"});
}

//===----------------------------------------------------------------------===//
// Profile counters
//===----------------------------------------------------------------------===//

namespace {

// One warp stores a word per lane to shared memory at a stride of `stride`
// words, then loads a float4 per lane from consecutive global memory.
// Stride 1 touches 32 banks once (1 wavefront); stride 32 puts every lane
// in bank 0 (32 wavefronts); stride 2 pairs lanes up (2 wavefronts).
const char *const kBanksPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 16 .b32 words[1024];

.visible .entry banks(.param .u64 in_param, .param .u32 stride)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<5>;

  ld.param.u64 %rd1, [in_param];
  ld.param.u32 %r1, [stride];
  mov.u32 %r2, %tid.x;
  mul.lo.u32 %r3, %r2, %r1;
  shl.b32 %r3, %r3, 2;
  mov.u32 %r4, words;
  add.u32 %r4, %r4, %r3;
  st.shared.u32 [%r4], %r2;
  mul.wide.u32 %rd2, %r2, 16;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd3];
  ret;
}
)";

/// The profile line of one launch of `banks` with `stride`.
std::string profileOf(CUfunction f, CUdeviceptr in, uint32_t stride) {
  setenv("QUILT_EMULATOR_PROFILE", "1", 1);
  testing::internal::CaptureStderr();
  CUresult r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr,
                              std::vector<void *>{&in, &stride}.data(),
                              nullptr);
  std::string text = testing::internal::GetCapturedStderr();
  unsetenv("QUILT_EMULATOR_PROFILE");
  EXPECT_EQ(r, CUDA_SUCCESS) << errorString(r);
  return text;
}

} // namespace

TEST_F(Emulator, ProfileCountsBankConflictsAndSectors) {
  CUfunction f = kernel(kBanksPtx, "banks");
  CUdeviceptr in = alloc(32 * 16);
  std::string one = profileOf(f, in, 1);
  // 32 lanes x 16 bytes = 512 bytes: 16 sectors, the fewest possible; two
  // parameter loads and the global one are loads.
  EXPECT_NE(one.find("global: 1 requests, 16 sectors (16 at best)"),
            std::string::npos)
      << one;
  EXPECT_NE(one.find("shared: 1 requests, 1 wavefronts (1 without bank "
                     "conflicts)"),
            std::string::npos)
      << one;
  EXPECT_NE(one.find("by class: tensor-core 0 fma 0 load 3 store 0 shared 1 "
                     "barrier 0"),
            std::string::npos)
      << one;
  std::string two = profileOf(f, in, 2);
  EXPECT_NE(two.find("shared: 1 requests, 2 wavefronts (1 without"),
            std::string::npos)
      << two;
  std::string all = profileOf(f, in, 32);
  EXPECT_NE(all.find("shared: 1 requests, 32 wavefronts (1 without"),
            std::string::npos)
      << all;
}

namespace {

// Proves min/max .NaN (PTX ISA 9.7.3: a NaN operand gives the canonical
// NaN), what LLVM emits for arith.maximumf, next to the plain forms that
// return the other operand.
const char *const kMaxNaNPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry max_nan(.param .u64 out_param)
{
  .reg .f32 %f<8>;
  .reg .b64 %rd<2>;

  ld.param.u64 %rd1, [out_param];
  mov.b32 %f1, 0f7FC00000;                 // a quiet NaN
  max.NaN.f32 %f2, %f1, 0f3F800000;
  max.f32 %f3, %f1, 0f3F800000;
  min.NaN.f32 %f4, 0f40000000, %f1;
  max.NaN.f32 %f5, 0f40000000, 0f3F800000;
  st.global.v4.f32 [%rd1], {%f2, %f3, %f4, %f5};
  ret;
}
)";

} // namespace

TEST_F(Emulator, MinMaxNaNPropagateNaN) {
  CUfunction f = kernel(kMaxNaNPtx, "max_nan");
  CUdeviceptr out = alloc(16);
  CUresult r = launch(f, {1}, {1}, {&out});
  ASSERT_EQ(r, CUDA_SUCCESS) << errorString(r);
  std::vector<uint32_t> v = download<uint32_t>(out, 4);
  EXPECT_EQ(v[0], 0x7fffffffu);
  EXPECT_EQ(bitsToFloat(v[1]), 1.0f);
  EXPECT_EQ(v[2], 0x7fffffffu);
  EXPECT_EQ(bitsToFloat(v[3]), 2.0f);
}
