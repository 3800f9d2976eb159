#!/usr/bin/env python3
"""How soon a console attached to tidepoold (`tidepool --connect`) shows a change someone else made: with its event
watch (a second connection waits for the daemon's next event and wakes the poller) and with the poll alone (once a
second). Starts the real `tidepoold` from build/bin on loopback (no agents: each change is a pool created over the
API) and runs `tidepool-bench-remote-change` against it, which drives the real `RemoteBackend`; prints its JSON.

Usage: bench/remote_console_latency.py [--changes 20] [--poll-ms 1000] [--bin DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_launch import start_tidepoold, stop_all, write_tokens  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--poll-ms", type=int, default=1000)
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="tidepool-remote-change-")
    daemon = None
    try:
        join_token, op_token, _ = write_tokens(work)
        daemon, _, (_, api_port) = start_tidepoold(args.bin, work, join_token, op_token, [])
        run = subprocess.run([os.path.join(args.bin, "tidepool-bench-remote-change"), "--url",
                              f"http://127.0.0.1:{api_port}", "--token-file", op_token, "--changes",
                              str(args.changes), "--poll-ms", str(args.poll_ms)], stdout=subprocess.PIPE, text=True)
        if run.returncode != 0:
            sys.exit(f"tidepool-bench-remote-change failed ({run.returncode}); tidepoold's log: "
                     + os.path.join(work, "tidepoold.log"))
        sys.stdout.write(run.stdout)
    finally:
        stop_all([daemon], "tidepool-remote-change-none")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
