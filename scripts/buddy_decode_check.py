#!/usr/bin/env python3
"""Compile a model function (by default Buddy Compiler's DeepSeek-R1-Distill-
Qwen-1.5B decode step, @subgraph0_decode) with Quilt's host pipeline and with
the upstream-MLIR host pipeline, run both under mlir-runner on the same
deterministic inputs, and compare the logits.

    buddy_decode_check.py MODEL.mlir [--function NAME] [--token 100] [--pos 7]
        [--emit-only OUT.mlir] [--quilt-opt PATH] [--runner PATH]
        [--timeout S] [--scale 0.02] [--logits-result K]
        [--only quilt|upstream] [--keep DIR] [--verbose]

What the script does
  1. Reads the signature of @NAME (the `func.func @NAME(...) -> (...)` text,
     however long) and parses every argument and result type: ranked static
     tensors `tensor<AxBx...xT>` (0-d `tensor<T>` too) and scalars
     (`index`, iN, floats). Dynamic dimensions are rejected.
  2. Appends a `func.func @main()` to the module (inside the explicit
     `module { ... }` when the file has one, before its last `}`; else at the
     end) that builds every argument on tensors and calls @NAME:
       * float tensors: linalg.generic + linalg.index, element
             SCALE * sin(phase),  phase in [-pi, pi)
         where phase is a hash of the integer  a*i0 + b*i1 + c*i2 + ... +
         e*(argindex + 1)  (a, b, ... distinct primes). Why hashed and not
         sin of the linear form itself: sin(a*i + b*j) = sin(a i)cos(b j) +
         cos(a i)sin(b j) makes every weight matrix rank 2, so the logits
         would be a pure sinusoid over the vocabulary and the arg-max a
         near-tie; and a large f32 argument to sin would make the inputs
         depend on each pipeline's sin argument reduction. The hash is exact
         i64 arithmetic (identical in both pipelines) and sin only sees
         [-pi, pi). Computed in f32, converted for f16/bf16/f64.
       * integer tensors: every one gets --pos, except a 1x1 integer tensor
         (the first one), which gets --token. In Buddy's decode graph %arg1
         (tensor<1x1xi64>) is the input token id (trunci'd and used to
         gather a row of the embedding %arg0); %arg3 (tensor<1xi64>) is the
         cache position (RoPE angle via sitofp, the causal mask `pos >=
         j`, and the row index of the KV-cache stores); %arg2 (tensor<1xi64>)
         is not used by the graph. So "1x1 -> token, other ints -> pos" is
         exactly right for it, and needs no graph inspection.
       * scalars: `index` and integer scalars get --pos (the small
         python-bindings/tests/decode_step.py model takes `%pos: index`);
         float scalars get 0.5.
  3. After the call, prints (integers and f32 via the runner utils' printI64
     / printF32 / printF64, which print 6 significant digits, so each value
     is also printed as its exact bit pattern) for the logits result L (the
     one float tensor result whose type no other result has, else result 0,
     or --logits-result L; Buddy's decode returns the 56 updated KV caches
     first and the logits tensor<1x1x151936xf32> last):
       -424242, ARGMAX_INDEX, ARGMAX_VALUE, ARGMAX_VALUE_BITS
       -424243, v0, ..., v7          first 8 values of result L (flattened)
       -424244, bits(v0), ..., bits(v7)
       -424245, K, SUM, SUM_BITS     for every other result K: the f64 sum of
                                     all its elements (KV-cache checksums)
  4. Without --emit-only: writes the module into a temporary directory,
     lowers it with `quilt-opt --quilt-lower-to-host="target=host"` and
     with `quilt-opt --quilt-lower-to-host-upstream`, runs each with
     mlir-runner (-e main -entry-point-result=void, runner utils + Quilt
     runtime), strictly one after the other (the 1.5B model's f32 weights
     are ~7 GB), timing lowering and running and recording each child's peak
     RSS. Prints both outputs side by side (a table: quilt, upstream,
     relative difference; --verbose adds the runners' raw lines) and the
     verdict.

Verdict and exit status
  The logits compared are the arg-max value and the first 8 values (from
  their exact bits). rel = max_i |q_i - u_i| / max_i max(|q_i|, |u_i|), i.e.
  the largest difference relative to the largest printed logit magnitude (an
  elementwise relative difference would blow up on logits near zero; it is
  printed too, for information). Checksums are shown with their relative
  difference, for information. Exit 0: same arg-max index and rel <= 1e-3;
  exit 1: arg-max differs or rel > 1e-3; exit 2: a lowering or run failed
  or timed out (or the outputs could not be parsed). --emit-only exits 0.
"""

