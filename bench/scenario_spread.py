#!/usr/bin/env python3
"""Runs `tidepool-sim scenario` (static allocation and Tidepool) at several starts of the batch trace and reports the
median, lowest and highest change of each figure, so that BENCHMARKS.md section 7 can quote more than one run of a
chaotic simulation.

usage: bench/scenario_spread.py [--build-dir build] [--loads 0.8,0.5] [--starts 0,0.2,0.4,0.6,0.8] [--jobs 2]
                                [--db-dir /dev/shm] [--data ../shared/data] [--headroom 1.2]

Each start (`--batch-start`) replays the same openb pods in the same arrival pattern from another point of the trace,
wrapping around; the services, inference and the cluster are the same. A run takes about 1 minute (static) and
2 minutes (Tidepool) on the 2-core development VM; the defaults make 20 runs, about 16 minutes with two at a time.
Prints one JSON object: every run's figures, and per load the median / min / max over the starts of Tidepool's change
against static allocation on the same start, and of where each mode's hot node-hours went. `--headroom` is passed to
both modes (`tidepool-sim scenario --headroom`).
"""

import argparse
import concurrent.futures
import json
import os
import statistics
import sys

from scenario_common import add_common_arguments, run_scenario, scenario_binary

# (name in the output, scenario figure, how the change is expressed)
FIGURES = [
    ("cpu_utilisation_change_pct", "cpu_utilisation", "relative"),
    ("gpu_utilisation_change_pct", "gpu_utilisation", "relative"),
    ("batch_completion_mean_change_pct", "batch_completion_mean_s", "relative"),
    ("batch_completion_p90_change_pct", "batch_completion_p90_s", "relative"),
    ("cost_change_pct", "cost", "relative"),
    ("cost_per_work_change_pct", "cost_per_work", "relative"),
    ("powered_node_hours_change_pct", "powered_node_hours", "relative"),
]
ABSOLUTE = ["batch_restarts", "batch_gpu_hours_lost", "service_unmet_share", "inference_p99_ms", "invariant_violations"]


def run(binary, data, db_dir, headroom, mode, load, start):
    db = os.path.join(db_dir, f"tidepool-spread-{os.getpid()}-{mode}-{load}-{start}")
    options = ["--batch-load", load, "--batch-start", start, "--headroom", headroom]
    return (mode, load, start), run_scenario(binary, data, db, mode, options)


def summary(values):
    return {"median": round(statistics.median(values), 2), "min": round(min(values), 2), "max": round(max(values), 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_arguments(parser)
    parser.add_argument("--loads", default="0.8,0.5")
    parser.add_argument("--starts", default="0,0.2,0.4,0.6,0.8")
    parser.add_argument("--headroom", type=float, default=1.2)
    args = parser.parse_args()
    binary = scenario_binary(parser, args)
    loads = [float(x) for x in args.loads.split(",")]
    starts = [float(x) for x in args.starts.split(",")]
    if any(not 0 <= s < 1 for s in starts):
        parser.error("every start must be in [0, 1)")

    tasks = [(mode, load, start) for load in loads for start in starts for mode in ("tidepool", "static")]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = dict(pool.map(lambda t: run(binary, args.data, args.db_dir, args.headroom, *t), tasks))

    out = {"starts": starts, "headroom": args.headroom, "loads": {}}
    for load in loads:
        runs, changes = [], {name: [] for name, _, _ in FIGURES}
        for start in starts:
            s, t = results[("static", load, start)], results[("tidepool", load, start)]
            row = {"start": start, "static": {}, "tidepool": {}, "change": {}}
            for name, figure, _ in FIGURES:
                change = 100.0 * (t[figure] - s[figure]) / s[figure] if s[figure] else 0.0
                changes[name].append(change)
                row["change"][name] = round(change, 2)
                row["static"][figure], row["tidepool"][figure] = s[figure], t[figure]
            for figure in ABSOLUTE:
                row["static"][figure], row["tidepool"][figure] = s[figure], t[figure]
            row["tidepool"]["proposals_applied"] = t["proposals_applied"]
            for mode, r in (("static", s), ("tidepool", t)):
                row[mode]["hot_node_hours"] = r["hot_node_hours"]
            runs.append(row)
        absolute = {figure: summary([r["tidepool"][figure] for r in runs]) for figure in ABSOLUTE
                    if all(r["tidepool"][figure] is not None for r in runs)}
        hot = {mode: {use: summary([r[mode]["hot_node_hours"][use] for r in runs])
                      for use in runs[0][mode]["hot_node_hours"]} for mode in ("static", "tidepool")}
        out["loads"][str(load)] = {
            "change_vs_static": {name: summary(values) for name, values in changes.items()},
            "tidepool": absolute,
            "hot_node_hours": hot,
            "runs": runs,
        }
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
