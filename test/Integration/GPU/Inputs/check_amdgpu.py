"""Reads the kernel metadata of the AMDGPU ISA quiltc generates for a target
(`--emit=isa`, LLVM's AMDGPU backend) and checks the resources: no VGPR or
SGPR spills. Prints each kernel's VGPRs (with the accumulation VGPRs) and
the cost model's estimate (`quiltc explain --json`); with
--estimate-tolerance N, a difference above N registers is a problem.

usage: check_amdgpu.py QUILTC INPUT.mlir TARGET [--estimate-tolerance N]
"""

import argparse
import re
import subprocess
import sys

# Keep the source tree free of __pycache__ when importing the helper.
sys.dont_write_bytecode = True
from kernel_estimates import (estimated_registers,  # noqa: E402
                              is_helper_kernel)

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
for name in ("quiltc", "source", "target"):
    parser.add_argument(name)
parser.add_argument("--estimate-tolerance", type=int, default=None)
args = parser.parse_args()
quiltc, source, target = args.quiltc, args.source, args.target
tolerance = args.estimate_tolerance

isa = subprocess.run([quiltc, source, "--target", target, "--emit=isa"],
                     check=True, capture_output=True, text=True).stdout

kernels, problems = 0, []
# Each module's metadata lists its kernels under "amdhsa.kernels:", one
# "  - " entry per kernel with ".key: value" fields.
for metadata in isa.split("amdhsa.kernels:")[1:]:
    metadata = metadata.split("\n...")[0]
    for entry in re.split(r"\n  - ", metadata)[1:]:
        # The kernel's own fields, not those of its nested `.args` entries
        # (indented deeper); the first follows the "  - " split off above.
        fields = dict(re.findall(r"^ {2,4}\.(\w+):\s+(\S+)", "  " + entry, flags=re.M))
        name = fields.get("name", "")
        if not name.startswith("quilt_"):
            continue
        kernels += 1
        # On gfx90a and later the count includes the accumulation VGPRs
        # (AGPRs) after the architectural ones: the unified register file.
        vgprs = int(fields["vgpr_count"])
        line = "%s: %d VGPRs x %s threads" % (name, vgprs, fields["max_flat_workgroup_size"])
        estimate = estimated_registers(quiltc, target, name)
        if is_helper_kernel(name):
            line += " (helper)"
        elif estimate is None:
            if tolerance is not None:
                problems.append("%s: explain lists no such candidate" % name)
        else:
            line += " (estimated %d)" % estimate
            if tolerance is not None and abs(estimate - vgprs) > tolerance:
                problems.append("%s: %d VGPRs, estimated %d" % (name, vgprs, estimate))
        print(line)
        for kind in ("vgpr", "sgpr"):
            spills = int(fields.get(kind + "_spill_count", 0))
            if spills:
                problems.append("%s spills %d %ss" % (name, spills, kind.upper()))

for problem in problems:
    print("problem: " + problem)
print("checked %d kernels for %s, %d problems" % (kernels, target, len(problems)))
# As check_ptxas.py: the lit test pins the known problems by name.
sys.exit(1 if problems or kernels == 0 else 0)
