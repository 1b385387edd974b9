"""Assembles every kernel quiltc generates for a target with `ptxas -v` and
checks the resources: no register spills, at most 255 registers a thread,
and registers x threads within the 64K-register file of an SM, so every
block can launch.

With --estimate-tolerance N it also checks the cost model's register
estimate (`quiltc explain --json`, the number that decides which candidates
fit and how many blocks share an SM) against what ptxas allocated: a
problem when they differ by more than N registers (for a TMA kernel, only
when it needs more: the model prices the candidate's cp.async kernel). A
kernel that declares `.minnctapersm B` (the model bounds its blocks by
workgroup memory or block size, not registers, and asks ptxas for them) is
checked instead for registers that leave B blocks an SM: there ptxas fits
its allocation to B blocks, and the estimate only decided that registers
do not bind.

With --occupancy it also checks the cost model's workgroup memory (explain's
`shared_mem_bytes`) against the bytes each kernel is launched with (the
`dynamic_shared_memory_size` of its launch in `quiltc --emit=mlir`): a
problem when they differ, but for a TMA kernel's mbarriers (the model prices
a candidate by its cp.async kernel). And it prints the blocks that fit an SM
by CUDA's occupancy rules, from ptxas's registers and the launch's bytes,
beside the model's `blocks_per_cu`: those differ where the register
estimate does (--estimate-tolerance), and the summary counts them.

quiltc's defaults issue sm_90a wgmma candidates as wgmma.mma_async with
TMA variants; a wgmma that ptxas reports serialized is a problem too.
--no-native-wgmma and --no-tma pass quiltc's options of those names (the
mma.sync kernels; the native kernels without TMA); --native-wgmma and --tma,
the defaults, are accepted.

usage: check_ptxas.py QUILTC PTXAS INPUT.mlir TARGET CHIP [--estimate-tolerance N]
                      [--occupancy] [--no-native-wgmma | --no-tma]
"""

import argparse
import re
import subprocess
import sys
import tempfile

# Keep the source tree free of __pycache__ when importing the helper.
sys.dont_write_bytecode = True
from kernel_estimates import (estimated_registers,  # noqa: E402
                              estimated_resources, is_helper_kernel)

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
for name in ("quiltc", "ptxas", "source", "target", "chip"):
    parser.add_argument(name)
parser.add_argument("--estimate-tolerance", type=int, default=None)
parser.add_argument("--occupancy", action="store_true")
parser.add_argument("--native-wgmma", action="store_true")
parser.add_argument("--tma", action="store_true")
parser.add_argument("--no-native-wgmma", action="store_true")
parser.add_argument("--no-tma", action="store_true")
args = parser.parse_args()
quiltc, ptxas, source, target, chip = (args.quiltc, args.ptxas, args.source,
                                       args.target, args.chip)
tolerance = args.estimate_tolerance

# One compile gives both the PTX (each gpu.binary's assembly) and the
# launches (their dynamic_shared_memory_size).
command = [quiltc, source, "--target", target, "--emit=mlir", "--device-format=isa"]
if args.native_wgmma:
    command.append("--native-wgmma")
if args.tma:
    command.append("--tma")
if args.no_native_wgmma:
    command.append("--no-native-wgmma")
if args.no_tma:
    command.append("--no-tma")
mlir = subprocess.run(command, check=True, capture_output=True, text=True).stdout


def unescape_mlir_string(text):
    """The bytes of an MLIR string attribute as the printer escapes them
    (llvm::printEscapedString: `\\` and two hex digits)."""
    return re.sub(r"\\([0-9A-Fa-f]{2}|\\)",
                  lambda m: "\\" if m.group(1) == "\\" else chr(int(m.group(1), 16)),
                  text)


# Each gpu.binary's PTX, in the order quiltc --emit=ptx prints them.
modules = [unescape_mlir_string(assembly) for assembly in
           re.findall(r'\bassembly = "([^"]*)"', mlir)]

# What an SM gives resident blocks, per chip, as CUDA's occupancy calculator
# (cuda_occupancy.h) counts it, from the CUDA C++ Programming Guide's
# "Technical Specifications per Compute Capability": registers allocated
# per warp in units of 256 from one of 4 sub-partitions' 16K; workgroup
# memory in units of 128 bytes (256 before 8.0), each block with 1 KB more
# the driver reserves (8.0 and later). Written out here, not read from
# Quilt's target database, so that the model is checked against them.
SM_LIMITS = {
    "sm_90a": dict(shared=228 * 1024, reserved=1024, unit=128, blocks=32, threads=2048),
    "sm_80": dict(shared=164 * 1024, reserved=1024, unit=128, blocks=32, threads=2048),
    "sm_75": dict(shared=64 * 1024, reserved=0, unit=256, blocks=16, threads=1024),
}


