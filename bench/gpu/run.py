#!/usr/bin/env python3
"""Runs Quilt's GPU benchmark bundles on this machine's GPU against cuBLAS.

A bundle is what `quilt-bench --target h100 --workloads FILE --bundle DIR`
writes on the build machine (which needs no GPU): one shared library per
(op, element type) compiled once for the target, Quilt's runtime libraries,
and manifest.json (operand shapes, the cost model's pick and prediction for
every workload). This machine needs the GPU driver and PyTorch, nothing else:
LLVM and MLIR stay on the build machine.

For every workload of every bundle it
  - calls Quilt's compiled function on device tensors (random inputs and
    random values in the output: the function computes out = lhs * rhs, its
    accumulator filled with zero inside it), checks every output element
    against a float64 reference computed by PyTorch, and
    checks the GPU runtime's status;
  - times Quilt (each call returns after its launches finished: wall clock,
    median) and cuBLAS through torch.matmul / torch.bmm (CUDA events around
    each call, median; and the same wall-clock method as Quilt's, which
    includes the synchronization Quilt pays);
  - times Triton's matmul (bench/gpu/triton_matmul.py, autotuned per shape;
    CUDA events) on matmuls and batch matmuls where Triton is installed, after
    checking its product against the reference;
  - reports per workload Quilt's time, cuBLAS's, the ratio (cuBLAS time over
    Quilt's: above 1 is faster than cuBLAS), Triton's time and ratio, the
    candidate the model chose, and its predicted time against the measured
    one.
With --model-sample N it also runs every candidate on N workloads (forced
through quilt_rt_force_kernel), checks each one's output, and reports the rank
correlation of predicted and measured times and the regret of the model's pick.

Writes results.json and results.md per bundle into --out (default: $OUT when
set, else the bundle). Exit status 1 when any workload is wrong or failed.

--check-only loads each bundle's runtime and libraries and checks their
entries and manifest without a GPU or PyTorch (the test suite does this).

Usage: python3 bench/gpu/run.py BUNDLE [BUNDLE...] [--model-sample N]
"""

import argparse
import ctypes
import json
import math
import os
import statistics
import sys
import time

torch = None  # imported by main(): --check-only runs without PyTorch
triton_matmul = None  # bench/gpu/triton_matmul.py when Triton works here


# --------------------------------------------------------------------------
# Quilt's libraries
# --------------------------------------------------------------------------

_DESCRIPTORS = {}


def descriptor_type(rank):
    """The ctypes structure of a rank-`rank` memref descriptor, made once."""
    if rank not in _DESCRIPTORS:
        class Descriptor(ctypes.Structure):
            _fields_ = [("allocated", ctypes.c_void_p),
                        ("aligned", ctypes.c_void_p),
                        ("offset", ctypes.c_int64),
                        ("sizes", ctypes.c_int64 * rank),
                        ("strides", ctypes.c_int64 * rank)]
        _DESCRIPTORS[rank] = Descriptor
    return _DESCRIPTORS[rank]


def memref_descriptor(tensor):
    """The MLIR memref descriptor of a strided device tensor."""
    rank = tensor.dim()
    d = descriptor_type(rank)()
    d.allocated = d.aligned = tensor.data_ptr() or None
    d.offset = 0
    for i in range(rank):
        d.sizes[i] = tensor.shape[i]
        d.strides[i] = tensor.stride()[i]
    return d


