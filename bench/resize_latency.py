#!/usr/bin/env python3
"""A running workload resized in place on the real agent, against giving it the new size by starting it again.

Starts the real `tidepoold` and one real `tidepool-agent` (as root: the agent makes cgroups) from build/bin, submits a
workload (`sleep`) and, once it runs, resizes it --rounds times over the API, alternating between two sizes (CPU
request and limit, memory limit). For each resize it measures, on the client's clock:
  - answer_ms: from the POST to the daemon's answer (the core has charged the new request and sent the agent a
    `resize`);
  - applied_ms: from the POST until the workload's JSON no longer has `resize` (its agent answered that every value
    is in place), read every millisecond;
and checks that the workload's cgroup holds the new memory limit and that its process is the same.
Then, --rounds times, what the operator would do without resizing: cancel it and submit it again at the new size,
timed from the DELETE until the new workload is `running` on the agent (restart_ms): its service is down meanwhile.

Prints one JSON object with the medians, p90s and maxima.

Usage (as root): bench/resize_latency.py [--rounds 20] [--bin DIR]
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


class Api:
    def __init__(self, port, token):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.token = token

    def call(self, method, path, body=None):
        headers = {"Content-Type": "application/json", "Authorization": "Bearer " + self.token}
        self.conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = self.conn.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else None

    def workload(self, wid):
        status, body = self.call("GET", f"/v1/workloads/{wid}")
        if status != 200:
            sys.exit(f"GET /v1/workloads/{wid}: {status} {body}")
        return body


def wait_for(predicate, timeout_s, step_s=0.001):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step_s)
    return None


def summary(values):
    ordered = sorted(values)
    return {"median": round(statistics.median(ordered), 2), "p90": round(ordered[int(0.9 * (len(ordered) - 1))], 2),
            "max": round(ordered[-1], 2)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("run as root: the agent makes cgroups")

    work = tempfile.mkdtemp(prefix="tidepool-resize-")
    join_token, op_token, token = write_tokens(work)
    cgroup_name = f"tidepool-resize-bench-{os.getpid()}"
    daemon, _, ports = start_tidepoold(args.bin, work, join_token, op_token, ["--heartbeat-interval-ms", "1000"])
    agent = None
    try:
        api = Api(ports[1], token)
        agent, agent_log = start_agent(args.bin, work, ports[0], join_token, "resize-node", cgroup_name)
        if not wait_for(lambda: api.call("GET", "/v1/nodes/resize-node")[0] == 200, 30, 0.05):
            sys.exit("the agent did not join; see " + agent_log.name)

        sizes = [{"cpuMillis": 500, "cpuLimitMillis": 1000, "memoryLimitMiB": 512},
                 {"cpuMillis": 250, "cpuLimitMillis": 500, "memoryLimitMiB": 256}]
        spec = {"name": "resized", "memoryMiB": 64, "command": ["/bin/sleep", "3600"], **sizes[0]}
        status, body = api.call("POST", "/v1/workloads", spec)
        if status != 201:
            sys.exit(f"submit: {status} {body}")
        wid = body["id"]
        running = wait_for(lambda: api.workload(wid).get("phase") == "running", 15, 0.01)
        if not running:
            sys.exit("the workload did not start; see " + agent_log.name)
        pid = api.workload(wid)["pid"]
        record = json.load(open(os.path.join(work, "state", "workloads", str(wid), "launch.json")))
        memory_dir = record["cgroup"]["memory"]
        limit_file = os.path.join(memory_dir, "memory.max" if os.path.exists(
            os.path.join(memory_dir, "memory.max")) else "memory.limit_in_bytes")

        answer_ms, applied_ms = [], []
        for i in range(args.rounds):
            size = sizes[(i + 1) % 2]
            t0 = time.monotonic()
            status, body = api.call("POST", f"/v1/workloads/{wid}/resize", size)
            t1 = time.monotonic()
            if status != 200 or not body.get("resized"):
                sys.exit(f"resize: {status} {body}")
            if not wait_for(lambda: "resize" not in api.workload(wid), 10):
                sys.exit(f"resize {i} not confirmed: {api.workload(wid)}")
            t2 = time.monotonic()
            answer_ms.append((t1 - t0) * 1000)
            applied_ms.append((t2 - t0) * 1000)
            with open(limit_file) as f:
                written = int(f.read().split()[0])
            if written != size["memoryLimitMiB"] << 20:
                sys.exit(f"{limit_file} holds {written}, not {size['memoryLimitMiB']} MiB")
            now = api.workload(wid)
            if now["pid"] != pid or now["cpuMillis"] != size["cpuMillis"]:
                sys.exit(f"after resize {i}: {now}")

        restart_ms = []
        current = wid
        for i in range(args.rounds):
            size = sizes[(i + 1) % 2]
            t0 = time.monotonic()
            status, _ = api.call("DELETE", f"/v1/workloads/{current}")
            if status != 200:
                sys.exit(f"cancel: {status}")
            status, body = api.call("POST", "/v1/workloads", {**spec, **size, "name": f"restarted-{i}"})
            if status != 201:
                sys.exit(f"submit again: {status} {body}")
            current = body["id"]
            if not wait_for(lambda: api.workload(current).get("phase") == "running", 30):
                sys.exit(f"restart {i} did not run: {api.workload(current)}")
            restart_ms.append((time.monotonic() - t0) * 1000)
        api.call("DELETE", f"/v1/workloads/{current}")
        wait_for(lambda: api.workload(current).get("phase") == "cancelled", 15, 0.05)

        print(json.dumps({"rounds": args.rounds, "resize_answer_ms": summary(answer_ms),
                          "resize_applied_ms": summary(applied_ms), "restart_ms": summary(restart_ms),
                          "same_process": True}, indent=2))
    finally:
        stop_all((agent, daemon), cgroup_name)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
