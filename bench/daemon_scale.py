#!/usr/bin/env python3
"""tidepoold at scale on loopback: a fleet of simulated agents joins, heartbeats, and takes a burst of workloads.

Starts the real `tidepoold` and `tidepool-fleet` from build/bin, then measures and prints one JSON object:
  - join_s: from starting the fleet to /metrics reporting tidepool_nodes{state="ready"} == N;
  - daemon_cores: tidepoold's CPU use (user + system, from /proc/PID/stat) over --window seconds of steady
    heartbeating, in cores; fleet_cores likewise for the fleet process;
  - burst: --burst workloads submitted through the API (in batches of --batch), and the time from the first
    submit to the last launch acknowledged by an agent (the daemon's own timestamps, /v1/summary), each workload's
    own submit-to-acknowledgement time (p50, p99; millisecond timestamps), and the client's wall time to the last
    submit.

Usage: bench/daemon_scale.py [--nodes 2000] [--heartbeat-ms 1000] [--window 20] [--burst 10000] [--batch 1000]
                             [--load-series CSV] [--console-reads N] [--crowd N] [--stop] [--bin DIR]
                             [--net-mbps M --workload-net-mbps W] [--after-window S] [--pools N] [--no-pool-usage]
                             [--no-workload-usage] [--event-follow N]

  - pools (--pools N): N pools created one after another (their wall time, pools_create_ms) before the burst, which is
    spread over them; with --after-window, the pools' measured use the agents report (--no-pool-usage: none) and the
    time to read the pool list.
  - stop (--stop): at the end, SIGTERM to tidepoold and the seconds until it exits, and how many agents were told
    "the core is stopping" (a reject each; the fleet's status line counts them).
  - event follow (--event-follow N): a reader follows the timeline's placements while N workloads are submitted one
    at a time, 0.3 to 0.7 s apart; from each submit to its placement row reaching the reader (p50, p90, max ms), the
    reads it made a second and the daemon's CPU over it: once polling every second (how `tidepoolctl events -f` read
    before), once with waiting reads (`waitMs`, as it reads now).
  - crowd (--crowd N): after the burst, N clients read the whole workload list at once while one client reads a
    page of 5 every 50 ms: the small reads' latency (p50, max), and how many full reads were answered or refused
    busy (503).
"""
import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_launch import start_tidepoold, write_tokens  # noqa: E402


