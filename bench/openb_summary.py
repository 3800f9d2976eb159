#!/usr/bin/env python3
"""Summarises openb sweep results (one JSON object per line, from `tidepool-sim openb --json`): the mean and
standard deviation of unallocated GPU % at 100% arrival per (workload, policy), next to the paper authors' mean
from unallocated_gpu_pct_at_arrival100.csv, with the moves per 1,000 pods of `--defrag` runs (which are listed as
"<policy>+defrag").  Usage: openb_summary.py results.jsonl [authors.csv] [--markdown]"""
import csv
import json
import statistics
import sys
from collections import defaultdict

AUTHORS_NAMES = {"01-Random": "random", "02-DotProd": "dotprod", "03-GpuClustering": "gpu-clustering",
                 "04-GpuPacking": "gpu-packing", "05-BestFit": "best-fit", "06-FGD": "fgd"}


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    markdown = "--markdown" in argv
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    runs = defaultdict(list)
    wall = defaultdict(list)
    moves = defaultdict(int)
    pods = defaultdict(int)
    with open(args[0]) as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                key = (r["workload"], r["policy"] + ("+defrag" if r.get("defrag") else ""))
                runs[key].append(r["unallocated_gpu_pct_at_100"])
                wall[key].append(r["wall_ms"])
                moves[key] += r.get("moves", 0)
                pods[key] += r["pods_total"]
    authors = {}
    if len(args) > 1:
        with open(args[1]) as f:
            for row in csv.DictReader(f):
                workload = row["workload"].replace("openb_pod_list_", "")
                policy = AUTHORS_NAMES.get(row["sc_policy"], row["sc_policy"])
                authors[(workload, policy)] = float(row["unalloc_gpu_pct_mean_at100"])
    if markdown:
        print("| workload | policy | seeds | ours mean | ours sd | authors | diff | moves/1k pods | wall ms |")
        print("|---|---|---|---|---|---|---|---|---|")
    else:
        print(f"{'workload':<12} {'policy':<15} {'seeds':>5} {'ours':>7} {'sd':>5} {'authors':>8} {'diff':>6} {'moves/1k':>8} {'wall ms':>8}")
    for key in sorted(runs):
        values = runs[key]
        mean = statistics.mean(values)
        sd = statistics.stdev(values) if len(values) > 1 else 0.0
        theirs = authors.get(key)
        theirs_text = f"{theirs:.2f}" if theirs is not None else "-"
        diff_text = f"{mean - theirs:+.2f}" if theirs is not None else "-"
        ms = statistics.mean(wall[key])
        per_k = 1000.0 * moves[key] / pods[key] if pods[key] else 0.0
        if markdown:
            print(f"| {key[0]} | {key[1]} | {len(values)} | {mean:.2f} | {sd:.2f} | {theirs_text} | {diff_text} | {per_k:.2f} | {ms:.0f} |")
        else:
            print(f"{key[0]:<12} {key[1]:<15} {len(values):>5} {mean:>7.2f} {sd:>5.2f} {theirs_text:>8} {diff_text:>6} {per_k:>8.2f} {ms:>8.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
