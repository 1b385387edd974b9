"""Triton's matmul as a second GPU baseline for bench/gpu/run.py.

A blocked matmul in Triton's usual form (a program per output tile, grouped
along M for L2 reuse, K walked in BLOCK_K steps with masked loads, tl.dot
accumulating in f32), autotuned per problem size over a handful of tile
shapes, the way Triton users run it. batch_matmul runs one grid per batch
along a third program axis. float32 operands multiply in full precision
(input_precision="ieee") unless the caller asks for tf32, so the baseline
does the arithmetic Quilt's pick does.

`available()` says whether Triton imports and compiles here; run.py reports
the reason when it does not, and leaves the Triton columns empty.
"""

import torch

try:
    import triton
    import triton.language as tl
    _IMPORT_ERROR = None
except Exception as error:  # noqa: BLE001 - any failure means "no Triton"
    triton = None
    _IMPORT_ERROR = f"{type(error).__name__}: {error}"


def available():
    """None when Triton can be used, else why not."""
    return _IMPORT_ERROR


if triton is not None:
    def _configs():
        shapes = [(128, 128, 64, 4, 8), (128, 64, 32, 4, 4), (64, 128, 32, 4, 4),
                  (64, 64, 32, 4, 4), (128, 256, 64, 3, 8), (32, 64, 64, 4, 4)]
        return [triton.Config({"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k, "GROUP_M": 8},
                              num_stages=stages, num_warps=warps)
                for m, n, k, stages, warps in shapes]

    @triton.autotune(configs=_configs(), key=["M", "N", "K", "IEEE"])
    @triton.jit
    def _matmul_kernel(a, b, c, M, N, K,
                       stride_ab, stride_am, stride_ak,
                       stride_bb, stride_bk, stride_bn,
                       stride_cb, stride_cm, stride_cn,
                       IEEE: tl.constexpr, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       GROUP_M: tl.constexpr):
        # Program ids walk groups of GROUP_M tile rows column by column, so
        # consecutive programs share B's columns and A's rows in L2.
        pid = tl.program_id(0)
        batch = tl.program_id(1)
        tiles_m = tl.cdiv(M, BLOCK_M)
        tiles_n = tl.cdiv(N, BLOCK_N)
        per_group = GROUP_M * tiles_n
        first_m = (pid // per_group) * GROUP_M
        rows_in_group = tl.minimum(tiles_m - first_m, GROUP_M)
        tile_m = first_m + (pid % per_group) % rows_in_group
        tile_n = (pid % per_group) // rows_in_group

        rm = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
        rk = tl.arange(0, BLOCK_K)
        a_ptrs = a + batch * stride_ab + rm[:, None] * stride_am + rk[None, :] * stride_ak
        b_ptrs = b + batch * stride_bb + rk[:, None] * stride_bk + rn[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            k_in = (k0 + rk) < K
            tile_a = tl.load(a_ptrs, mask=(rm[:, None] < M) & k_in[None, :], other=0.0)
            tile_b = tl.load(b_ptrs, mask=k_in[:, None] & (rn[None, :] < N), other=0.0)
            if IEEE:
                acc = tl.dot(tile_a, tile_b, acc, input_precision="ieee")
            else:
                acc = tl.dot(tile_a, tile_b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c_ptrs = c + batch * stride_cb + rm[:, None] * stride_cm + rn[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(c.dtype.element_ty),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(lhs, rhs, allow_tf32=False):
    """lhs @ rhs (2-D, or batched 3-D) in the operands' dtype, by Triton."""
    batched = lhs.dim() == 3
    a = lhs if batched else lhs.unsqueeze(0)
    b = rhs if batched else rhs.unsqueeze(0)
    batches, m, k = a.shape
    n = b.shape[2]
    c = torch.empty((batches, m, n), device=a.device, dtype=a.dtype)
    if m == 0 or n == 0 or batches == 0:
        return c if batched else c[0]
    if k == 0:
        c.zero_()
        return c if batched else c[0]
    ieee = a.dtype == torch.float32 and not allow_tf32

    def grid(meta):
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]), batches)

    _matmul_kernel[grid](a, b, c, m, n, k,
                         a.stride(0), a.stride(1), a.stride(2),
                         b.stride(0), b.stride(1), b.stride(2),
                         c.stride(0), c.stride(1), c.stride(2), IEEE=ieee)
    return c if batched else c[0]
