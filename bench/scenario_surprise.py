#!/usr/bin/env python3
"""Runs `tidepool-sim scenario` with load no forecast knows of (`--surprise-*`), under static allocation and under
Tidepool at several planning headrooms, and reports what each surprise cost inside its window: inference replicas
wanted and not running, minutes short and slow, the window's p99, service replicas unmet, batch runs stopped, nodes
booted. This is the risk side of the headroom: BENCHMARKS.md section 7 measures what the headroom costs, this what it
buys.

usage: bench/scenario_surprise.py [--build-dir build] [--loads 0.5] [--headrooms 1.2,1.0] [--starts 0]
                                  [--surprises all|name,name] [--launches 0/0/0,...] [--jobs 2] [--db-dir /dev/shm]
                                  [--data ../shared/data]

--launches: each I/S/D runs every surprise with inference replicas taking I seconds to load their model, service
replicas S seconds to start, and the autoscalers removing a replica only when the load has wanted fewer for D minutes
(`--inference-launch-seconds`, `--service-launch-seconds`, `--scale-down-minutes`); 0/0/0 = the scenario's default.
I/S/D/ahead also has the inference autoscaler scale ahead of Tidepool's forecast (`--scale-ahead`, Tidepool only).

The surprises (`none` runs without one; hours of the run, which starts on a Monday at 00:00 UTC; the measured days are hours 48-192; the
inference trace is busy from about 01:00 to 10:00 UTC each day, peaking at 07:00-08:00, and nearly idle from 11:00 to
24:00):
  peak_x1.3         inference asks 1.3 times its trace from 06:00 to 09:00 on day 4 (a peak 30% above the forecast)
  peak_x1.6         the same, 1.6 times: more than static allocation keeps for inference at a 20% headroom
  burst_0.6         inference asks 0.6 of its peak on top of its trace from 15:00 to 17:00 on day 4, in its trough
  burst_1.0         the same, its whole peak, in the trough
  shift_x1.3        inference asks 1.3 times its trace from day 4 00:00 to the end (a level shift, 4 days)
  services_x1.1     every business line and inference ask 1.1 times their traces for the whole of day 4
  services_x1.25    the same, 1.25 times
A run takes about 1 minute (static) and 2 minutes (Tidepool) on the 2-core development VM. Prints one JSON object.
"""

import argparse
import concurrent.futures
import json
import os
import sys

from scenario_common import add_common_arguments, run_scenario, scenario_binary

# name: (hour of the run it starts, hours, factor, add, on)
SURPRISES = {
    "none": (0, 0, 1.0, 0.0, "inference"),
    "peak_x1.3": (102, 3, 1.3, 0.0, "inference"),
    "peak_x1.6": (102, 3, 1.6, 0.0, "inference"),
    "burst_0.6": (111, 2, 1.0, 0.6, "inference"),
    "burst_1.0": (111, 2, 1.0, 1.0, "inference"),
    "shift_x1.3": (96, 96, 1.3, 0.0, "inference"),
    "services_x1.1": (96, 24, 1.1, 0.0, "all"),
    "services_x1.25": (96, 24, 1.25, 0.0, "all"),
}
WHOLE_RUN = ["cost", "gpu_utilisation", "inference_p99_ms", "inference_slow_minutes", "inference_unmet_share", "service_unmet_share",
             "batch_completion_mean_s", "batch_restarts", "invariant_violations"]


def run(binary, data, db_dir, task):
    surprise, headroom, mode, load, start, launch = task
    at, hours, factor, add, on = SURPRISES[surprise]
    inference_s, service_s, scale_down_min, ahead = launch
    db = os.path.join(db_dir, f"tidepool-surprise-{os.getpid()}-{surprise}-{headroom}-{mode}-{load}-{start}-"
                              f"{inference_s}-{service_s}-{scale_down_min}-{ahead}")
    options = ["--batch-load", load, "--batch-start", start, "--headroom", headroom, "--surprise-at-hour", at,
               "--surprise-hours", hours, "--surprise-factor", factor, "--surprise-add", add, "--surprise-on", on,
               "--inference-launch-seconds", inference_s, "--service-launch-seconds", service_s,
               "--scale-down-minutes", scale_down_min] + (["--scale-ahead"] if ahead else [])
    result = run_scenario(binary, data, db, mode, options)
    return task, {"window": result["surprise"], **{k: result[k] for k in WHOLE_RUN}}


def parse_launch(parser, text):
    fields = text.split("/")
    ahead = len(fields) == 4 and fields[3] == "ahead"
    try:
        if len(fields) != 3 and not ahead:
            raise ValueError
        inference_s, service_s, scale_down_min = (float(x) for x in fields[:3])
    except ValueError:
        parser.error(f"--launches: '{text}' is not inference-seconds/service-seconds/scale-down-minutes[/ahead]")
    return inference_s, service_s, scale_down_min, ahead


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_arguments(parser)
    parser.add_argument("--loads", default="0.5")
    parser.add_argument("--headrooms", default="1.2,1.0")
    parser.add_argument("--starts", default="0")
    parser.add_argument("--surprises", default="all")
    parser.add_argument("--launches", default="0/0/0")
    args = parser.parse_args()
    binary = scenario_binary(parser, args)
    surprises = [s for s in SURPRISES if s != "none"] if args.surprises == "all" else args.surprises.split(",")
    unknown = [s for s in surprises if s not in SURPRISES]
    if unknown:
        parser.error(f"unknown surprise {', '.join(unknown)}: one of {', '.join(SURPRISES)}")
    loads = [float(x) for x in args.loads.split(",")]
    headrooms = [float(x) for x in args.headrooms.split(",")]
    starts = [float(x) for x in args.starts.split(",")]
    launches = [parse_launch(parser, x) for x in args.launches.split(",")]

    tasks = [(s, h, mode, load, start, launch) for s in surprises for load in loads for h in headrooms
             for start in starts for launch in launches for mode in ("tidepool", "static")]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = dict(pool.map(lambda t: run(binary, args.data, args.db_dir, t), tasks))

    out = {"surprises": {s: dict(zip(("at_hour", "hours", "factor", "add", "on"), SURPRISES[s])) for s in surprises},
           "runs": []}
    for (surprise, headroom, mode, load, start, launch), result in results.items():
        out["runs"].append({"surprise": surprise, "headroom": headroom, "mode": mode, "load": load, "start": start,
                            "inference_launch_s": launch[0], "service_launch_s": launch[1],
                            "scale_down_minutes": launch[2], "scale_ahead": launch[3], **result})
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