import argparse
import math
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

LLVM = "/usr/lib/llvm-22"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_QUILT_OPT = os.path.join(ROOT, "build", "bin", "quilt-opt")
DEFAULT_RUNNER = os.path.join(LLVM, "bin", "mlir-runner")
SHARED_LIBS = [os.path.join(LLVM, "lib", "libmlir_c_runner_utils.so"),
               os.path.join(LLVM, "lib", "libmlir_runner_utils.so"),
               os.path.join(ROOT, "build", "lib", "libquilt_runtime.so")]
PIPELINES = [("quilt", ['--quilt-lower-to-host=target=host']),
             ("upstream", ['--quilt-lower-to-host-upstream'])]

TAG_ARGMAX, TAG_VALUES, TAG_BITS, TAG_SUM = -424242, -424243, -424244, -424245
FIRST = 8
# Distinct primes: multipliers of the indices d0, d1, ... and of the argument
# number in the phase's linear form.
DIM_PRIMES = [7919, 104729, 1299709, 15485863, 179424673, 2038074743,
              982451653, 32452843]
ARG_PRIME = 2147483629

FLOATS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


# ----------------------------------------------------------------- parsing

class Type:
    """A parsed MLIR type: a ranked static tensor or a scalar."""

    def __init__(self, text, shape, elem, is_tensor):
        self.text, self.shape, self.elem, self.is_tensor = \
            text, shape, elem, is_tensor

    @property
    def numel(self):
        return math.prod(self.shape)

    def __repr__(self):
        return self.text