class Runtime:
    """Quilt's run-time libraries of one bundle, loaded globally so that the
    bundle's libraries resolve against them wherever they were linked."""

    def __init__(self, bundle, names):
        self.libs = [ctypes.CDLL(os.path.join(bundle, n), mode=ctypes.RTLD_GLOBAL)
                     for n in names]
        host, gpu = self.libs[0], self.libs[-1]
        self.force_kernel = host.quilt_rt_force_kernel
        self.force_kernel.argtypes = [ctypes.c_int32]
        self.gpu_status = gpu.quilt_gpu_status
        self.gpu_status.restype = ctypes.c_int32
        self.gpu_first_error = gpu.quilt_gpu_first_error
        self.gpu_first_error.restype = ctypes.c_char_p
        self.gpu_reset = gpu.quilt_gpu_reset_status
        self.gpu_backend = gpu.quilt_gpu_backend
        self.gpu_backend.restype = ctypes.c_char_p
        # Operand checks of the compiled code (newer runtimes).
        self.rt_status = getattr(host, "quilt_rt_status", None)
        if self.rt_status is not None:
            self.rt_status.restype = ctypes.c_int32
            self.rt_clear = host.quilt_rt_clear_status
            self.rt_error = host.quilt_rt_last_error
            self.rt_error.restype = ctypes.c_char_p

    def take_error(self):
        """The first failure since the last call, or None; resets it."""
        message = None
        if self.gpu_status() != 0:
            message = (self.gpu_first_error() or b"").decode()
            self.gpu_reset()
        if self.rt_status is not None and self.rt_status() != 0:
            message = message or (self.rt_error() or b"").decode()
            self.rt_clear()
        return message


class Library:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.entry = self.lib._mlir_ciface_quilt_bench
        self.entry.restype = None

    def __call__(self, lhs, rhs, out):
        self.bind(lhs, rhs, out)()

    def bind(self, lhs, rhs, out):
        """The call on these tensors with its descriptors built once: what
        is timed is the compiled function, not Python building its
        arguments."""
        a, b, c = (ctypes.byref(memref_descriptor(t)) for t in (lhs, rhs, out))
        entry = self.entry
        return lambda: entry(a, b, c)


# --------------------------------------------------------------------------
# References and baselines
# --------------------------------------------------------------------------

def contraction(w, lhs, rhs):
    """lhs * rhs as the linalg op defines it, in the operands' dtype (the
    cuBLAS / cuDNN baseline) or float64 (the reference)."""
    op = w["op"]
    if op == "matmul":
        return torch.matmul(lhs, rhs)
    if op == "batch_matmul":
        return torch.bmm(lhs, rhs)
    stride = w.get("stride", 1)
    if op == "conv2d_nhwc":  # NHWC x HWCF -> NHWF
        out = torch.nn.functional.conv2d(lhs.permute(0, 3, 1, 2),
                                         rhs.permute(3, 2, 0, 1), stride=stride)
        return out.permute(0, 2, 3, 1)
    if op == "conv2d_nchw":  # NCHW x FCHW -> NFHW
        return torch.nn.functional.conv2d(lhs, rhs, stride=stride)
    raise ValueError("unknown op " + op)


class tf32_disabled:
    """Full-precision float32 matmuls and convolutions inside the block."""

    def __enter__(self):
        self.saved = (torch.backends.cuda.matmul.allow_tf32,
                      torch.backends.cudnn.allow_tf32)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    def __exit__(self, *exc):
        (torch.backends.cuda.matmul.allow_tf32,
         torch.backends.cudnn.allow_tf32) = self.saved


def gflop(w):
    """Multiply-adds x 2 of the GEMM view, in GFLOP."""
    return 2.0 * w["b"] * w["m"] * w["n"] * w["k"] * 1e-9


def relative_error(out, ref):
    if not torch.isfinite(out).all():
        return math.inf
    norm = ref.norm().item()
    diff = (out.to(ref.dtype) - ref).norm().item()
    return diff / norm if norm > 0 else diff


def tolerance(instruction):
    # tf32 keeps 10 mantissa bits of each operand; every other instruction
    # multiplies exactly and accumulates in f32.
    return 2e-3 if instruction and "tf32" in instruction else 1e-4


def median_wall_us(fn, min_time=0.2, min_reps=5, max_reps=200):
    fn()
    torch.cuda.synchronize()
    samples, total = [], 0.0
    while len(samples) < min_reps or (total < min_time and len(samples) < max_reps):
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        samples.append(time.perf_counter() - start)
        total += samples[-1]
    return statistics.median(samples) * 1e6


def median_event_us(fn, reps=50):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times)


