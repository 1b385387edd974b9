#!/usr/bin/env python3
"""What one call of a compiled GPU function costs on the host, entry by entry.

    python3 bench/gpu/host_costs.py BUNDLE [--calls N]

run.py reports a call's wall time minus its kernels' busy time; this splits
that difference. It loads the GPU runtime of BUNDLE (from quilt-bench
--bundle) and times, each as the median of N calls through ctypes, the
entry points the compiled host code calls on every launch: acquiring and
releasing a stream (pooled), synchronizing an idle stream, and encoding a
tensor map that is already cached. Beside them, two floors measured in the
same process: a ctypes call that does nothing on the device (what Python
adds to every figure here), and PyTorch's smallest kernel launch followed
by a synchronization (what this machine's driver and VM cost for one launch
and one wait, whoever launches).
"""

import argparse
import ctypes
import json
import os
import statistics
import sys
import time


def median_us(function, calls):
    """Median wall time of `function()` over `calls` calls, after warm-up."""
    for _ in range(min(calls, 100)):
        function()
    samples = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        function()
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples) / 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", help="a directory from quilt-bench --bundle")
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()

    with open(os.path.join(args.bundle, "manifest.json")) as f:
        manifest = json.load(f)
    # The host runtime first: the GPU runtime links against it.
    libraries = [ctypes.CDLL(os.path.join(args.bundle, name),
                             mode=ctypes.RTLD_GLOBAL)
                 for name in manifest["runtime_libraries"]]
    gpu_runtime = os.path.join(args.bundle, manifest["runtime_libraries"][-1])
    gpu = libraries[-1]
    gpu.mgpuStreamCreate.restype = ctypes.c_void_p
    gpu.mgpuStreamSynchronize.argtypes = [ctypes.c_void_p]
    gpu.mgpuStreamDestroy.argtypes = [ctypes.c_void_p]
    gpu.quilt_gpu_status.restype = ctypes.c_int32
    gpu.quilt_gpu_first_error.restype = ctypes.c_char_p
    gpu.quilt_gpu_tile_map.restype = ctypes.c_int32
    gpu.quilt_gpu_tile_map.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_int64] * 8

    import torch
    tile = torch.empty(1024, 1024, dtype=torch.float16, device="cuda")
    scalar = torch.zeros(1, device="cuda")

    def stream_cycle():
        gpu.mgpuStreamDestroy(gpu.mgpuStreamCreate())

    stream = gpu.mgpuStreamCreate()

    def idle_synchronize():
        gpu.mgpuStreamSynchronize(stream)

    f16 = 6  # CUtensorMapDataType's FLOAT16, as the compiled code passes it

    # What every TMA launch does on the host: encode two of these.
    map_bytes = 128  # QUILT_GPU_TENSOR_MAP_BYTES, and its alignment
    map_storage = ctypes.create_string_buffer(2 * map_bytes)
    map_buffer = (ctypes.addressof(map_storage) + map_bytes - 1) \
        // map_bytes * map_bytes

    def encode_tile_map():
        gpu.quilt_gpu_tile_map(map_buffer, tile.data_ptr(), f16, 1, 1024,
                               1024, 0, 1024, 64, 64)

    def torch_launch_and_wait():
        scalar.add_(1)
        torch.cuda.synchronize()

    rows = [
        ("ctypes call, no device work (quilt_gpu_status)", gpu.quilt_gpu_status),
        ("stream acquire + release (mgpuStreamCreate/Destroy)", stream_cycle),
        ("synchronize an idle stream (mgpuStreamSynchronize)", idle_synchronize),
        ("tensor map encoded on the host (quilt_gpu_tile_map)", encode_tile_map),
        ("PyTorch: smallest kernel + torch.cuda.synchronize", torch_launch_and_wait),
    ]
    print(f"host costs, median of {args.calls} calls ({gpu_runtime}):")
    print("| entry | us per call |")
    print("|---|---|")
    for name, function in rows:
        print(f"| {name} | {median_us(function, args.calls):.2f} |")
    gpu.mgpuStreamDestroy(stream)
    if gpu.quilt_gpu_status() != 0:
        print("runtime failure:", gpu.quilt_gpu_first_error().decode())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
