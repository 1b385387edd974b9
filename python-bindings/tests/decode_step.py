"""A small transformer decode step written the way model exporters write
one (Buddy Compiler's DeepSeek-R1 decode graph): linalg on tensors for the
products and norms, the KV-cache update as memref stores through
`bufferization.to_buffer`, and a hand-written flash-decoding loop that reads
the caches through the same buffers with `memref.load`. Two layers of
RMSNorm, Q/K/V projections, RoPE, cache update, attention, output
projection and residual, RMSNorm and a SiLU-gated FFN; then a final RMSNorm
and the vocabulary projection.

`decode_step_mlir()` is the MLIR text of `@decode_step`; `reference()`
computes the same step in NumPy (float64). test_decode_step.py compiles the
text with Quilt and compares the two."""

import numpy as np

DIM = 32          # hidden size
HEADS = 2
HEAD_DIM = DIM // HEADS
FFN = 64
VOCAB = 48
CACHE = 16        # cache rows: positions 0 .. CACHE - 1
LAYERS = 2
EPS = 1e-5
ROPE_BASE = 10000.0

LAYER_WEIGHTS = [("attn_norm", (DIM,)), ("wq", (DIM, DIM)), ("wk", (DIM, DIM)),
                 ("wv", (DIM, DIM)), ("wo", (DIM, DIM)), ("ffn_norm", (DIM,)),
                 ("w_gate", (DIM, FFN)), ("w_up", (DIM, FFN)),
                 ("w_down", (FFN, DIM))]
FINAL_WEIGHTS = [("final_norm", (DIM,)), ("lm_head", (DIM, VOCAB))]