def device_us(fn, reps=20):
    """The GPU's busy time per call, kernels, copies and fills together, as
    CUPTI traces it through PyTorch's profiler (Quilt launches through the
    driver API, which CUPTI sees too), and the names of the kernels; the
    difference to the wall-clock time is what a call costs on the host.
    None, with the reason, where the profiler does not work."""
    fn()
    torch.cuda.synchronize()
    try:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(reps):
                fn()
            torch.cuda.synchronize()
        busy, names = 0.0, {}
        for event in prof.key_averages():
            us = getattr(event, "self_device_time_total", None)
            if us is None:
                us = event.self_cuda_time_total
            if us > 0:
                busy += us
                names[event.key] = names.get(event.key, 0.0) + us / reps
    except Exception as failure:  # noqa: BLE001 - profiler missing or refused
        return None, f"{type(failure).__name__}: {failure}".splitlines()[0]
    top = sorted(names.items(), key=lambda kv: -kv[1])[:3]
    return busy / reps, [[name[:80], round(us, 2)] for name, us in top]


def spearman(x, y):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        for rank, i in enumerate(order):
            r[i] = float(rank)
        return r
    n = len(x)
    if n < 2:
        return 1.0
    rx, ry = ranks(x), ranks(y)
    d2 = sum((a - b) ** 2 for a, b in zip(rx, ry))
    return 1.0 - 6.0 * d2 / (n * (n * n - 1))


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


# --------------------------------------------------------------------------
# One bundle
# --------------------------------------------------------------------------

class Case:
    """One workload's device tensors and reference."""

    def __init__(self, w, generator):
        dtype = {"f32": torch.float32, "f16": torch.float16,
                 "bf16": torch.bfloat16}[w["dtype"]]
        dev = "cuda"
        self.lhs = torch.randn(w["lhs"], device=dev, generator=generator).to(dtype)
        self.rhs = torch.randn(w["rhs"], device=dev, generator=generator).to(dtype)
        self.acc = torch.randn(w["out"], device=dev, generator=generator)
        # float64 for the products; convolutions in float32 with TF32 off
        # (cuDNN has no fast float64 path, and FTuner's shapes are TFLOPs):
        # its rounding, about 1e-6 relative, is far below the tolerance.
        ref_type = torch.float64 if "conv" not in w["op"] else torch.float32
        with tf32_disabled():
            self.ref = contraction(w, self.lhs.to(ref_type),
                                   self.rhs.to(ref_type))
        self.out = torch.empty_like(self.acc)

    def run(self, library):
        self.out.copy_(self.acc)
        # Quilt launches on its own stream: PyTorch's work on these tensors
        # (the random inputs, the reference, the poisoned output) must be
        # finished before the call reads or writes them.
        torch.cuda.synchronize()
        library(self.lhs, self.rhs, self.out)
        torch.cuda.synchronize()
        return relative_error(self.out, self.ref)