def blocks_by_registers(registers, threads):
    """The blocks an SM's register file holds, whatever else binds."""
    warps = -(-threads // 32)
    per_warp = -(-registers * 32 // 256) * 256
    return (16384 // per_warp) * 4 // warps


def blocks_per_sm(chip, registers, threads, shared):
    limits = SM_LIMITS[chip]
    by_registers = blocks_by_registers(registers, threads)
    block_bytes = -(-(shared + limits["reserved"]) // limits["unit"]) * limits["unit"]
    return min(by_registers, limits["shared"] // block_bytes,
               limits["threads"] // threads, limits["blocks"])


# The bytes of workgroup memory each kernel is launched with.
launch_bytes = {}
if args.occupancy:
    constants = {}
    for line in mlir.splitlines():
        if re.search(r"\b(func\.func|llvm\.func) ", line):
            constants = {}
        constant = re.search(r"(%\w+) = (?:llvm\.mlir\.constant\(|arith\.constant )"
                             r"(\d+) : i32", line)
        if constant:
            constants[constant.group(1)] = int(constant.group(2))
        launch = re.search(r"gpu\.launch_func\s+@\w+::@(\w+) .*"
                           r"dynamic_shared_memory_size (%\w+)", line)
        if launch:
            launch_bytes[launch.group(1)] = constants[launch.group(2)]
modeled_blocks = occupancy_checked = 0


def kernel_body(module, name):
    """The PTX of entry `name`, up to the next entry."""
    start = module.index(".entry %s(" % name)
    end = module.find(".entry ", start + 1)
    return module[start:end if end >= 0 else len(module)]


def check_register_moves(name, module, registers, threads, consumers):
    """A warp-specialized kernel (a producer warpgroup beside `consumers`
    threads): its setmaxnreg counts, if any, must move registers within the
    block's pool, the registers ptxas gave every thread at launch (else the
    consumers' setmaxnreg.inc waits forever). (What to print, the problem or
    None.)"""
    if threads - consumers != 128:
        return "", "%d threads beside %d consumers, not one warpgroup" % (
            threads - consumers, consumers)
    body = kernel_body(module, name)
    dec = re.findall(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+(\d+)", body)
    inc = re.findall(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+(\d+)", body)
    if not dec and not inc:
        return "", None
    if len(dec) != 1 or len(inc) != 1:
        return "", "%d setmaxnreg.dec and %d setmaxnreg.inc, not one each" % (
            len(dec), len(inc))
    producer, consumer = int(dec[0]), int(inc[0])
    note = ", setmaxnreg %d / %d" % (producer, consumer)
    needed = 128 * producer + consumers * consumer
    if needed > registers * threads or producer >= registers or consumer <= registers:
        return note, ("setmaxnreg %d (producer) and %d (consumers) do not move "
                      "registers within %d x %d at launch"
                      % (producer, consumer, registers, threads))
    return note, None

kernels, problems = 0, []
for index, module in enumerate(modules):
    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as file:
        file.write(module)
        file.flush()
        result = subprocess.run(
            [ptxas, "-v", "-arch=" + chip, file.name, "-o", "/dev/null"],
            capture_output=True, text=True)
    if result.returncode != 0:
        problems.append("module %d: ptxas failed: %s" % (index, result.stderr))
        continue
    name = None
    for line in result.stderr.splitlines():
        entry = re.search(r"Compiling entry function '(\w+)'", line)
        if entry:
            name = entry.group(1)
            continue
        if name is None or not name.startswith("quilt_"):
            continue
        if "Performance Loss" in line:
            problems.append("%s: %s" % (name, line.strip()))
        spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if spill and (int(spill.group(1)) or int(spill.group(2))):
            problems.append("%s spills: %s" % (name, line.strip()))
        used = re.search(r"Used (\d+) registers", line)
        if used and is_helper_kernel(name):
            # No candidate: no estimate nor launch to compare, but it must
            # fit and not spill like the others.
            kernels += 1
            registers = int(used.group(1))
            threads = int(re.search(r"\.entry %s\([^)]*\)\s*\.maxntid (\d+)" % name,
                                    module).group(1))
            print("%s: %d registers x %d threads (helper)" % (name, registers, threads))
            if registers > 255 or registers * threads > 65536:
                problems.append("%s: %d registers x %d threads do not fit an SM"
                                % (name, registers, threads))
        elif used:
            kernels += 1
            registers = int(used.group(1))
            # The block: the configuration's threads, and a warp-specialized
            # kernel's producer warpgroup.
            threads = int(re.search(r"\.entry %s\([^)]*\)\s*\.maxntid (\d+)"
                                    % name, module).group(1))
            line = "%s: %d registers x %d threads" % (name, registers, threads)
            consumers = int(re.search(r"_t(\d+)_", name).group(1))
            if threads != consumers:
                note, problem = check_register_moves(name, module, registers,
                                                     threads, consumers)
                line += " (producer warpgroup%s)" % note
                if problem is not None:
                    problems.append("%s: %s" % (name, problem))
            # A kernel whose blocks an SM the model bounds by its workgroup
            # memory or block size asks ptxas for them (.minnctapersm), and
            # ptxas fits its registers to that many, using what they leave:
            # there the estimate only decided that registers do not bind,
            # and a wrong one shows as a spill or as fewer blocks.
            asked = re.search(r"\.entry %s\([^)]*\)[^{]*\.minnctapersm (\d+)"
                              % name, module)
            if asked:
                asked_blocks = int(asked.group(1))
                line += " (asked for %d blocks an SM)" % asked_blocks
                if blocks_by_registers(registers, threads) < asked_blocks:
                    problems.append("%s: %d registers x %d threads leave fewer "
                                    "than the %d blocks an SM asked for"
                                    % (name, registers, threads, asked_blocks))
            elif tolerance is not None:
                estimate = estimated_registers(quiltc, target, name)
                if estimate is None:
                    problems.append("%s: explain lists no such candidate" % name)
                else:
                    line += " (estimated %d)" % estimate
                    # The model prices a candidate by its cp.async kernel;
                    # its TMA variant (no staging in registers) may only
                    # need fewer.
                    over = registers - estimate > tolerance
                    under = estimate - registers > tolerance
                    if over or (under and not name.endswith("_tma")):
                        problems.append("%s: %d registers, estimated %d"
                                        % (name, registers, estimate))
            if args.occupancy and name not in launch_bytes:
                problems.append("%s: no launch in quiltc --emit=mlir" % name)
            elif args.occupancy:
                resources = estimated_resources(quiltc, target, name)
                shared = launch_bytes[name]
                blocks = blocks_per_sm(chip, registers, threads, shared)
                line += "; %d bytes shared, %d blocks an SM" % (shared, blocks)
                if resources is not None:
                    line += " (model: %d bytes, %d blocks)" % (
                        resources["shared_mem_bytes"], resources["blocks_per_cu"])
                    occupancy_checked += 1
                    modeled_blocks += resources["blocks_per_cu"] == blocks
                    # A TMA kernel's two 8-byte mbarriers a stage (at most 8)
                    # come on top; an nchw convolution on a chip without
                    # cp.async keeps one of the two stages the model (which
                    # prices tiles, not the operation) counts
                    # (docs/cost-model.md, "Occupancy").
                    modeled = resources["shared_mem_bytes"]
                    known = ((name.endswith("_tma")
                              and 0 < shared - modeled <= 16 * 8) or
                             ("_conv2d_nchw" in name and chip == "sm_75"
                              and modeled == 2 * shared))
                    if modeled != shared and not known:
                        problems.append("%s: %d bytes of workgroup memory, modeled %d"
                                        % (name, shared, modeled))
            print(line)
            if registers > 255 or registers * threads > 65536:
                problems.append("%s: %d registers x %d threads do not fit an SM"
                                % (name, registers, threads))

for problem in problems:
    print("problem: " + problem)
if args.occupancy:
    print("blocks an SM as modeled for %d of %d kernels" % (modeled_blocks,
                                                             occupancy_checked))
print("checked %d kernels for %s (%s), %d problems" % (kernels, target, chip, len(problems)))
# The exit status is for running the script by hand; the lit test checks the
# printed problems, so that known ones are pinned by name.
sys.exit(1 if problems or kernels == 0 else 0)
