#!/usr/bin/env python3
"""Backtests the load forecasting models at a 24-hour horizon on every series of ../shared/data/load-series (every
numeric column of every file) and ../shared/data/nab/realAWSCloudwatch, and prints one JSON summary: per series our
sMAPE, each baseline's, our coverage; the average sMAPE reduction against seasonal-naive daily; which targets are met.

Usage: bench/forecast_backtest.py [--build-dir build | --bin build/bin/tidepool-forecast] [--data ../shared/data]
                                  [--jobs 2] [--model seasonal] [--set benchmark | holdout]
--set holdout backtests series the model was never tuned on instead: the number of live instances (and their CPU
request) of an autoscaled inference fleet every 5 minutes over 31 days, derived from
../shared/data/services/dlrm2025_instances.csv (see `holdout_series`), written to a temporary directory.
--build-dir names a CMake build directory (e.g. build-forecast) whose bin/tidepool-forecast is used; --bin names the
binary itself and wins over it. Each row also reports fit_ms_per_origin, the model's time per forecast (the cost of one
refit for one pool and resource in the evaluation loop). Only the Python standard library is used.
"""
import argparse
import collections
import concurrent.futures
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DAY_S = 86400


def series_list(data):
    """(path, column, step in seconds) for every series of the benchmark."""
    out = []
    load = os.path.join(data, "load-series")
    for name in sorted(os.listdir(load)):
        if not name.endswith(".csv"):
            continue
        step = int(re.search(r"_(\d+)s\.csv$", name).group(1))
        path = os.path.join(load, name)
        with open(path) as f:
            header = f.readline().strip().split(",")
        for column in header:
            out.append((path, column, step))
    nab = os.path.join(data, "nab", "realAWSCloudwatch")
    for name in sorted(os.listdir(nab)):
        if name.endswith(".csv"):
            out.append((os.path.join(nab, name), "value", 300))
    return out


HOLDOUT_STEP_S = 300
HOLDOUT_TOP_APPS = 5