def run_bundle(bundle, args, generator):
    with open(os.path.join(bundle, "manifest.json")) as f:
        manifest = json.load(f)
    runtime = Runtime(bundle, manifest["runtime_libraries"])
    libraries, results, checks = {}, [], []
    workloads = manifest["workloads"]
    sample_every = max(1, len(workloads) // args.model_sample) if args.model_sample else 0

    for index, w in enumerate(workloads):
        r = {"workload": w["workload"], "ok": False, "chosen": w.get("chosen"),
             "predicted_us": w.get("predicted_us")}
        results.append(r)
        if not w.get("library"):
            r["error"] = "not compiled: " + w.get("error", "").strip().splitlines()[0]
            continue
        if args.max_gflop is not None and gflop(w) > args.max_gflop:
            r["skipped"] = f"{gflop(w):.0f} GFLOP > --max-gflop {args.max_gflop:g}"
            r["ok"] = None
            continue
        name = w["library"]
        if name not in libraries:
            libraries[name] = Library(os.path.join(bundle, name))
        library = libraries[name]
        runtime.take_error()
        case = Case(w, generator)
        error = case.run(library)
        failure = runtime.take_error()
        r["max_rel_error"] = error
        r["ok"] = failure is None and error <= tolerance(w.get("instruction"))
        if failure:
            r["error"] = failure
            continue
        if not r["ok"]:
            r["wrong_elements"] = wrong_elements(case)
        call = library.bind(case.lhs, case.rhs, case.out)
        r["quilt_us"] = median_wall_us(call, args.min_time)
        r["quilt_device_us"], r["quilt_device_detail"] = device_us(call)
        # cuBLAS in the math mode of Quilt's pick: tf32 only when Quilt's
        # candidate uses it (PyTorch's default for float32 is full f32).
        torch.backends.cuda.matmul.allow_tf32 = "tf32" in (w.get("instruction") or "")
        torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32
        baseline = lambda: contraction(w, case.lhs, case.rhs)
        r["cublas_us"] = median_event_us(baseline)
        r["cublas_device_us"], _ = device_us(baseline)
        r["cublas_sync_us"] = median_wall_us(baseline, args.min_time)
        if r["quilt_us"] > 0:
            r["vs_cublas"] = r["cublas_us"] / r["quilt_us"]
            r["vs_cublas_sync"] = r["cublas_sync_us"] / r["quilt_us"]
        if r.get("predicted_us"):
            r["measured_over_predicted"] = r["quilt_us"] / r["predicted_us"]
        if triton_matmul is not None and w["op"] in ("matmul", "batch_matmul"):
            time_triton(r, w, case)

        if sample_every and index % sample_every == 0 and len(checks) < args.model_sample \
                and w.get("candidates"):
            check = {"workload": w["workload"], "candidates": []}
            for i, c in enumerate(w["candidates"]):
                runtime.force_kernel(i)
                err = case.run(library)
                failure = runtime.take_error()
                us = median_wall_us(library.bind(case.lhs, case.rhs, case.out),
                                    args.min_time / 4)
                check["candidates"].append({
                    "config": c["config"], "predicted_us": c["predicted_us"],
                    "measured_us": us, "max_rel_error": err,
                    "ok": failure is None and err <= tolerance(c["config"]),
                    "error": failure})
            runtime.force_kernel(-1)
            measured = [c["measured_us"] for c in check["candidates"]]
            predicted = [c["predicted_us"] for c in check["candidates"]]
            check["spearman"] = spearman(predicted, measured)
            picked = measured[w["chosen_index"]]
            check["regret"] = picked / min(measured) - 1.0
            check["all_candidates_ok"] = all(c["ok"] for c in check["candidates"])
            checks.append(check)
        progress(index, len(workloads), r)

    return manifest, results, checks


def wrong_elements(case):
    """Where a wrong output is wrong: how many elements differ from the
    reference by more than 1e-3 of its largest magnitude, and the ranges of
    their indices per dimension (a tile, a row band, every element)."""
    out = case.out.to(case.ref.dtype)
    bad = ((out - case.ref).abs() > 1e-3 * case.ref.abs().max()) | ~torch.isfinite(out)
    where = bad.nonzero()
    summary = {"count": int(where.shape[0]), "of": int(bad.numel())}
    if where.shape[0]:
        summary["ranges"] = [[int(where[:, d].min()), int(where[:, d].max())]
                             for d in range(where.shape[1])]
    return summary


def progress(index, count, r):
    """One line per finished workload on stderr, flushed at once: a run cut
    short by a time limit or a hung kernel still leaves what it measured."""
    parts = [f"[{index + 1}/{count}] {r['workload']}:",
             "skipped" if r["ok"] is None else "ok" if r["ok"] else "WRONG"]
    for key, label in (("max_rel_error", "err {:.1e}"), ("quilt_us", "quilt {:.1f} us"),
                       ("quilt_device_us", "(device {:.1f} us)"),
                       ("cublas_us", "cublas {:.1f} us"), ("vs_cublas", "{:.2f}x"),
                       ("triton_us", "triton {:.1f} us")):
        if r.get(key) is not None:
            parts.append(label.format(r[key]))
    if r.get("error"):
        parts.append("error: " + r["error"])
    if r.get("quilt_device_detail"):
        parts.append(str(r["quilt_device_detail"]))
    if r.get("wrong_elements"):
        parts.append(f"wrong elements: {r['wrong_elements']}")
    print(" ".join(parts), file=sys.stderr, flush=True)


def time_triton(r, w, case):
    """Triton's time for the workload, once its product is checked (in the
    operands' dtype, like torch.matmul's: a sanity check, 1e-2); a failure
    is reported instead of a time."""
    allow_tf32 = "tf32" in (w.get("instruction") or "")
    product = lambda: triton_matmul.matmul(case.lhs, case.rhs, allow_tf32)
    try:
        error = relative_error(product(), case.ref)
    except Exception as failure:  # noqa: BLE001 - compile errors, bad configs
        r["triton_error"] = f"{type(failure).__name__}: {failure}".splitlines()[0]
        return
    if error > 1e-2:
        r["triton_error"] = f"wrong product (relative error {error:.1e})"
        return
    r["triton_us"] = median_event_us(product)
    r["triton_device_us"], _ = device_us(product)
    if r.get("quilt_us"):
        r["vs_triton"] = r["triton_us"] / r["quilt_us"]


def fmt(value, spec, missing="-"):
    return missing if value is None else format(value, spec)


def report(bundle, manifest, results, checks, device):
    lines = [f"## {os.path.basename(os.path.normpath(bundle))} on {device} "
             f"(target {manifest['target']}, {manifest['chip']})", "",
             "| workload | ok | rel. error | Quilt us | cuBLAS us | vs cuBLAS | "
             "vs cuBLAS (synced) | Triton us | vs Triton | chosen | predicted us | "
             "measured / predicted |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            r["workload"],
            "skipped" if r["ok"] is None else "yes" if r["ok"] else "**NO**",
            fmt(r.get("max_rel_error"), ".1e"), fmt(r.get("quilt_us"), ".1f"),
            fmt(r.get("cublas_us"), ".1f"), fmt(r.get("vs_cublas"), ".2f") + "x"
            if r.get("vs_cublas") else "-",
            fmt(r.get("vs_cublas_sync"), ".2f") + "x" if r.get("vs_cublas_sync") else "-",
            fmt(r.get("triton_us"), ".1f", "failed" if r.get("triton_error") else "-"),
            fmt(r.get("vs_triton"), ".2f") + "x" if r.get("vs_triton") else "-",
            r.get("skipped") or ("error: " + r["error"] if r.get("error")
                                 else r.get("chosen") or "-"),
            fmt(r.get("predicted_us"), ".1f"),
            fmt(r.get("measured_over_predicted"), ".2f")))
    lines.append("")
    for dtype in ("f32", "f16", "bf16"):
        ratios = [r["vs_cublas"] for r in results
                  if r.get("ok") and r.get("vs_cublas") and f" {dtype} " in r["workload"]]
        synced = [r["vs_cublas_sync"] for r in results
                  if r.get("ok") and r.get("vs_cublas_sync") and f" {dtype} " in r["workload"]]
        if ratios:
            lines.append(f"- {dtype}: geomean {geomean(ratios):.2f}x cuBLAS "
                         f"({geomean(synced):.2f}x against cuBLAS synchronized "
                         f"per call) over {len(ratios)} workloads")
        kernels = [r["cublas_device_us"] / r["quilt_device_us"] for r in results
                   if r.get("ok") and r.get("cublas_device_us") and r.get("quilt_device_us")
                   and f" {dtype} " in r["workload"]]
        if kernels:
            lines.append(f"- {dtype}: kernels alone (GPU busy time per call, CUPTI): "
                         f"geomean {geomean(kernels):.2f}x cuBLAS over {len(kernels)} workloads")
        vs_triton = [r["vs_triton"] for r in results
                     if r.get("ok") and r.get("vs_triton") and f" {dtype} " in r["workload"]]
        if vs_triton:
            lines.append(f"- {dtype}: geomean {geomean(vs_triton):.2f}x Triton "
                         f"over {len(vs_triton)} workloads")
    triton_failures = sorted({r["triton_error"] for r in results if r.get("triton_error")})
    for failure in triton_failures:
        lines.append(f"- Triton baseline failed: {failure}")
    wrong = [r["workload"] for r in results if r["ok"] is False]
    skipped = sum(1 for r in results if r["ok"] is None)
    ran = len(results) - skipped
    lines.append(f"- correct: {ran - len(wrong)} of {ran}"
                 + (f" ({skipped} skipped by --max-gflop)" if skipped else "")
                 + (f"; wrong or failed: {', '.join(wrong)}" if wrong else ""))
    for c in checks:
        lines.append(f"- model check {c['workload']}: spearman {c['spearman']:.2f}, "
                     f"regret {100 * c['regret']:.1f}%, every candidate correct: "
                     f"{'yes' if c['all_candidates_ok'] else 'NO'}")
    if checks:
        regret = geomean([1 + c["regret"] for c in checks]) - 1
        lines.append(f"- model check geomean regret {100 * regret:.1f}% over "
                     f"{len(checks)} workloads")
    return "\n".join(lines) + "\n"