def tensor_type(shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def argument_names():
    """(name, shape) of @decode_step's tensor arguments after %x and %pos,
    in order: every layer's weights, the final weights, then each layer's K
    and V caches."""
    args = [(f"l{l}_{n}", s) for l in range(LAYERS) for n, s in LAYER_WEIGHTS]
    args += FINAL_WEIGHTS
    for l in range(LAYERS):
        args += [(f"l{l}_kcache", (CACHE, DIM)), (f"l{l}_vcache", (CACHE, DIM))]
    return args


class Emitter:
    """Writes the function body one op at a time with fresh SSA names."""

    def __init__(self):
        self.lines = []
        self.count = 0

    def fresh(self, stem):
        self.count += 1
        return f"%{stem}{self.count}"

    def op(self, text, stem="v"):
        name = self.fresh(stem)
        self.lines.append(f"    {name} = {text}")
        return name

    def raw(self, text):
        self.lines.append("    " + text)

    def zeros(self, shape):
        empty = self.op(f"tensor.empty() : {tensor_type(shape)}", "empty")
        return self.op(f"linalg.fill ins(%zero : f32) outs({empty} : "
                       f"{tensor_type(shape)}) -> {tensor_type(shape)}", "init")

    def matmul(self, a, a_shape, w, w_shape):
        out = (a_shape[0], w_shape[1])
        init = self.zeros(out)
        return self.op(
            f"linalg.matmul ins({a}, {w} : {tensor_type(a_shape)}, "
            f"{tensor_type(w_shape)}) outs({init} : {tensor_type(out)}) -> "
            f"{tensor_type(out)}", "mm")

    def elementwise(self, inputs, body, stem):
        """A generic over 1 x DIM (or 1 x FFN) operands; `body` maps the
        block arguments' names to its ops' text and yields the last."""
        shape = inputs[0][1]
        empty = self.op(f"tensor.empty() : {tensor_type(shape)}", "empty")
        maps = ", ".join(["#id"] * (len(inputs) + 1))
        ins = ", ".join(v for v, _ in inputs)
        types = ", ".join(tensor_type(s) for _, s in inputs)
        args = ", ".join(f"%in{i}: f32" for i in range(len(inputs)))
        result = self.op(
            f"linalg.generic {{indexing_maps = [{maps}], iterator_types = "
            f"[\"parallel\", \"parallel\"]}} ins({ins} : {types}) outs({empty} : "
            f"{tensor_type(shape)}) {{\n    ^bb0({args}, %out: f32):\n"
            + "".join(f"      {line}\n" for line in body)
            + f"    }} -> {tensor_type(shape)}", stem)
        return result

    def rmsnorm(self, x, gain):
        ss = self.zeros((1,))
        ss = self.op(
            "linalg.generic {indexing_maps = [#id, #rows], iterator_types = "
            "[\"parallel\", \"reduction\"]} ins(" + x + " : " +
            tensor_type((1, DIM)) + ") outs(" + ss + " : tensor<1xf32>) {\n"
            "    ^bb0(%a: f32, %acc: f32):\n"
            "      %sq = arith.mulf %a, %a : f32\n"
            "      %s = arith.addf %acc, %sq : f32\n"
            "      linalg.yield %s : f32\n"
            "    } -> tensor<1xf32>", "sumsq")
        empty = self.op(f"tensor.empty() : {tensor_type((1, DIM))}", "empty")
        return self.op(
            "linalg.generic {indexing_maps = [#id, #rows, #cols, #id], "
            "iterator_types = [\"parallel\", \"parallel\"]} ins(" + x + ", " + ss
            + ", " + gain + " : " + tensor_type((1, DIM)) + ", tensor<1xf32>, "
            + tensor_type((DIM,)) + ") outs(" + empty + " : " +
            tensor_type((1, DIM)) + ") {\n"
            "    ^bb0(%a: f32, %s: f32, %g: f32, %o: f32):\n"
            "      %mean = arith.divf %s, %dim : f32\n"
            "      %e = arith.addf %mean, %eps : f32\n"
            "      %r = math.rsqrt %e : f32\n"
            "      %n = arith.mulf %a, %r : f32\n"
            "      %y = arith.mulf %n, %g : f32\n"
            "      linalg.yield %y : f32\n"
            f"    }} -> {tensor_type((1, DIM))}", "norm")

    def rope(self, x):
        """Rotate-half RoPE at position %pos over each head's HEAD_DIM."""
        empty = self.op(f"tensor.empty() : {tensor_type((1, DIM))}", "empty")
        half = HEAD_DIM // 2
        return self.op(
            "linalg.generic {indexing_maps = [#id], iterator_types = "
            "[\"parallel\", \"parallel\"]} outs(" + empty + " : " +
            tensor_type((1, DIM)) + ") {\n"
            "    ^bb0(%o: f32):\n"
            "      %i = linalg.index 0 : index\n"
            "      %j = linalg.index 1 : index\n"
            f"      %d = arith.remui %j, %c{HEAD_DIM} : index\n"
            f"      %first = arith.cmpi ult, %d, %c{half} : index\n"
            f"      %up = arith.addi %j, %c{half} : index\n"
            f"      %down = arith.subi %j, %c{half} : index\n"
            "      %partner = arith.select %first, %up, %down : index\n"
            f"      %xj = tensor.extract {x}[%i, %j] : {tensor_type((1, DIM))}\n"
            f"      %xp = tensor.extract {x}[%i, %partner] : {tensor_type((1, DIM))}\n"
            "      %neg = arith.negf %xp : f32\n"
            "      %rot = arith.select %first, %neg, %xp : f32\n"
            f"      %f = arith.remui %d, %c{half} : index\n"
            "      %fi = arith.index_cast %f : index to i64\n"
            "      %ff = arith.sitofp %fi : i64 to f32\n"
            "      %ex = arith.mulf %ff, %rope_step : f32\n"
            "      %inv = math.exp %ex : f32\n"
            "      %ang = arith.mulf %posf, %inv : f32\n"
            "      %cos = math.cos %ang : f32\n"
            "      %sin = math.sin %ang : f32\n"
            "      %a = arith.mulf %xj, %cos : f32\n"
            "      %b = arith.mulf %rot, %sin : f32\n"
            "      %y = arith.addf %a, %b : f32\n"
            "      linalg.yield %y : f32\n"
            f"    }} -> {tensor_type((1, DIM))}", "rope")

    def update_cache(self, cache, row):
        """Stores `row` at %pos through the cache's buffer; returns the
        buffer and the updated cache as a tensor."""
        memref = f"memref<{CACHE}x{DIM}xf32>"
        buffer = self.op(f"bufferization.to_buffer {cache} : "
                         f"{tensor_type((CACHE, DIM))} to {memref}", "buf")
        self.raw(f"scf.for %j = %c0 to %c{DIM} step %c1 {{")
        self.raw(f"  %e = tensor.extract {row}[%c0, %j] : {tensor_type((1, DIM))}")
        self.raw(f"  memref.store %e, {buffer}[%pos, %j] : {memref}")
        self.raw("}")
        updated = self.op(f"bufferization.to_tensor {buffer} restrict : "
                          f"{memref} to {tensor_type((CACHE, DIM))}", "cache")
        return buffer, updated

    def flash_decode(self, q, kbuf, vbuf):
        """Online-softmax attention of q over cache rows 0 .. %pos, one
        head at a time, reading both caches through their buffers."""
        memref = f"memref<{CACHE}x{DIM}xf32>"
        acc = self.op("memref.alloc() : memref<1x%dxf32>" % DIM, "acc")
        n = self.op("arith.addi %pos, %c1 : index", "rows")
        self.raw(f"scf.for %h = %c0 to %c{HEADS} step %c1 {{")
        self.raw(f"  %base = arith.muli %h, %c{HEAD_DIM} : index")
        self.raw(f"  scf.for %d = %c0 to %c{HEAD_DIM} step %c1 {{")
        self.raw("    %col = arith.addi %base, %d : index")
        self.raw(f"    memref.store %zero, {acc}[%c0, %col] : memref<1x{DIM}xf32>")
        self.raw("  }")
        self.raw(f"  %ml:2 = scf.for %t = %c0 to {n} step %c1 "
                 "iter_args(%m = %neginf, %l = %zero) -> (f32, f32) {")
        self.raw(f"    %dot = scf.for %d = %c0 to %c{HEAD_DIM} step %c1 "
                 "iter_args(%s = %zero) -> f32 {")
        self.raw("      %col = arith.addi %base, %d : index")
        self.raw(f"      %qd = tensor.extract {q}[%c0, %col] : {tensor_type((1, DIM))}")
        self.raw(f"      %kd = memref.load {kbuf}[%t, %col] : {memref}")
        self.raw("      %p = arith.mulf %qd, %kd : f32")
        self.raw("      %s2 = arith.addf %s, %p : f32")
        self.raw("      scf.yield %s2 : f32")
        self.raw("    }")
        self.raw("    %score = arith.mulf %dot, %scale : f32")
        self.raw("    %mnew = arith.maximumf %m, %score : f32")
        self.raw("    %dm = arith.subf %m, %mnew : f32")
        self.raw("    %alpha = math.exp %dm : f32")
        self.raw("    %ds = arith.subf %score, %mnew : f32")
        self.raw("    %w = math.exp %ds : f32")
        self.raw("    %la = arith.mulf %l, %alpha : f32")
        self.raw("    %lnew = arith.addf %la, %w : f32")
        self.raw(f"    scf.for %d = %c0 to %c{HEAD_DIM} step %c1 {{")
        self.raw("      %col = arith.addi %base, %d : index")
        self.raw(f"      %a = memref.load {acc}[%c0, %col] : memref<1x{DIM}xf32>")
        self.raw(f"      %vd = memref.load {vbuf}[%t, %col] : {memref}")
        self.raw("      %aa = arith.mulf %a, %alpha : f32")
        self.raw("      %wv = arith.mulf %w, %vd : f32")
        self.raw("      %an = arith.addf %aa, %wv : f32")
        self.raw(f"      memref.store %an, {acc}[%c0, %col] : memref<1x{DIM}xf32>")
        self.raw("    }")
        self.raw("    scf.yield %mnew, %lnew : f32, f32")
        self.raw("  }")
        self.raw(f"  scf.for %d = %c0 to %c{HEAD_DIM} step %c1 {{")
        self.raw("    %col = arith.addi %base, %d : index")
        self.raw(f"    %a = memref.load {acc}[%c0, %col] : memref<1x{DIM}xf32>")
        self.raw("    %o = arith.divf %a, %ml#1 : f32")
        self.raw(f"    memref.store %o, {acc}[%c0, %col] : memref<1x{DIM}xf32>")
        self.raw("  }")
        self.raw("}")
        attn = self.op(f"bufferization.to_tensor {acc} restrict : "
                       f"memref<1x{DIM}xf32> to {tensor_type((1, DIM))}", "attn")
        return acc, attn


def decode_step_mlir():
    """The MLIR text of @decode_step(%x, %pos, weights..., caches...) ->
    (logits, caches...)."""
    e = Emitter()
    args = argument_names()
    w = {name: f"%{name}" for name, _ in args}
    row = (1, DIM)
    x = "%x"
    temporaries, caches = [], []
    for l in range(LAYERS):
        p = f"l{l}_"
        h = e.rmsnorm(x, w[p + "attn_norm"])
        q = e.rope(e.matmul(h, row, w[p + "wq"], (DIM, DIM)))
        k = e.rope(e.matmul(h, row, w[p + "wk"], (DIM, DIM)))
        v = e.matmul(h, row, w[p + "wv"], (DIM, DIM))
        kbuf, kcache = e.update_cache(w[p + "kcache"], k)
        vbuf, vcache = e.update_cache(w[p + "vcache"], v)
        caches += [kcache, vcache]
        acc, attn = e.flash_decode(q, kbuf, vbuf)
        temporaries.append(acc)
        o = e.matmul(attn, row, w[p + "wo"], (DIM, DIM))
        x = e.elementwise([(o, row), (x, row)],
                          ["%r = arith.addf %in0, %in1 : f32",
                           "linalg.yield %r : f32"], "resid")
        h = e.rmsnorm(x, w[p + "ffn_norm"])
        gate = e.matmul(h, row, w[p + "w_gate"], (DIM, FFN))
        up = e.matmul(h, row, w[p + "w_up"], (DIM, FFN))
        act = e.elementwise([(gate, (1, FFN)), (up, (1, FFN))],
                            ["%ng = arith.negf %in0 : f32",
                             "%ex = math.exp %ng : f32",
                             "%den = arith.addf %ex, %one : f32",
                             "%silu = arith.divf %in0, %den : f32",
                             "%r = arith.mulf %silu, %in1 : f32",
                             "linalg.yield %r : f32"], "act")
        down = e.matmul(act, (1, FFN), w[p + "w_down"], (FFN, DIM))
        x = e.elementwise([(down, row), (x, row)],
                          ["%r = arith.addf %in0, %in1 : f32",
                           "linalg.yield %r : f32"], "resid")
    h = e.rmsnorm(x, w["final_norm"])
    logits = e.matmul(h, row, w["lm_head"], (DIM, VOCAB))
    for acc in temporaries:
        e.raw(f"memref.dealloc {acc} : memref<1x{DIM}xf32>")

    params = ", ".join([f"%x: {tensor_type(row)}", "%pos: index"] +
                       [f"%{name}: {tensor_type(shape)}" for name, shape in args])
    results = ", ".join([tensor_type((1, VOCAB))] +
                        [tensor_type((CACHE, DIM))] * len(caches))
    rope_step = -2.0 * np.log(ROPE_BASE) / HEAD_DIM
    constants = [
        "%zero = arith.constant 0.0 : f32",
        "%one = arith.constant 1.0 : f32",
        f"%dim = arith.constant {float(DIM):.9e} : f32",
        f"%eps = arith.constant {EPS:.9e} : f32",
        f"%scale = arith.constant {1.0 / np.sqrt(HEAD_DIM):.9e} : f32",
        f"%rope_step = arith.constant {rope_step:.9e} : f32",
        "%neginf = arith.constant 0xFF800000 : f32",
        "%c0 = arith.constant 0 : index",
        "%c1 = arith.constant 1 : index",
    ] + [f"%c{c} = arith.constant {c} : index"
         for c in sorted({HEAD_DIM, HEAD_DIM // 2, HEADS, DIM})]
    constants += ["%posi = arith.index_cast %pos : index to i64",
                  "%posf = arith.sitofp %posi : i64 to f32"]
    body = "\n".join("    " + c for c in constants) + "\n" + "\n".join(e.lines)
    return ("#id = affine_map<(i, j) -> (i, j)>\n"
            "#rows = affine_map<(i, j) -> (i)>\n"
            "#cols = affine_map<(i, j) -> (j)>\n"
            f"func.func @decode_step({params}) -> ({results}) {{\n"
            f"{body}\n"
            f"    return {', '.join([logits] + caches)} : {results}\n"
            "}\n")


def random_inputs(rng, pos):
    """%x and the tensor arguments: weights scaled so that activations stay
    near 1, caches random in every row (rows past %pos must not matter)."""
    x = rng.standard_normal((1, DIM)).astype(np.float32)
    values = []
    for name, shape in argument_names():
        if name.endswith("norm"):
            values.append(rng.uniform(0.5, 1.5, size=shape).astype(np.float32))
        elif name.endswith("cache"):
            values.append(rng.standard_normal(shape).astype(np.float32))
        else:
            values.append((rng.standard_normal(shape) /
                           np.sqrt(shape[0])).astype(np.float32))
    return x, values


def reference(x, pos, values):
    """The decode step in float64: (logits, updated caches...)."""
    named = {name: v.astype(np.float64)
             for (name, _), v in zip(argument_names(), values)}

    def rmsnorm(v, gain):
        return v / np.sqrt((v * v).mean() + EPS) * gain

    def rope(v):
        out = np.empty_like(v)
        half = HEAD_DIM // 2
        inv = np.exp(np.arange(half) * (-2.0 * np.log(ROPE_BASE) / HEAD_DIM))
        cos, sin = np.cos(pos * inv), np.sin(pos * inv)
        for h in range(HEADS):
            a = v[0, h * HEAD_DIM:h * HEAD_DIM + half]
            b = v[0, h * HEAD_DIM + half:(h + 1) * HEAD_DIM]
            out[0, h * HEAD_DIM:h * HEAD_DIM + half] = a * cos - b * sin
            out[0, h * HEAD_DIM + half:(h + 1) * HEAD_DIM] = b * cos + a * sin
        return out

    h = x.astype(np.float64)
    caches = []
    for l in range(LAYERS):
        p = {k[len(f"l{l}_"):]: v for k, v in named.items()
             if k.startswith(f"l{l}_")}
        n = rmsnorm(h, p["attn_norm"])
        q, k, v = rope(n @ p["wq"]), rope(n @ p["wk"]), n @ p["wv"]
        kc, vc = p["kcache"].copy(), p["vcache"].copy()
        kc[pos], vc[pos] = k[0], v[0]
        caches += [kc, vc]
        attn = np.empty((1, DIM))
        for head in range(HEADS):
            cols = slice(head * HEAD_DIM, (head + 1) * HEAD_DIM)
            scores = kc[:pos + 1, cols] @ q[0, cols] / np.sqrt(HEAD_DIM)
            weights = np.exp(scores - scores.max())
            attn[0, cols] = weights @ vc[:pos + 1, cols] / weights.sum()
        h = h + attn @ p["wo"]
        n = rmsnorm(h, p["ffn_norm"])
        gate, up = n @ p["w_gate"], n @ p["w_up"]
        h = h + (gate / (1 + np.exp(-gate)) * up) @ p["w_down"]
    logits = rmsnorm(h, named["final_norm"]) @ named["lm_head"]
    return (logits, *caches)
