#!/usr/bin/env python3
"""Backtests the load forecasting models at a 24-hour horizon on every series of ../shared/data/load-series (every
numeric column of every file) and ../shared/data/nab/realAWSCloudwatch, and prints one JSON summary: per series our
sMAPE, each baseline's, our coverage; the average sMAPE reduction against seasonal-naive daily; which targets are met.

Usage: bench/forecast_backtest.py [--build-dir build | --bin build/bin/tidepool-forecast] [--data ../shared/data]
                                  [--jobs 2] [--model seasonal]
--build-dir names a CMake build directory (e.g. build-forecast) whose bin/tidepool-forecast is used; --bin names the
binary itself and wins over it. Each row also reports fit_ms_per_origin, the model's time per forecast (the cost of one
refit for one pool and resource in the evaluation loop). Only the Python standard library is used.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

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
    args = parser.parse_args()
    if args.bin is None:
        args.bin = os.path.join(os.path.abspath(args.build_dir), "bin", "tidepool-forecast")
    if not os.access(args.bin, os.X_OK):
        parser.error(f"no tidepool-forecast binary at {args.bin} (build it, or pass --build-dir or --bin)")

    items = series_list(args.data)
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
        "model": args.model, "horizon": "24 h", "series": len(items), "failed": failures, "results": rows,
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
