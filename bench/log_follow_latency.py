#!/usr/bin/env python3
"""How soon a follower of a workload's output sees each line: reads held at the agent for output (`waitMs`, what
`tidepoolctl logs -f` does now) against reads every second (what it did before, and what it still does with an agent
or a daemon from before waiting reads).

Starts the real `tidepoold` and one real `tidepool-agent` (as root: the agent makes cgroups) from build/bin, and a
workload that writes the wall clock (`date +%s%N`) on a line every --every-ms. A follower reads on from the `end` of
each answer over one kept-alive connection, and for each line takes its latency: when the answer with it arrived less
the time written in it (one machine, one clock). Each way collects --lines lines; the first answer (the tail written
before the follower began) is skipped.

Prints one JSON object: per way, the latency's median, p90 and max (ms), and how many reads it took per line.

Usage (as root): bench/log_follow_latency.py [--lines 40] [--every-ms 250] [--bin DIR]
"""
import argparse
import http.client
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_launch import start_agent, start_tidepoold, stop_all, write_tokens  # noqa: E402


def summary(values):
    ordered = sorted(values)
    return {"median": round(statistics.median(ordered), 1), "p90": round(ordered[int(0.9 * (len(ordered) - 1))], 1),
            "max": round(ordered[-1], 1)}


def follow(port, token, logs, lines_wanted, wait_ms, poll_s):
    """Reads on from the end until `lines_wanted` lines have come: their latencies (ms) and the reads made."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": "Bearer " + token}
    conn.request("GET", logs, headers=headers)
    first = json.loads(conn.getresponse().read())
    end, incarnation = first["end"], first["incarnation"]
    latencies, reads = [], 0
    while len(latencies) < lines_wanted:
        if poll_s:
            time.sleep(poll_s)
        target = f"{logs}?from={end}&incarnation={incarnation}" + (f"&waitMs={wait_ms}" if wait_ms else "")
        conn.request("GET", target, headers=headers)
        answer = json.loads(conn.getresponse().read())
        arrived = time.time_ns()
        reads += 1
        end = answer["end"]
        for line in answer.get("data", "").splitlines():
            if line.strip().isdigit():
                latencies.append((arrived - int(line)) / 1e6)
    return latencies[:lines_wanted], reads


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=40)
    parser.add_argument("--every-ms", type=int, default=250)
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("run as root: the agent makes cgroups")

    work = tempfile.mkdtemp(prefix="tidepool-follow-")
    join_token, op_token, token = write_tokens(work)
    cgroup_name = f"tidepool-follow-bench-{os.getpid()}"
    daemon, _, ports = start_tidepoold(args.bin, work, join_token, op_token, [])
    agent = None
    try:
        agent, agent_log = start_agent(args.bin, work, ports[0], join_token, "follow-node", cgroup_name)
        api = http.client.HTTPConnection("127.0.0.1", ports[1], timeout=30)
        headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
        deadline = time.monotonic() + 30
        while True:
            api.request("GET", "/v1/nodes/follow-node", headers=headers)
            response = api.getresponse()
            response.read()
            if response.status == 200:
                break
            if time.monotonic() > deadline:
                sys.exit("the agent did not join; see " + agent_log.name)
            time.sleep(0.05)
        sleep_s = args.every_ms / 1000
        spec = {"name": "clock", "cpuMillis": 100, "memoryMiB": 32,
                "command": ["/bin/sh", "-c", f"while :; do date +%s%N; sleep {sleep_s}; done"]}
        api.request("POST", "/v1/workloads", body=json.dumps(spec), headers=headers)
        response = api.getresponse()
        body = json.loads(response.read())
        if response.status != 201:
            sys.exit(f"submit: {response.status} {body}")
        logs = f"/v1/workloads/{body['id']}/logs"
        deadline = time.monotonic() + 30
        while True:
            api.request("GET", logs, headers=headers)
            response = api.getresponse()
            data = json.loads(response.read())
            if response.status == 200 and data.get("data"):
                break
            if time.monotonic() > deadline:
                sys.exit(f"no output: {data}; see {agent_log.name}")
            time.sleep(0.05)

        waiting, waiting_reads = follow(ports[1], token, logs, args.lines, 10_000, 0)
        polling, polling_reads = follow(ports[1], token, logs, args.lines, 0, 1.0)
        print(json.dumps({"lines": args.lines, "every_ms": args.every_ms,
                          "waiting_reads": {"latency_ms": summary(waiting),
                                            "reads_per_line": round(waiting_reads / args.lines, 2)},
                          "reads_every_second": {"latency_ms": summary(polling),
                                                 "reads_per_line": round(polling_reads / args.lines, 2)}}, indent=2))
    finally:
        stop_all((agent, daemon), cgroup_name)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
