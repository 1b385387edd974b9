"""The cost model's resource estimate for a compiled kernel (registers,
workgroup memory, blocks per compute unit), looked up through `quiltc
explain --json`, for the resource checks of the ptxas and AMDGPU ISA
tests."""

import json
import re
import subprocess

# A kernel's name spells its configuration, operand types and op:
# quilt_<inst>_<MxNxK>_t<threads>_w<MxN>_tt<MxN>_v<width>_<ab>_<c>[_<op details>].
KERNEL_NAME = re.compile(r"quilt_(\w+?)_(\d+)x(\d+)x(\d+)_t(\d+)_w(\d+)x(\d+)"
                         r"_tt(\d+)x(\d+)_v(\d+)_([a-z0-9]+)_[a-z0-9]+(_\w+)?$")
# One workload per op: the candidates and their estimates depend on the op,
# the operand type and the target, not on the shape.
WORKLOADS = [
    ("_batch", "batch_matmul %s B=4 M=1000 N=1000 K=1000"),
    ("_conv2d_nhwc", "conv2d_nhwc %s N=16 H=64 W=64 C=64 F=64 R=3 S=3 stride=1 pad=1"),
    ("_conv2d_nchw", "conv2d_nchw %s N=16 H=64 W=64 C=64 F=64 R=3 S=3 stride=1 pad=1"),
    ("", "matmul %s M=1000 N=1000 K=1000"),
]
_estimates_by_workload = {}
# The kernels that are no candidate: the copies of operands whose rows are
# not 16-byte aligned (OperandRepack.cpp), quilt_repack_<elem>_<rank>d.
HELPER_KERNEL = re.compile(r"quilt_repack_[a-z0-9]+_[23]d$")


def is_helper_kernel(name):
    """Whether a kernel is one of the code generator's helpers, which the
    model does not estimate (it has no configuration)."""
    return HELPER_KERNEL.match(name) is not None


def estimated_registers(quiltc, target, name):
    """The registers explain estimates for the candidate a kernel compiles."""
    resources = estimated_resources(quiltc, target, name)
    return None if resources is None else resources["registers_per_thread"]


def estimated_resources(quiltc, target, name):
    """explain's resources (registers_per_thread, shared_mem_bytes,
    blocks_per_cu) for the candidate a kernel compiles, or None."""
    match = KERNEL_NAME.match(name)
    if not match:
        return None
    inst, *knobs, ab, details = match.groups()
    # A split-K kernel (`_sk`) compiles the split-K candidates of its
    # configuration, a stream-K kernel (`_streamk`) the stream-K ones: their
    # workgroup memory holds the fixup's word too, and their registers the
    # fixup's (and the persistent loop's) state.
    splits = re.search(r"_sk(_|$)", details or "") is not None
    streams = re.search(r"_streamk(_|$)", details or "") is not None
    workload = next(text for marker, text in WORKLOADS
                    if marker in (details or "")) % ab
    if workload not in _estimates_by_workload:
        # --top 0 lists every candidate.
        result = subprocess.run(
            [quiltc, "explain", "--target", target, "--json", "--top", "0", workload],
            capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit("quiltc explain failed for '%s': %s"
                             % (workload, result.stderr.strip()))
        report = json.loads(result.stdout)
        _estimates_by_workload[workload] = {
            tuple(str(c["config"][key]) for key in
                  ("inst", "tile_m", "tile_n", "tile_k", "threads", "warps_m",
                   "warps_n", "thread_tile_m", "thread_tile_n", "vector_width"))
            + (c["config"]["split_k"] > 1, c["config"]["stream_k"] > 0):
            c["resources"] for c in report["candidates"]}
    return _estimates_by_workload[workload].get((inst, *knobs, splits,
                                                 streams))