def check_bundles(bundles):
    """Loads every bundle as run_bundle would, without calling anything."""
    for bundle in bundles:
        with open(os.path.join(bundle, "manifest.json")) as f:
            manifest = json.load(f)
        Runtime(bundle, manifest["runtime_libraries"])
        compiled = {w["library"] for w in manifest["workloads"] if w.get("library")}
        for name in sorted(compiled):
            Library(os.path.join(bundle, name))
        for w in manifest["workloads"]:
            if w.get("library") and "candidates" not in w:
                sys.exit(f"run.py: {bundle}: no model for {w['workload']}")
        refused = sum(1 for w in manifest["workloads"] if not w.get("library"))
        print(f"{bundle}: {manifest['target']} ({manifest['chip']}), "
              f"{len(manifest['workloads'])} workloads, libraries "
              f"{', '.join(sorted(compiled)) or 'none'}, {refused} not compiled")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundles", nargs="+", help="directories from quilt-bench --bundle")
    parser.add_argument("--model-sample", type=int, default=0,
                        help="run every candidate on N workloads of each bundle")
    parser.add_argument("--min-time", type=float, default=0.2,
                        help="seconds of timed calls per measurement (default 0.2)")
    parser.add_argument("--out", default=os.environ.get("OUT"),
                        help="where results go (default: $OUT, else each bundle)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-gflop", type=float, default=None,
                        help="skip (and list as skipped) larger workloads, to "
                             "fit a time limit")
    parser.add_argument("--check-only", action="store_true",
                        help="load the bundles without running them (no GPU needed)")
    args = parser.parse_args()
    if args.check_only:
        return check_bundles(args.bundles)
    global torch
    try:
        import torch as torch_module
    except ImportError:
        sys.exit("run.py: needs PyTorch with CUDA on the GPU machine")
    torch = torch_module
    if not torch.cuda.is_available():
        sys.exit("run.py: PyTorch sees no CUDA GPU here")
    global triton_matmul
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.dont_write_bytecode = True
    import triton_matmul as triton_module
    why_not = triton_module.available()
    if why_not:
        print(f"run.py: no Triton baseline ({why_not})", file=sys.stderr)
    else:
        triton_matmul = triton_module
    device = torch.cuda.get_device_name()
    generator = torch.Generator(device="cuda").manual_seed(args.seed)
    all_ok, summary = True, []
    for bundle in args.bundles:
        manifest, results, checks = run_bundle(bundle, args, generator)
        text = report(bundle, manifest, results, checks, device)
        name = os.path.basename(os.path.normpath(bundle))
        out = args.out or bundle
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump({"device": device, "target": manifest["target"],
                       "results": results, "model_check": checks}, f, indent=1)
        with open(os.path.join(out, f"{name}.md"), "w") as f:
            f.write(text)
        summary.append(text)
        all_ok &= all(r["ok"] is not False for r in results)
        all_ok &= all(c["all_candidates_ok"] for c in checks)
    print("\n".join(summary))
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