def cpu_seconds(pid, thread=None):
    """CPU seconds of process `pid`, or of its thread `thread` (tidepoold's core thread is its main thread: its id is
    the pid)."""
    with open(f"/proc/{pid}/task/{thread}/stat" if thread else f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime


class Api:
    def __init__(self, port, token):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.token = token

    def call(self, method, path, body=None, auth=True):
        headers = {"Content-Type": "application/json"}
        if auth:
            headers["Authorization"] = "Bearer " + self.token
        self.conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = self.conn.getresponse()
        data = response.read()
        return response.status, data

    def metric(self, series):
        status, data = self.call("GET", "/metrics", auth=False)
        for line in data.decode().splitlines():
            if line.startswith(series + " "):
                return float(line.split()[-1])
        return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--heartbeat-ms", type=int, default=1000)
    parser.add_argument("--window", type=float, default=20)
    parser.add_argument("--burst", type=int, default=10000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--inventory", default="pai2020")
    parser.add_argument("--load-series", default=None,
                        help="CSV whose CPU and memory columns drive the agents' utilisation (tidepool-fleet "
                             "--load-series); without it every agent reports a steady 30%% CPU and devices")
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--console-reads", type=int, default=0,
                        help="after the burst, time this many reads of what a remote console reads every second")
    parser.add_argument("--crowd", type=int, default=0,
                        help="after the burst, this many concurrent full /v1/workloads reads, with small reads timed")
    parser.add_argument("--net-mbps", type=int, default=0,
                        help="the fleet's nodes shape their links at this rate (tidepool-fleet --net-mbps)")
    parser.add_argument("--workload-net-mbps", type=int, default=0,
                        help="each burst workload asks for this much network (netBandwidthMbps)")
    parser.add_argument("--after-window", type=float, default=0,
                        help="a second heartbeat window of this many seconds after the burst, the nodes holding it")
    parser.add_argument("--pools", type=int, default=0,
                        help="create this many pools and spread the burst over them (pool-0, pool-1, ...)")
    parser.add_argument("--no-workload-usage", action="store_true",
                        help="the fleet's samples carry no workload's measured use")
    parser.add_argument("--no-pool-usage", action="store_true",
                        help="the fleet's samples carry no pools' measured use (tidepool-fleet --no-pool-usage)")
    parser.add_argument("--event-follow", type=int, default=0,
                        help="submit N workloads one by one and time their placement rows reaching a follower")
    parser.add_argument("--stop", action="store_true",
                        help="at the end, time tidepoold's exit after SIGTERM and count the agents told why")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="tidepool-scale-")
    join_token, op_token, token = write_tokens(work)
    daemon, daemon_log, ports = start_tidepoold(args.bin, work, join_token, op_token,
                                                ["--heartbeat-interval-ms", str(args.heartbeat_ms),
                                                 "--suspect-after-ms", str(max(15000, 3 * args.heartbeat_ms)),
                                                 "--lost-after-ms", str(max(45000, 9 * args.heartbeat_ms))])
    fleet = None
    try:
        api = Api(ports[1], token)

        started = time.monotonic()
        fleet_out = open(os.path.join(work, "fleet.out"), "w+")
        fleet = subprocess.Popen([os.path.join(args.bin, "tidepool-fleet"), "--core", f"127.0.0.1:{ports[0]}",
                                  "--join-token-file", join_token, "--nodes", str(args.nodes), "--inventory",
                                  args.inventory, "--report-every", "0.5" if args.stop else "0"]
                                 + (["--load-series", args.load_series] if args.load_series else [])
                                 + (["--net-mbps", str(args.net_mbps)] if args.net_mbps else [])
                                 + (["--no-pool-usage"] if args.no_pool_usage else [])
                                 + (["--no-workload-usage"] if args.no_workload_usage else []),
                                 stdout=fleet_out)
        join_s = None
        while time.monotonic() - started < 120:
            if api.metric('tidepool_nodes{state="ready"}') == args.nodes:
                join_s = time.monotonic() - started
                break
            time.sleep(0.1)
        if join_s is None:
            sys.exit("the fleet did not join within 120 s")

        time.sleep(2)  # let the heartbeats settle into their rhythm
        d0, f0, t0 = cpu_seconds(daemon.pid), cpu_seconds(fleet.pid), time.monotonic()
        h0 = api.metric("tidepool_agent_heartbeats_total")
        time.sleep(args.window)
        d1, f1, t1 = cpu_seconds(daemon.pid), cpu_seconds(fleet.pid), time.monotonic()
        h1 = api.metric("tidepool_agent_heartbeats_total")

        pools_started = time.monotonic()
        for p in range(args.pools):
            status, data = api.call("POST", "/v1/pools", {"name": f"pool-{p}"})
            if status != 201:
                sys.exit(f"creating pool-{p} failed: {status} {data[:200]!r}")
        pools_create_ms = round((time.monotonic() - pools_started) * 1000, 1) if args.pools else None

        burst = None
        if args.burst > 0:
            submit_started = time.time()
            for start in range(0, args.burst, args.batch):
                items = [{"name": f"burst-{i}", "cpuMillis": 500, "memoryMiB": 1024, "command": ["/bin/true"]}
                         | ({"netBandwidthMbps": args.workload_net_mbps} if args.workload_net_mbps else {})
                         | ({"pool": f"pool-{i % args.pools}"} if args.pools else {})
                         for i in range(start, min(args.burst, start + args.batch))]
                status, data = api.call("POST", "/v1/workloads", {"workloads": items})
                if status != 201:
                    sys.exit(f"submit failed: {status} {data[:200]!r}")
            submitted = time.time()
            summary = {}
            while time.time() - submit_started < 120:
                status, data = api.call("GET", "/v1/summary")
                summary = json.loads(data)
                if summary["acknowledged"] >= args.burst:
                    break
                time.sleep(0.005)
            status, data = api.call("GET", f"/v1/workloads?phase=running&limit={args.burst}")
            waits = sorted(w["runningMs"] - w["submittedMs"] for w in json.loads(data)["workloads"]
                           if w.get("runningMs"))
            pick = lambda q: waits[min(len(waits) - 1, int(q * len(waits)))] if waits else None
            burst = {
                "workloads": args.burst,
                "submit_to_ack_ms_p50": pick(0.50),
                "submit_to_ack_ms_p99": pick(0.99),
                "batch": args.batch,
                "acknowledged": summary.get("acknowledged"),
                "first_submit_to_last_ack_ms": summary["lastAckMs"] - summary["firstSubmitMs"],
                "client_submit_wall_ms": round((submitted - submit_started) * 1000, 1),
                "pending": summary["workloads"]["pending"],
            }
            if args.after_window > 0:
                # Heartbeats again, now that every node holds its share of the burst (the fleet keeps what it is
                # launched running): with shaped links, each heartbeat of a node recounts its pools' guarantees.
                time.sleep(2)
                a0, at0, ah0 = cpu_seconds(daemon.pid), time.monotonic(), api.metric("tidepool_agent_heartbeats_total")
                time.sleep(args.after_window)
                a1, at1, ah1 = cpu_seconds(daemon.pid), time.monotonic(), api.metric("tidepool_agent_heartbeats_total")
                burst["after"] = {"window_s": round(at1 - at0, 1),
                                  "heartbeats_per_s": round((ah1 - ah0) / (at1 - at0), 1),
                                  "daemon_cores": round((a1 - a0) / (at1 - at0), 3)}
                status, data = api.call("GET", "/v1/nodes")
                nodes = json.loads(data)["nodes"]
                shaped = [n for n in nodes if "netMbps" in n]
                burst["after"]["shaped_nodes"] = len(shaped)
                burst["after"]["net_mbps_guaranteed"] = sum(n["netMbps"] - n["netMbpsFree"] for n in shaped)
                # The pools' measured use the agents sent (each node's latest sample), and what reading it costs: the
                # pool list sums every connected node's figures on the core thread.
                burst["after"]["pool_usage_entries"] = sum(len(n.get("poolUsage", [])) for n in nodes)
                times, k0 = [], cpu_seconds(daemon.pid, daemon.pid)
                for _ in range(20):
                    begun = time.monotonic()
                    status, data = api.call("GET", "/v1/pools")
                    times.append((time.monotonic() - begun) * 1000)
                k1 = cpu_seconds(daemon.pid, daemon.pid)
                pools = json.loads(data)["pools"]
                times.sort()
                burst["after"]["pools_read"] = {
                    "pools": len(pools), "measured_cpu_millis": sum((p.get("measured") or {}).get("cpuMillis", 0)
                                                                   for p in pools),
                    "ms_p50": round(times[len(times) // 2], 1), "core_thread_cpu_ms": round((k1 - k0) * 1000 / 20, 1)}

        console = None
        if args.console_reads > 0:
            # What `tidepool --connect` reads each second (ui/bridge/remote_backend.cpp): the nodes and the live
            # workloads. Its first poll lists every live workload by phase (as every poll did before the cursor);
            # the later ones ask only for the workloads changed since (`changedSince`). Each timed at the client,
            # with the daemon's CPU time over the same reads, and its core thread's (where heartbeats and placements
            # run); the workloads are steady here (all running).
            phases = [f"/v1/workloads?phase={p}&limit=10000000" for p in ("pending", "launching", "running", "stopping")]

            def timed(paths_of):
                times, sizes = [], []
                c0, k0 = cpu_seconds(daemon.pid), cpu_seconds(daemon.pid, daemon.pid)
                for _ in range(args.console_reads):
                    begun, size = time.monotonic(), 0
                    for path in paths_of():
                        status, data = api.call("GET", path)
                        if status != 200:
                            sys.exit(f"GET {path}: {status} {data[:200]!r}")
                        size += len(data)
                    times.append((time.monotonic() - begun) * 1000)
                    sizes.append(size)
                c1, k1 = cpu_seconds(daemon.pid), cpu_seconds(daemon.pid, daemon.pid)
                times.sort()
                return {"ms_p50": round(times[len(times) // 2], 1), "ms_max": round(times[-1], 1),
                        "bytes": sizes[-1], "daemon_cpu_ms": round((c1 - c0) * 1000 / args.console_reads, 1),
                        "core_thread_cpu_ms": round((k1 - k0) * 1000 / args.console_reads, 1)}

            status, data = api.call("GET", phases[0])
            cursor = json.loads(data)["cursor"]
            # The console's views (ui/bridge/console_feed.h): the devices in full (the first poll), then each poll's
            # four reads with what the console already has (frames, events and forecasts since).
            status, data = api.call("GET", "/v1/devices")
            frames = json.loads(data).get("history", {}).get("frames", [])
            after = max([f.get("atMs", 0) for f in frames], default=0)
            status, data = api.call("GET", "/v1/events")
            latest = json.loads(data).get("latest", 0)
            status, data = api.call("GET", "/v1/forecasts")
            revision = json.loads(data).get("revision", -1)
            feed = [f"/v1/devices?framesAfter={after}", f"/v1/events?after={latest}",
                    f"/v1/forecasts?ifRevision={revision}", "/v1/alerts"]
            def polled(first_path, next_path, counts):
                # A console's later polls: `console_reads` reads a second apart, each of `next_path(answer before)`
                # after a first of `first_path`; the pause is not timed, and the daemon's CPU is read around each read
                # alone. `counts(answer)` says what each answer held.
                status, data = api.call("GET", first_path)
                answer = json.loads(data)
                times, sizes, cpu, core, held = [], [], 0.0, 0.0, []
                for _ in range(args.console_reads):
                    time.sleep(1.0)
                    path = next_path(answer)
                    c0, k0 = cpu_seconds(daemon.pid), cpu_seconds(daemon.pid, daemon.pid)
                    begun = time.monotonic()
                    status, data = api.call("GET", path)
                    times.append((time.monotonic() - begun) * 1000)
                    c1, k1 = cpu_seconds(daemon.pid), cpu_seconds(daemon.pid, daemon.pid)
                    if status != 200:
                        sys.exit(f"GET {path}: {status} {data[:200]!r}")
                    cpu, core = cpu + c1 - c0, core + k1 - k0
                    answer = json.loads(data)
                    sizes.append(len(data))
                    held.append(counts(answer))
                times.sort()
                result = {"ms_p50": round(times[len(times) // 2], 1), "ms_max": round(times[-1], 1),
                          "bytes_p50": sorted(sizes)[len(sizes) // 2], "bytes_mean": round(sum(sizes) / len(sizes)),
                          "daemon_cpu_ms": round(cpu * 1000 / args.console_reads, 1),
                          "core_thread_cpu_ms": round(core * 1000 / args.console_reads, 1)}
                for key in held[0]:
                    result[key + "_p50"] = sorted(h[key] for h in held)[len(held) // 2]
                return result

            def nodes_polled():
                # The nodes (core/api/node_rows.h): every node's fingerprint and the usage of those heard from since
                # the last poll. No placement changes here, so no row is read again.
                status, data = api.call("GET", "/v1/nodes")
                cursor = json.loads(data).get("usageCursor")
                if cursor is None:
                    return None  # a tidepoold from before usageSince (--bin)
                return polled(f"/v1/nodes?usageSince={cursor}",
                              lambda answer: f"/v1/nodes?usageSince={answer['usageCursor']}",
                              lambda answer: {"nodes_heard_from": sum(1 for n in answer["nodes"] if "usage" in n)})

            def devices_polled():
                # The devices (ui/bridge/console_feed.h): the rows changed since the cursor of the last answer, only
                # the usage of those whose usage alone changed, and the frames after the newest held. A tidepoold from
                # before the cursor (--bin) answers every row each poll, which is what the console then reads.
                frames_after = [0]

                def next_path(answer):
                    frames = answer.get("history", {}).get("frames", [])
                    frames_after[0] = max([f.get("atMs", 0) for f in frames], default=frames_after[0])
                    cursor = answer.get("cursor")
                    return f"/v1/devices?framesAfter={frames_after[0]}" + (f"&changedSince={cursor}" if cursor else "")

                result = polled("/v1/devices", next_path,
                                lambda answer: {"rows_whole": len(answer["devices"]),
                                                "usage_entries": len(answer.get("usage", []))})
                status, data = api.call("GET", "/v1/devices")
                answer = json.loads(data)
                result.update({"cursor": "cursor" in answer, "devices": len(answer["devices"])})
                return result

            console = {
                "reads": args.console_reads,
                "devices_full": timed(lambda: ["/v1/devices"]),
                "views_steady": timed(lambda: feed),
                "nodes": timed(lambda: ["/v1/nodes"]),
                "workloads_full": timed(lambda: phases),
                "workloads_changed_since": timed(lambda: [f"/v1/workloads?changedSince={cursor}&limit=10000000"]),
                # As the console reads them since session 40: with what each workload measured now uses.
                "workloads_changed_since_usage": timed(
                    lambda: [f"/v1/workloads?changedSince={cursor}&limit=10000000&usage=1"]),
            }
            console["nodes_usage_since"] = nodes_polled()  # last: its pauses would shift the reads above in time
            console["devices_changed_since"] = devices_polled()

        crowd = None
        if args.crowd > 0:
            import threading
            statuses = []

            def full_read():
                status, _ = Api(ports[1], token).call("GET", "/v1/workloads?limit=10000000")
                statuses.append(status)

            readers = [threading.Thread(target=full_read) for _ in range(args.crowd)]
            small = []
            for t in readers:
                t.start()
            reader = Api(ports[1], token)
            while any(t.is_alive() for t in readers):
                t0_small = time.monotonic()
                status, _ = reader.call("GET", "/v1/workloads?limit=5")
                small.append(((time.monotonic() - t0_small) * 1000, status))
                time.sleep(0.05)
            for t in readers:
                t.join()
            ms = sorted(m for m, _ in small)
            crowd = {"readers": args.crowd, "answered": statuses.count(200), "busy": statuses.count(503),
                     "small_reads": len(small), "small_ok": sum(1 for _, st in small if st == 200),
                     "small_p50_ms": round(ms[len(ms) // 2], 1) if ms else None,
                     "small_max_ms": round(ms[-1], 1) if ms else None}

        event_follow = None
        if args.event_follow > 0:
            import random
            import threading

            def follow(mode):
                seen, reads, done = {}, [0], threading.Event()

                def follower():
                    reader = Api(ports[1], token)
                    _, data = reader.call("GET", "/v1/events?limit=1")
                    position = json.loads(data)["latest"]
                    while not done.is_set():
                        if mode == "poll":
                            time.sleep(1.0)
                        _, data = reader.call("GET", f"/v1/events?after={position}&category=placement"
                                              + ("&waitMs=2000" if mode == "wait" else ""))
                        arrived = time.monotonic()
                        reads[0] += 1
                        page = json.loads(data)
                        position = max(position, page["scanned"])
                        for e in page["events"]:
                            seen.setdefault(e["subject"], arrived)

                thread = threading.Thread(target=follower)
                thread.start()
                time.sleep(1.5)
                rng, sent = random.Random(7), {}
                c0, w0 = cpu_seconds(daemon.pid), time.monotonic()
                for i in range(args.event_follow):
                    name = f"follow-{mode}-{i}"
                    sent[name] = time.monotonic()
                    status, data = api.call("POST", "/v1/workloads", {"workloads": [
                        {"name": name, "cpuMillis": 100, "memoryMiB": 64, "command": ["/bin/true"]}]})
                    if status != 201:
                        sys.exit(f"submit failed: {status} {data[:200]!r}")
                    time.sleep(rng.uniform(0.3, 0.7))
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline and any(n not in seen for n in sent):
                    time.sleep(0.05)
                c1, w1 = cpu_seconds(daemon.pid), time.monotonic()
                done.set()
                thread.join()
                ms = sorted((seen[n] - t) * 1000 for n, t in sent.items() if n in seen)
                pick = lambda q: round(ms[min(len(ms) - 1, int(q * len(ms)))], 1) if ms else None
                return {"seen": len(ms), "ms_p50": pick(0.5), "ms_p90": pick(0.9), "ms_max": pick(1.0),
                        "reads_per_s": round(reads[0] / (w1 - w0), 2),
                        "daemon_cores": round((c1 - c0) / (w1 - w0), 4)}

            event_follow = {"workloads": args.event_follow, "poll_1s": follow("poll"), "wait": follow("wait")}

        stop = None
        if args.stop:
            t0_stop = time.monotonic()
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(30)
            stop_s = time.monotonic() - t0_stop
            time.sleep(1.5)  # a status line or two after the rejects arrived
            fleet_out.seek(0)
            lines = [json.loads(line) for line in fleet_out.read().splitlines() if line.startswith("{")]
            stop = {"stop_s": round(stop_s, 3), "agents_told": lines[-1].get("rejections") if lines else None}

        print(json.dumps({
            "event_follow": event_follow,
            "stop": stop,
            "crowd": crowd,
            "nodes": args.nodes,
            "inventory": args.inventory,
            "net_mbps": args.net_mbps,
            "workload_net_mbps": args.workload_net_mbps,
            "heartbeat_ms": args.heartbeat_ms,
            "pools": args.pools,
            "pools_create_ms": pools_create_ms,
            "pool_usage": not args.no_pool_usage,
            "workload_usage": not args.no_pool_usage and not args.no_workload_usage,
            "join_s": round(join_s, 2),
            "window_s": round(t1 - t0, 1),
            "heartbeats_per_s": round((h1 - h0) / (t1 - t0), 1),
            "daemon_cores": round((d1 - d0) / (t1 - t0), 4),
            "fleet_cores": round((f1 - f0) / (t1 - t0), 4),
            "burst": burst,
            "console": console,
        }))
    finally:
        for p in (fleet, daemon):
            if p and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()


if __name__ == "__main__":
    main()