def holdout_series(data, directory):
    """(path, column, step) for series derived from the DLRM inference fleet trace, written under `directory`.

    Every 5 minutes over the trace's 31 days: live instances and their summed CPU request for each role (CPU nodes
    "CN", GPU nodes "HN": one GPU each), and live instances of the five apps with the most instances. An instance is
    live from its creation to its deletion; a blank creation time means it existed when the trace began, a blank
    deletion time that it still ran when the trace ended. Nothing in the model was chosen on these series."""
    with open(os.path.join(data, "services", "dlrm2025_instances.csv")) as f:
        rows = list(csv.DictReader(f))
    end_s = max(float(r["deletion_time"] or r["creation_time"] or 0) for r in rows)
    buckets = int(end_s // HOLDOUT_STEP_S) + 1
    apps = collections.Counter(r["app_name"] for r in rows)
    wanted = {"cn_instances": (lambda r: r["role"] == "CN", None), "cn_cpu_request": (lambda r: r["role"] == "CN",
              "cpu_request"), "hn_instances": (lambda r: r["role"] == "HN", None),
              "hn_cpu_request": (lambda r: r["role"] == "HN", "cpu_request")}
    for app, _ in apps.most_common(HOLDOUT_TOP_APPS):
        wanted[f"{app}_instances"] = (lambda r, app=app: r["app_name"] == app, None)
    out = []
    for name, (keep, field) in wanted.items():
        change = [0.0] * (buckets + 1)
        for r in rows:
            if keep(r):
                amount = float(r[field]) if field else 1.0
                start = int(float(r["creation_time"] or 0) // HOLDOUT_STEP_S)
                stop = int(float(r["deletion_time"]) // HOLDOUT_STEP_S) if r["deletion_time"] else buckets
                change[start] += amount
                change[stop] -= amount
        path = os.path.join(directory, f"dlrm2025_{name}_{HOLDOUT_STEP_S}s.csv")
        with open(path, "w") as f:
            f.write("value\n")
            level = 0.0
            for b in range(buckets):
                level += change[b]
                f.write(f"{level:g}\n")
        out.append((path, "value", HOLDOUT_STEP_S))
    return out


def run(binary, model, item):
    path, column, step = item
    cmd = [binary, "backtest", "--series", path, "--column", column, "--step", str(step),
           "--horizon", str(DAY_S // step), "--model", model, "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        return {"series": path, "column": column, "error": done.stderr.strip()}
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--bin", default=None)
    parser.add_argument("--data", default=os.path.normpath(os.path.join(ROOT, "..", "shared", "data")))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--model", default="seasonal")
    parser.add_argument("--set", choices=("benchmark", "holdout"), default="benchmark")
    args = parser.parse_args()
    if args.bin is None:
        args.bin = os.path.join(os.path.abspath(args.build_dir), "bin", "tidepool-forecast")
    if not os.access(args.bin, os.X_OK):
        parser.error(f"no tidepool-forecast binary at {args.bin} (build it, or pass --build-dir or --bin)")

    with tempfile.TemporaryDirectory(prefix="tidepool-holdout-") as directory:
        items = holdout_series(args.data, directory) if args.set == "holdout" else series_list(args.data)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda item: run(args.bin, args.model, item), items))

    rows, reductions, failures = [], [], []
    for r in results:
        name = os.path.basename(r["series"]).removesuffix(".csv")
        label = name if r["column"] == "value" else f"{name}:{r['column']}"
        if "error" in r:
            failures.append({"series": label, "error": r["error"]})
            continue
        ours = r["smape"]
        baselines = {k: v["smape"] for k, v in r["baselines"].items()}
        beats = all(ours < v for v in baselines.values())
        daily = baselines.get("seasonal-naive-daily")
        if daily:
            reductions.append(1 - ours / daily)
        cover = r["coverage_p10_p90"]
        rows.append({
            "series": label, "points": r["points"], "gaps": r["gap_points"], "held_out": r["held_out"],
            "origins": r["origins"], "smape": round(ours, 3), "mase": r["mase"] and round(r["mase"], 3),
            "coverage_p10_p90": round(cover, 1),
            "baselines_smape": {k: round(v, 3) for k, v in baselines.items()},
            "baselines_absent": r["baselines_absent"],
            "beats_every_baseline": beats, "coverage_in_70_90": 70 <= cover <= 90, "wall_ms": round(r["wall_ms"]),
            "fit_ms_per_origin": round(r["fit_ms_per_origin"], 1),
        })
    mean_reduction = sum(reductions) / len(reductions) if reductions else 0
    summary = {
        "model": args.model, "set": args.set, "horizon": "24 h", "series": len(items), "failed": failures, "results": rows,
        "mean_smape_reduction_vs_seasonal_naive_daily_pct": round(100 * mean_reduction, 2),
        "mean_coverage_p10_p90": round(sum(r["coverage_p10_p90"] for r in rows) / max(1, len(rows)), 1),
        "max_fit_ms_per_origin": max((r["fit_ms_per_origin"] for r in rows), default=0),
        "targets": {
            "beats_every_baseline_on_every_series": not failures and all(r["beats_every_baseline"] for r in rows),
            "series_not_beating_every_baseline": [r["series"] for r in rows if not r["beats_every_baseline"]],
            "mean_reduction_at_least_15pct": mean_reduction >= 0.15,
            "coverage_70_90_on_every_series": all(r["coverage_in_70_90"] for r in rows),
            "series_with_coverage_outside_70_90": [r["series"] for r in rows if not r["coverage_in_70_90"]],
            "series_beating_every_baseline": sum(r["beats_every_baseline"] for r in rows),
            "series_with_coverage_in_70_90": sum(r["coverage_in_70_90"] for r in rows),
        },
    }
    json.dump(summary, sys.stdout, indent=1)
    print()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