def split_top(text, sep=","):
    """Split at `sep` outside <>, (), [] and {} (not counting the '>' of
    '->')."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "<([{":
            depth += 1
        elif ch in ")]}" or (ch == ">" and text[i - 1:i] != "-"):
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def matching(text, open_at):
    """Index of the bracket closing the one at text[open_at]."""
    pairs = {"(": ")", "<": ">", "[": "]", "{": "}"}
    stack = [pairs[text[open_at]]]
    i = open_at + 1
    while i < len(text):
        ch = text[i]
        if ch in pairs:
            stack.append(pairs[ch])
        elif ch in ")>]}":
            if ch == ">" and text[i - 1] == "-":
                i += 1
                continue
            if ch != stack[-1]:
                raise ValueError(f"unbalanced '{ch}' at offset {i}")
            stack.pop()
            if not stack:
                return i
        i += 1
    raise ValueError("unterminated bracket")


def leading_type(text):
    """The type at the start of `text` (drops trailing attributes/locs)."""
    text = text.strip()
    m = re.match(r"(tensor|memref|vector|complex)<", text)
    if m:
        return text[:matching(text, m.end() - 1) + 1]
    m = re.match(r"[A-Za-z_][\w.]*", text)
    if not m:
        raise ValueError(f"cannot read a type from '{text[:60]}'")
    return m.group(0)


def parse_type(text):
    if text.startswith("tensor<"):
        inner = split_top(text[len("tensor<"):-1])[0]  # drop an encoding
        m = re.fullmatch(r"((?:(?:\d+|\?)x)*)(.+)", inner)
        dims = [d for d in m.group(1).split("x") if d]
        if "?" in dims or inner.startswith("*"):
            raise ValueError(f"dynamic or unranked tensor not supported: {text}")
        return Type(text, tuple(int(d) for d in dims), m.group(2), True)
    if text == "index" or re.fullmatch(r"i\d+", text) or text in FLOATS:
        return Type(text, (), text, False)
    raise ValueError(f"argument/result type not supported: {text}")


def parse_signature(module, name):
    """(argument types, result types) of func.func @name."""
    m = re.search(r"func\.func\s+(?:(?:public|private|nested)\s+)?@"
                  + re.escape(name) + r"\s*\(", module)
    if not m:
        raise ValueError(f"no func.func @{name} in the input")
    open_at = m.end() - 1
    close_at = matching(module, open_at)
    args = []
    for entry in split_top(module[open_at + 1:close_at]):
        colon = entry.index(":")
        args.append(parse_type(leading_type(entry[colon + 1:])))
    rest = module[close_at + 1:].lstrip()
    results = []
    if rest.startswith("->"):
        rest = rest[2:].lstrip()
        if rest.startswith("("):
            end = matching(rest, 0)
            results = [parse_type(leading_type(r))
                       for r in split_top(rest[1:end])]
        else:
            results = [parse_type(leading_type(rest))]
    return args, results


# --------------------------------------------------------------- emission

def affine_identity(rank):
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({dims})>"


class Main:
    def __init__(self):
        self.lines = []
        self.n = 0

    def fresh(self, stem):
        self.n += 1
        return f"%{stem}{self.n}"

    def emit(self, line, indent=2):
        self.lines.append("  " * indent + line)

    def op(self, text, stem="v", indent=2):
        name = self.fresh(stem)
        self.emit(f"{name} = {text}", indent)
        return name

    def call(self, fn, *args):
        types = ", ".join(t for _, t in args)
        vals = ", ".join(v for v, _ in args)
        self.emit(f"func.call @{fn}({vals}) : ({types}) -> ()")

    # -- conversions of a scalar of element type `elem`
    def to_f32(self, v, elem, indent=2):
        if elem == "f32":
            return v
        if elem in ("f16", "bf16"):
            return self.op(f"arith.extf {v} : {elem} to f32", "x", indent)
        if elem == "f64":
            return self.op(f"arith.truncf {v} : f64 to f32", "x", indent)
        if elem == "index":
            v = self.op(f"arith.index_cast {v} : index to i64", "x", indent)
            elem = "i64"
        return self.op(f"arith.sitofp {v} : {elem} to f32", "x", indent)

    def to_f64(self, v, elem, indent=2):
        if elem == "f64":
            return v
        if elem in FLOATS:
            return self.op(f"arith.extf {v} : {elem} to f64", "x", indent)
        if elem == "index":
            v = self.op(f"arith.index_cast {v} : index to i64", "x", indent)
            elem = "i64"
        return self.op(f"arith.sitofp {v} : {elem} to f64", "x", indent)

    def f32_bits(self, v):
        b = self.op(f"arith.bitcast {v} : f32 to i32", "b")
        return self.op(f"arith.extui {b} : i32 to i64", "b")

    # -- arguments
    def float_tensor(self, t, argno, scale):
        rank = len(t.shape)
        empty = self.op(f"tensor.empty() : {t.text}", "empty")
        iters = ", ".join(['"parallel"'] * rank)
        head = (f"linalg.generic {{indexing_maps = [{affine_identity(rank)}], "
                f"iterator_types = [{iters}]}} "
                f"outs({empty} : {t.text}) {{")
        name = self.fresh("arg")
        self.emit(f"{name} = {head}")
        self.emit(f"^bb0(%out: {t.elem}):", 2)
        b = 3
        lin = self.op(f"arith.constant {ARG_PRIME * (argno + 1)} : i64",
                      "k", b)
        for d in range(rank):
            idx = self.op(f"linalg.index {d} : index", "i", b)
            i64 = self.op(f"arith.index_cast {idx} : index to i64", "i", b)
            p = self.op(f"arith.constant {DIM_PRIMES[d % len(DIM_PRIMES)]}"
                        " : i64", "p", b)
            term = self.op(f"arith.muli {i64}, {p} : i64", "t", b)
            lin = self.op(f"arith.addi {lin}, {term} : i64", "l", b)
        # 32-bit integer hash (murmur-like finalizer), exact in i64.
        mask = self.op("arith.constant 4294967295 : i64", "m", b)
        s16 = self.op("arith.constant 16 : i64", "s", b)
        s8 = self.op("arith.constant 8 : i64", "s", b)
        h = self.op(f"arith.andi {lin}, {mask} : i64", "h", b)
        for mul in (2654435761, 73244475):
            k = self.op(f"arith.constant {mul} : i64", "c", b)
            h = self.op(f"arith.muli {h}, {k} : i64", "h", b)
            h = self.op(f"arith.andi {h}, {mask} : i64", "h", b)
            sh = self.op(f"arith.shrui {h}, {s16} : i64", "h", b)
            h = self.op(f"arith.xori {h}, {sh} : i64", "h", b)
        h = self.op(f"arith.shrui {h}, {s8} : i64", "h", b)  # 24 bits
        f = self.op(f"arith.uitofp {h} : i64 to f32", "f", b)
        step = self.op(f"arith.constant {2 * math.pi / 2 ** 24!r} : f32",
                       "c", b)
        pi = self.op(f"arith.constant {math.pi!r} : f32", "c", b)
        x = self.op(f"arith.mulf {f}, {step} : f32", "x", b)
        x = self.op(f"arith.subf {x}, {pi} : f32", "x", b)
        s = self.op(f"math.sin {x} : f32", "x", b)
        sc = self.op(f"arith.constant {scale!r} : f32", "c", b)
        v = self.op(f"arith.mulf {s}, {sc} : f32", "x", b)
        if t.elem == "f64":
            v = self.op(f"arith.extf {v} : f32 to f64", "x", b)
        elif t.elem != "f32":
            v = self.op(f"arith.truncf {v} : f32 to {t.elem}", "x", b)
        self.emit(f"linalg.yield {v} : {t.elem}", b)
        self.emit(f"}} -> {t.text}")
        return name

    def int_tensor(self, t, value):
        empty = self.op(f"tensor.empty() : {t.text}", "empty")
        c = self.op(f"arith.constant {value} : {t.elem}", "c")
        return self.op(f"linalg.fill ins({c} : {t.elem}) outs({empty} : "
                       f"{t.text}) -> {t.text}", "arg")

    # -- results
    def flatten(self, v, t):
        n = t.numel
        flat = f"tensor<{n}x{t.elem}>"
        if len(t.shape) == 0:
            return self.op(f"tensor.expand_shape {v} [] output_shape [1] : "
                           f"{t.text} into {flat}", "flat"), flat
        if len(t.shape) == 1:
            return v, flat
        group = ", ".join(str(i) for i in range(len(t.shape)))
        return self.op(f"tensor.collapse_shape {v} [[{group}]] : {t.text} "
                       f"into {flat}", "flat"), flat

    def print_logits(self, v, t):
        flat, ft = self.flatten(v, t)
        n = self.op(f"arith.constant {t.numel} : index", "n")
        ninf = self.op("arith.constant 0xFF800000 : f32", "c")
        am = self.fresh("am")
        self.emit(f"{am}:2 = scf.for %i = %c0 to {n} step %c1 iter_args("
                  f"%bv = {ninf}, %bi = %c0) -> (f32, index) {{")
        e = self.op(f"tensor.extract {flat}[%i] : {ft}", "e", 3)
        e = self.to_f32(e, t.elem, 3)
        gt = self.op(f"arith.cmpf ogt, {e}, %bv : f32", "g", 3)
        nv = self.op(f"arith.select {gt}, {e}, %bv : f32", "s", 3)
        ni = self.op(f"arith.select {gt}, %i, %bi : index", "s", 3)
        self.emit(f"scf.yield {nv}, {ni} : f32, index", 3)
        self.emit("}")
        idx = self.op(f"arith.index_cast {am}#1 : index to i64", "x")
        self.tag(TAG_ARGMAX)
        self.call("printI64", (idx, "i64"))
        self.call("printComma")
        self.call("printF32", (f"{am}#0", "f32"))
        self.call("printComma")
        self.call("printI64", (self.f32_bits(f"{am}#0"), "i64"))
        self.call("printNewline")
        vals = []
        for k in range(min(FIRST, t.numel)):
            c = self.op(f"arith.constant {k} : index", "c")
            e = self.op(f"tensor.extract {flat}[{c}] : {ft}", "e")
            vals.append(self.to_f32(e, t.elem))
        self.tag(TAG_VALUES)
        for k, e in enumerate(vals):
            if k:
                self.call("printComma")
            self.call("printF32", (e, "f32"))
        self.call("printNewline")
        self.tag(TAG_BITS)
        for k, e in enumerate(vals):
            if k:
                self.call("printComma")
            self.call("printI64", (self.f32_bits(e), "i64"))
        self.call("printNewline")

    def print_checksum(self, v, t, number):
        if not t.is_tensor:
            s = self.to_f64(v, t.elem)
        else:
            flat, ft = self.flatten(v, t)
            n = self.op(f"arith.constant {t.numel} : index", "n")
            zero = self.op("arith.constant 0.0 : f64", "c")
            s = self.fresh("sum")
            self.emit(f"{s} = scf.for %i = %c0 to {n} step %c1 iter_args("
                      f"%acc = {zero}) -> (f64) {{")
            e = self.op(f"tensor.extract {flat}[%i] : {ft}", "e", 3)
            e = self.to_f64(e, t.elem, 3)
            a = self.op(f"arith.addf %acc, {e} : f64", "a", 3)
            self.emit(f"scf.yield {a} : f64", 3)
            self.emit("}")
        bits = self.op(f"arith.bitcast {s} : f64 to i64", "b")
        num = self.op(f"arith.constant {number} : i64", "c")
        self.tag(TAG_SUM)
        self.call("printI64", (num, "i64"))
        self.call("printComma")
        self.call("printF64", (s, "f64"))
        self.call("printComma")
        self.call("printI64", (bits, "i64"))
        self.call("printNewline")

    def tag(self, value):
        c = self.op(f"arith.constant {value} : i64", "tag")
        self.call("printI64", (c, "i64"))
        self.call("printComma")


RUNTIME_DECLS = [("printI64", "i64"), ("printF32", "f32"), ("printF64", "f64"),
                 ("printComma", ""), ("printNewline", "")]


def pick_logits(results, choice=None):
    """Number of the result holding the logits: `choice` if given, else the
    one float tensor result whose type no other result has (Buddy's decode
    returns 56 KV caches of one type and then the logits
    tensor<1x1x151936xf32>), else result 0."""
    if choice is not None:
        if not 0 <= choice < len(results) or not results[choice].is_tensor:
            raise ValueError(f"result {choice} is not a tensor result")
        return choice
    texts = [t.text for t in results]
    unique = [i for i, t in enumerate(results)
              if t.is_tensor and t.elem in FLOATS and texts.count(t.text) == 1]
    if len(unique) == 1:
        return unique[0]
    return 0 if results and results[0].is_tensor else None


def build_module(text, function, token, pos, scale, logits_result=None):
    args, results = parse_signature(text, function)
    if re.search(r"func\.func\s+(?:\w+\s+)?@main\s*\(", text):
        raise ValueError("the input already defines @main")
    m = Main()
    m.emit("%c0 = arith.constant 0 : index")
    m.emit("%c1 = arith.constant 1 : index")
    values, token_used = [], False
    for no, t in enumerate(args):
        if t.is_tensor and t.elem in FLOATS:
            values.append(m.float_tensor(t, no, scale))
        elif t.is_tensor:
            is_token = t.shape == (1, 1) and not token_used
            token_used |= is_token
            values.append(m.int_tensor(t, token if is_token else pos))
        elif t.elem in FLOATS:
            values.append(m.op(f"arith.constant 0.5 : {t.elem}", "arg"))
        else:
            values.append(m.op(f"arith.constant {pos} : {t.elem}", "arg"))
    arg_types = ", ".join(t.text for t in args)
    res_types = ", ".join(t.text for t in results)
    call = (f"func.call @{function}({', '.join(values)}) : ({arg_types}) -> "
            f"({res_types})")
    outs = []
    if len(results) == 1:
        m.emit(f"%res = {call}")
        outs = ["%res"]
    elif results:
        m.emit(f"%res:{len(results)} = {call}")
        outs = [f"%res#{i}" for i in range(len(results))]
    else:
        m.emit(call)
    logits = pick_logits(results, logits_result)
    if logits is not None:
        m.print_logits(outs[logits], results[logits])
    for i in range(len(results)):
        if i != logits:
            m.print_checksum(outs[i], results[i], i)
    m.emit("return")
    decls = [f"  func.func private @{n}({a})" for n, a in RUNTIME_DECLS
             if not re.search(r"@" + n + r"\b", text)]
    main = ("\n".join(decls) + "\n  func.func @main() {\n"
            + "\n".join(m.lines) + "\n  }\n")
    body = text.rstrip()
    has_module = re.search(r"^\s*module\b[^{]*\{", body, re.M) and \
        body.endswith("}")
    if has_module:
        return body[:-1].rstrip() + "\n" + main + "}\n", args, results
    return body + "\n" + main.replace("\n  ", "\n") + "\n", args, results


# ---------------------------------------------------------------- running

def run_child(cmd, timeout, stdout_path=None):
    """Runs cmd; returns (rc or None on timeout, seconds, peak RSS MiB,
    stdout text, stderr text)."""
    start = time.monotonic()
    out = open(stdout_path, "wb") if stdout_path else subprocess.PIPE
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE,
                            start_new_session=True)
    err_chunks = []
    import threading
    reader = threading.Thread(target=lambda: err_chunks.append(
        proc.stderr.read()), daemon=True)
    reader.start()
    out_chunks = []
    if not stdout_path:
        oreader = threading.Thread(target=lambda: out_chunks.append(
            proc.stdout.read()), daemon=True)
        oreader.start()
    rc, rss = None, 0.0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            rc = os.waitstatus_to_exitcode(status)
            rss = usage.ru_maxrss / 1024.0
            proc.returncode = rc
            break
        if time.monotonic() - start > timeout:
            os.killpg(proc.pid, signal.SIGKILL)
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = -9
            rss = usage.ru_maxrss / 1024.0
            break
        time.sleep(0.2)
    elapsed = time.monotonic() - start
    reader.join(5)
    if stdout_path:
        out.close()
    else:
        oreader.join(5)
    dec = lambda c: b"".join(c).decode(errors="replace")
    return rc, elapsed, rss, dec(out_chunks), dec(err_chunks)


def parse_output(text):
    res = {"sums": {}}
    for line in text.splitlines():
        f = [x.strip() for x in line.split(",")]
        try:
            tag = int(f[0])
        except ValueError:
            continue
        if tag == TAG_ARGMAX:
            res["argmax"] = int(f[1])
            res["max"] = struct.unpack("<f", struct.pack("<I", int(f[3])))[0]
        elif tag == TAG_VALUES:
            res["shown"] = f[1:]
        elif tag == TAG_BITS:
            res["first"] = [struct.unpack("<f", struct.pack("<I", int(b)))[0]
                            for b in f[1:]]
        elif tag == TAG_SUM:
            res["sums"][int(f[1])] = struct.unpack(
                "<d", struct.pack("<q", int(f[3])))[0]
    return res


def run_pipeline(label, flags, module_path, work, opts):
    lowered = os.path.join(work, f"{label}.llvm.mlir")
    rec = {"label": label}
    cmd = [opts.quilt_opt, module_path, *flags, "-o", lowered]
    print(f"[{label}] lower: {' '.join(cmd)}", flush=True)
    rc, t, rss, _, err = run_child(cmd, opts.timeout)
    rec.update(lower_s=t, lower_rss=rss)
    if rc != 0:
        rec["error"] = (f"lowering {'timed out' if rc is None or rc == -9 else f'exit {rc}'}"
                        f" after {t:.1f} s: " + err.strip()[-2000:])
        print(f"[{label}] {rec['error']}", flush=True)
        return rec
    print(f"[{label}] lowered in {t:.1f} s (peak RSS {rss:.0f} MiB, "
          f"{os.path.getsize(lowered) / 1e6:.1f} MB)", flush=True)
    cmd = [opts.runner, lowered, "-e", "main", "-entry-point-result=void",
           "-shared-libs=" + ",".join(SHARED_LIBS)]
    print(f"[{label}] run: {' '.join(cmd)}", flush=True)
    rc, t, rss, out, err = run_child(cmd, opts.timeout)
    rec.update(run_s=t, run_rss=rss, stdout=out)
    if not opts.keep:
        os.remove(lowered)
    if rc != 0:
        rec["error"] = (f"run {'timed out' if rc == -9 else f'exit {rc}'} "
                        f"after {t:.1f} s: " + err.strip()[-2000:])
        print(f"[{label}] {rec['error']}", flush=True)
        return rec
    print(f"[{label}] ran in {t:.1f} s (peak RSS {rss:.0f} MiB)", flush=True)
    rec["parsed"] = parse_output(out)
    return rec


def rel(a, b):
    d = abs(a - b)
    return d / max(abs(a), abs(b)) if d else 0.0


def report(recs):
    print("\n== timings")
    for r in recs:
        lw = f"{r['lower_s']:.1f} s" if "lower_s" in r else "-"
        rn = f"{r['run_s']:.1f} s" if "run_s" in r else "-"
        print(f"  {r['label']:9s} lowering {lw:>9s}  (peak {r.get('lower_rss', 0):.0f} MiB)"
              f"   running {rn:>9s}  (peak {r.get('run_rss', 0):.0f} MiB)")
    for r in recs:
        if "error" in r:
            print(f"FAILED {r['label']}: {r['error']}")
    good = [r for r in recs if "parsed" in r and "argmax" in r["parsed"]]
    if len(good) != len(recs):
        for r in recs:
            if "parsed" in r and "argmax" not in r["parsed"]:
                print(f"FAILED {r['label']}: no arg-max line in its output:\n"
                      + r["stdout"][-2000:])
        if len(good) == 1:
            p = good[0]["parsed"]
            print(f"{good[0]['label']}: argmax {p['argmax']} value "
                  f"{p['max']:.8g}; first {['%.8g' % v for v in p['first']]}")
        return 2
    if len(good) == 1:
        p = good[0]["parsed"]
        print(f"\n{good[0]['label']}: argmax {p['argmax']} ({p['max']:.8g})")
        for i, v in enumerate(p["first"]):
            print(f"  logit[{i}] = {v:.8g}")
        for k, s in sorted(p["sums"].items()):
            print(f"  sum(result {k}) = {s:.12g}")
        return 0
    q, u = good[0]["parsed"], good[1]["parsed"]
    print(f"\n== outputs            {'quilt':>16s} {'upstream':>16s} {'rel diff':>10s}")
    print(f"  argmax index        {q['argmax']:>16d} {u['argmax']:>16d}")
    rows = [("argmax value", q["max"], u["max"])]
    rows += [(f"logit[{i}]", a, b)
             for i, (a, b) in enumerate(zip(q["first"], u["first"]))]
    for name, a, b in rows:
        print(f"  {name:18s} {a:16.8g} {b:16.8g} {rel(a, b):10.2e}")
    sums = []
    for k in sorted(set(q["sums"]) | set(u["sums"])):
        a, b = q["sums"].get(k, math.nan), u["sums"].get(k, math.nan)
        sums.append(rel(a, b))
    if sums:
        for k in sorted(set(q["sums"]) | set(u["sums"])):
            a, b = q["sums"].get(k, math.nan), u["sums"].get(k, math.nan)
            print(f"  sum(result {k:<3d})    {a:16.10g} {b:16.10g} {rel(a, b):10.2e}")
        print(f"  {len(sums)} checksums: max rel diff {max(sums):.2e}, "
              f"bit-identical: {sum(1 for s in sums if s == 0)}")
    scale = max(max(abs(a), abs(b)) for _, a, b in rows)
    diff = max(abs(a - b) for _, a, b in rows)
    r = diff / scale if scale else (0.0 if diff == 0 else math.inf)
    elementwise = max(rel(a, b) for _, a, b in rows)
    same = q["argmax"] == u["argmax"]
    ok = same and r <= 1e-3
    print(f"\n== verdict: arg-max {'same' if same else 'DIFFERS'} "
          f"({q['argmax']} vs {u['argmax']}); max |diff| of printed logits / "
          f"max |logit| = {r:.2e} (elementwise max rel {elementwise:.2e}); "
          f"{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--function", default="subgraph0_decode")
    ap.add_argument("--token", type=int, default=100)
    ap.add_argument("--pos", type=int, default=7)
    ap.add_argument("--scale", type=float, default=0.02,
                    help="amplitude of the generated float inputs")
    ap.add_argument("--logits-result", type=int, metavar="K",
                    help="number of the logits result (default: the one "
                    "float tensor result of a type no other result has, "
                    "else 0)")
    ap.add_argument("--emit-only", metavar="OUT.mlir")
    ap.add_argument("--quilt-opt", default=DEFAULT_QUILT_OPT)
    ap.add_argument("--runner", default=DEFAULT_RUNNER)
    ap.add_argument("--timeout", type=float, default=3600.0,
                    help="seconds for each lowering and each run")
    ap.add_argument("--only", choices=[p for p, _ in PIPELINES],
                    help="run one pipeline only")
    ap.add_argument("--verbose", action="store_true",
                    help="also print the runners' raw outputs")
    ap.add_argument("--keep", metavar="DIR",
                    help="write the module and lowered files here, keep them")
    opts = ap.parse_args()

    with open(opts.model) as f:
        text = f.read()
    module, args, results = build_module(text, opts.function, opts.token,
                                         opts.pos, opts.scale,
                                         opts.logits_result)
    logits = pick_logits(results, opts.logits_result)
    nbytes = sum(t.numel * (FLOATS.get(t.elem, 64) // 8) for t in args)
    print(f"@{opts.function}: {len(args)} arguments ({nbytes / 2**30:.2f} GiB),"
          f" {len(results)} results; logits: result {logits} "
          f"{results[logits] if logits is not None else '-'}",
          flush=True)
    if opts.emit_only:
        with open(opts.emit_only, "w") as f:
            f.write(module)
        print(f"wrote {opts.emit_only}")
        return 0
    work = opts.keep or tempfile.mkdtemp(prefix="buddy_decode_check.")
    os.makedirs(work, exist_ok=True)
    try:
        path = os.path.join(work, "module.mlir")
        with open(path, "w") as f:
            f.write(module)
        recs = []
        for label, flags in PIPELINES:  # strictly one after the other
            if opts.only and label != opts.only:
                continue
            recs.append(run_pipeline(label, flags, path, work, opts))
        for r in recs:
            if "stdout" in r and (opts.verbose or "parsed" not in r
                                  or "argmax" not in r["parsed"]):
                print(f"\n== {r['label']} output\n{r['stdout'].rstrip()}")
        return report(recs)
    finally:
        if not opts.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
