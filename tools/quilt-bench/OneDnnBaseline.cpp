//===- OneDnnBaseline.cpp - oneDNN's primitives as a baseline -------------===//
//
// Part of the Quilt project. Matmuls and batch matmuls run oneDNN's matmul
// primitive on the operands as they are (plain row-major, nothing
// reordered ahead); convolutions run its convolution primitive on the
// activations as they are, with the filter reordered once, outside the
// timing, into the layout oneDNN prefers, as an inference engine holding
// the weights would. The primitive for each shape is created with
// oneDNN's cache off, and that time is reported: it is what a new shape
// costs oneDNN.
//
//===----------------------------------------------------------------------===//

#include "Baselines.h"

#include <chrono>
#include <dlfcn.h>
#include <unordered_map>

#ifdef QUILT_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace quilt::bench {

#ifdef QUILT_HAVE_ONEDNN

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr memory::data_type kF32 = memory::data_type::f32;

class OneDnnBaseline : public LibraryBaseline {
public:
  OneDnnBaseline() : engine(dnnl::engine::kind::cpu, 0), stream(engine) {}

  const char *name() const override { return "onednn"; }

  bool prepare(const Workload &w, Operands &o, std::string &error) override {
    for (const HostTensor *tensor : {&o.lhs, &o.rhs, &o.out})
      if (tensor->numElements() == 0) {
        // oneDNN 2.6 divides by zero creating such a primitive (SIGFPE).
        error = "not run: oneDNN cannot take an empty operand";
        return false;
      }
    try {
      if (w.op == OpKind::Matmul || w.op == OpKind::BatchMatmul)
        prepareMatmul(w, o);
      else
        prepareConvolution(w, o);
    } catch (const dnnl::error &e) {
      error = std::string("oneDNN: ") + e.what();
      return false;
    }
    return true;
  }

  void run() override {
    primitive.execute(stream, arguments);
    stream.wait();
  }

  std::optional<double> creationMicros() const override { return creation; }

private:
  /// Creates the primitive and its descriptor from `makeDesc()`, timing
  /// both.
  template <typename Primitive, typename MakeDesc>
  typename Primitive::primitive_desc create(MakeDesc makeDesc) {
    auto start = std::chrono::steady_clock::now();
    typename Primitive::primitive_desc pd(makeDesc(), engine);
    primitive = Primitive(pd);
    creation = std::chrono::duration<double, std::micro>(
                   std::chrono::steady_clock::now() - start)
                   .count();
    return pd;
  }

  memory wrap(const memory::desc &desc, const HostTensor &tensor) {
    return memory(desc, engine, const_cast<float *>(tensor.floats()));
  }

  void prepareMatmul(const Workload &w, Operands &o) {
    const GemmShape &g = w.gemm;
    bool batched = w.op == OpKind::BatchMatmul;
    auto dims = [&](int64_t rows, int64_t columns) {
      return batched ? memory::dims{g.b, rows, columns}
                     : memory::dims{rows, columns};
    };
    Tag tag = batched ? Tag::abc : Tag::ab;
    memory::desc a(dims(g.m, g.k), kF32, tag), b(dims(g.k, g.n), kF32, tag),
        c(dims(g.m, g.n), kF32, tag);
    create<dnnl::matmul>([&] { return dnnl::matmul::desc(a, b, c); });
    arguments = {{DNNL_ARG_SRC, wrap(a, o.lhs)},
                 {DNNL_ARG_WEIGHTS, wrap(b, o.rhs)},
                 {DNNL_ARG_DST, wrap(c, o.out)}};
  }

  void prepareConvolution(const Workload &w, Operands &o) {
    const ConvParams &p = *w.conv;
    bool nhwc = w.op == OpKind::Conv2dNhwcHwcf;
    // oneDNN's logical dimensions are N, C, H, W and O, I, H, W whatever
    // the layout; the input is already padded (linalg convolutions do not
    // pad).
    const std::vector<int64_t> &is = o.lhs.shape(), &os = o.out.shape();
    memory::dims src = nhwc ? memory::dims{is[0], is[3], is[1], is[2]}
                            : memory::dims{is[0], is[1], is[2], is[3]};
    memory::dims dst = nhwc ? memory::dims{os[0], os[3], os[1], os[2]}
                            : memory::dims{os[0], os[1], os[2], os[3]};
    memory::dims filter = {p.f, p.c, p.r, p.s};
    Tag activations = nhwc ? Tag::nhwc : Tag::nchw;
    memory::desc srcDesc(src, kF32, activations),
        dstDesc(dst, kF32, activations);
    memory::desc userFilter(filter, kF32, nhwc ? Tag::hwio : Tag::oihw);
    memory::desc anyFilter(filter, kF32, Tag::any);
    auto pd = create<dnnl::convolution_forward>([&] {
      return dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_inference,
          dnnl::algorithm::convolution_direct, srcDesc, anyFilter, dstDesc,
          {p.stride, p.stride}, {0, 0}, {0, 0});
    });
    reorderedFilter = memory(pd.weights_desc(), engine);
    memory given = wrap(userFilter, o.rhs);
    dnnl::reorder(given, reorderedFilter)
        .execute(stream, given, reorderedFilter);
    stream.wait();
    arguments = {{DNNL_ARG_SRC, wrap(srcDesc, o.lhs)},
                 {DNNL_ARG_WEIGHTS, reorderedFilter},
                 {DNNL_ARG_DST, wrap(dstDesc, o.out)}};
  }

  dnnl::engine engine;
  dnnl::stream stream;
  dnnl::primitive primitive;
  memory reorderedFilter;
  std::unordered_map<int, memory> arguments;
  double creation = 0;
};

} // namespace

std::unique_ptr<LibraryBaseline> makeOneDnnBaseline(int threads,
                                                    std::string &error) {
  // Debian's oneDNN runs on OpenMP. Its thread count is that of whichever
  // OpenMP runtime the process resolved it against (LLVM's, when the
  // kernels' runtime is linked in: it serves GNU's entry points too).
  using SetThreads = void (*)(int);
  auto setThreads =
      reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (!setThreads) {
    error = "cannot find the OpenMP runtime oneDNN runs on";
    return nullptr;
  }
  setThreads(threads);
  // Every shape pays for its own primitive, as a shape not seen before
  // does.
  dnnl::set_primitive_cache_capacity(0);
  try {
    return std::make_unique<OneDnnBaseline>();
  } catch (const dnnl::error &e) {
    error = std::string("oneDNN: ") + e.what();
    return nullptr;
  }
}

#else

std::unique_ptr<LibraryBaseline> makeOneDnnBaseline(int, std::string &error) {
  error = "quilt-bench was built without oneDNN (libdnnl-dev)";
  return nullptr;
}

#endif

} // namespace quilt::bench
