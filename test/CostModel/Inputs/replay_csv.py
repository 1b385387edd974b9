"""Writes made-up measurements for `quiltc replay` from `quiltc explain
--json` of one workload: every candidate at 100 us but the chosen one at
150 us, so the replay's pick (the same choice) has a regret of 50%.

Usage: quiltc explain --json W | python3 replay_csv.py > times.csv
"""
import json
import sys

report = json.load(sys.stdin)
w = report["workload"]
chosen = report["chosen"]["config"]["str"]
print("op,dtype,b,m,n,k,config,measured_us")
for candidate in report["candidates"]:
    config = candidate["config"]["str"]
    us = 150.0 if config == chosen else 100.0
    print(f"{w['op']},{w['dtype']},{w['b']},{w['m']},{w['n']},{w['k']},"
          f"{config},{us}")
