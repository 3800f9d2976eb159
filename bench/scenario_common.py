"""What bench/scenario_spread.py and bench/scenario_surprise.py share: their common options, and one run of
`tidepool-sim scenario` in one mode, its database removed afterwards."""

import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def add_common_arguments(parser):
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--data", default=os.path.normpath(os.path.join(ROOT, "..", "shared", "data")))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--db-dir", default="/dev/shm" if os.path.isdir("/dev/shm") else "/tmp")


def scenario_binary(parser, args):
    binary = os.path.join(os.path.abspath(args.build_dir), "bin", "tidepool-sim")
    if not os.access(binary, os.X_OK):
        parser.error(f"no tidepool-sim at {binary} (build it, or pass --build-dir)")
    return binary


def run_scenario(binary, data, db, mode, options):
    """`tidepool-sim scenario --mode mode` with `options`; returns that mode's figures. Raises naming the command."""
    cmd = [binary, "scenario", "--mode", mode, "--data", data, "--db", db, "--json"] + [str(o) for o in options]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        for path in [db] + [f"{db}-{mode}.db{suffix}" for suffix in ("", "-wal", "-shm")]:
            if os.path.exists(path):
                os.remove(path)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout)[mode]
