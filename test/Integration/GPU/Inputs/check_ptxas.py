"""Assembles every kernel quiltc generates for a target with `ptxas -v` and
checks the resources: no register spills, at most 255 registers a thread,
and registers x threads within the 64K-register file of an SM, so every
block can launch.

With --estimate-tolerance N it also checks the cost model's register
estimate (`quiltc explain --json`, the number that decides which candidates
fit and how many blocks share an SM) against what ptxas allocated: a
problem when they differ by more than N registers (for a TMA kernel, only
when it needs more: the model prices the candidate's cp.async kernel).

quiltc's defaults issue sm_90a wgmma candidates as wgmma.mma_async with
TMA variants; a wgmma that ptxas reports serialized is a problem too.
--no-native-wgmma and --no-tma pass quiltc's options of those names (the
mma.sync kernels; the native kernels without TMA); --native-wgmma and --tma,
the defaults, are accepted.

usage: check_ptxas.py QUILTC PTXAS INPUT.mlir TARGET CHIP [--estimate-tolerance N]
                      [--no-native-wgmma | --no-tma]
"""

import argparse
import re
import subprocess
import sys
import tempfile

# Keep the source tree free of __pycache__ when importing the helper.
sys.dont_write_bytecode = True
from kernel_estimates import estimated_registers  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
for name in ("quiltc", "ptxas", "source", "target", "chip"):
    parser.add_argument(name)
parser.add_argument("--estimate-tolerance", type=int, default=None)
parser.add_argument("--native-wgmma", action="store_true")
parser.add_argument("--tma", action="store_true")
parser.add_argument("--no-native-wgmma", action="store_true")
parser.add_argument("--no-tma", action="store_true")
args = parser.parse_args()
quiltc, ptxas, source, target, chip = (args.quiltc, args.ptxas, args.source,
                                       args.target, args.chip)
tolerance = args.estimate_tolerance

command = [quiltc, source, "--target", target, "--emit=ptx"]
if args.native_wgmma:
    command.append("--native-wgmma")
if args.tma:
    command.append("--tma")
if args.no_native_wgmma:
    command.append("--no-native-wgmma")
if args.no_tma:
    command.append("--no-tma")
ptx = subprocess.run(command, check=True, capture_output=True, text=True).stdout
# quiltc prints each gpu.binary's PTX after a "// gpu.binary @name" line.
modules = re.split(r"^// gpu\.binary @\S+\n", ptx, flags=re.M)[1:]

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
        if used:
            kernels += 1
            registers = int(used.group(1))
            threads = int(re.search(r"_t(\d+)_", name).group(1))
            line = "%s: %d registers x %d threads" % (name, registers, threads)
            if tolerance is not None:
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
            print(line)
            if registers > 255 or registers * threads > 65536:
                problems.append("%s: %d registers x %d threads do not fit an SM"
                                % (name, registers, threads))

for problem in problems:
    print("problem: " + problem)
print("checked %d kernels for %s (%s), %d problems" % (kernels, target, chip, len(problems)))
# The exit status is for running the script by hand; the lit test checks the
# printed problems, so that known ones are pinned by name.
sys.exit(1 if problems or kernels == 0 else 0)
