"""Checks the shape of `quiltc explain --json` output (issue 3's contract).

Usage: quiltc explain --json ... | python3 check_explain_json.py N|FILE
N is the number of workloads (1 means one object, more a list); a FILE
stands for the number of workload lines in it.
"""
import json
import os
import sys

arg = sys.argv[1]
if os.path.exists(arg):
    with open(arg) as f:
        expected = sum(1 for line in f if line.split("#")[0].strip())
else:
    expected = int(arg)
doc = json.load(sys.stdin)
reports = [doc] if expected == 1 else doc
assert isinstance(reports, list), type(reports).__name__
assert len(reports) == expected, f"{len(reports)} reports, expected {expected}"
for report in reports:
    for key in ("workload", "target", "chosen", "candidates"):
        assert key in report, f"missing '{key}' in {sorted(report)}"
    assert report["candidates"], "no candidates"
    for candidate in report["candidates"]:
        assert set(("config", "predicted_us", "resources", "terms")) <= \
            set(candidate), sorted(candidate)
        resources = candidate["resources"]
        assert set(resources) == {"registers_per_thread", "shared_mem_bytes",
                                  "blocks_per_cu"}, sorted(resources)
        assert all(isinstance(v, int) and v >= 0 for v in resources.values()), \
            resources
        # Candidates that reach the ranking fit: at least one block per CU.
        assert resources["blocks_per_cu"] >= 1, resources
        assert isinstance(candidate["predicted_us"], (int, float))
        assert candidate["predicted_us"] >= 0
        assert candidate["terms"] and all(
            isinstance(v, (int, float)) for v in candidate["terms"].values())
        assert "str" in candidate["config"], sorted(candidate["config"])
    times = [c["predicted_us"] for c in report["candidates"]]
    assert times == sorted(times), "candidates are not ranked"
print(f"ok: {len(reports)} report(s)")
