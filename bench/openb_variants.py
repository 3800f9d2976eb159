#!/usr/bin/env python3
"""Generates openb workload variants that the paper did not publish, from the default pod list, to check that a
policy tuned on the nine published workloads holds on others (bench/README and BENCHMARKS.md).

    bench/openb_variants.py OUTDIR [--data ../shared/data/openb] [--seed 7]

Writes OUTDIR/openb_pod_list_x-<name>.csv in the trace's own format:
  x-cpuNNN        CPU-only pods at NNN% of the default count (100 = the default mix reshuffled)
  x-gpushareNN    whole 1-GPU pods swapped for fractional ones (or back) until fractional pods ask NN% of the GPU
  x-gpuspecNN     NN% of GPU pods given a model constraint drawn from gpuspec25's constraints
  x-multigpuNN    1-GPU pods swapped for multi-GPU ones until multi-GPU pods ask NN% of the GPU
"""
import argparse
import csv
import os
import random


def gpu(rows):
    return sum(int(r["num_gpu"]) * int(r["gpu_milli"]) for r in rows)


def is_fractional(r):
    return r["num_gpu"] == "1" and int(r["gpu_milli"]) < 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "openb"))
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    def load(name):
        with open(os.path.join(args.data, f"openb_pod_list_{name}.csv")) as f:
            reader = csv.DictReader(f)
            return reader.fieldnames, list(reader)

    fields, default = load("default")
    specs = [r["gpu_spec"] for r in load("gpuspec25")[1] if r.get("gpu_spec")]
    cpu = [r for r in default if r["num_gpu"] == "0"]
    gpus = [r for r in default if r["num_gpu"] != "0"]
    fractional = [r for r in gpus if is_fractional(r)]
    whole = [r for r in gpus if r["num_gpu"] == "1" and not is_fractional(r)]
    multi = [r for r in gpus if int(r["num_gpu"]) > 1]
    os.makedirs(args.outdir, exist_ok=True)

    def save(name, rows):
        with open(os.path.join(args.outdir, f"openb_pod_list_x-{name}.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            for i, r in enumerate(rows):
                w.writerow(dict(r, name=f"openb-pod-{i:05d}"))

    for pct in (100, 150, 300):
        save(f"cpu{pct}", gpus + [rng.choice(cpu) for _ in range(len(cpu) * pct // 100)])

    for target in (20, 60):
        rows = list(default)
        total = gpu(rows)
        frac = sum(int(r["gpu_milli"]) for r in rows if is_fractional(r))
        grow = frac < target / 100 * total
        candidates = [i for i, r in enumerate(rows) if (r in whole if grow else is_fractional(r))]
        rng.shuffle(candidates)
        for i in candidates:
            if (frac >= target / 100 * total) if grow else (frac <= target / 100 * total):
                break
            new = rng.choice(fractional if grow else whole)
            total += int(new["gpu_milli"]) - int(rows[i]["gpu_milli"])
            frac += int(new["gpu_milli"]) if grow else -int(rows[i]["gpu_milli"])
            rows[i] = new
        save(f"gpushare{target}", rows)

    for target in (5, 15, 35):
        rows = [dict(r) for r in default]
        for r in rows:
            if r["num_gpu"] != "0" and rng.random() < target / 100:
                r["gpu_spec"] = rng.choice(specs)
        save(f"gpuspec{target}", rows)

    for target in (30, 50):
        rows = list(default)
        total = gpu(rows)
        multi_gpu = sum(int(r["num_gpu"]) * 1000 for r in rows if int(r["num_gpu"]) > 1)
        candidates = [i for i, r in enumerate(rows) if r["num_gpu"] == "1"]
        rng.shuffle(candidates)
        for i in candidates:
            if multi_gpu >= target / 100 * total:
                break
            new = rng.choice(multi)
            total += int(new["num_gpu"]) * 1000 - int(rows[i]["gpu_milli"])
            multi_gpu += int(new["num_gpu"]) * 1000
            rows[i] = new
        save(f"multigpu{target}", rows)

if __name__ == "__main__":
    main()
