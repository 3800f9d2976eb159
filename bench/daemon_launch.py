"""What the benchmarks that run the real tidepoold share: its token files, starting it on loopback with ports of its
own choosing, and waiting for the line that says which ports those are."""
import os
import re
import secrets
import subprocess
import sys
import time


def write_tokens(work):
    """A random join token and operator token in `work`: (join token file, operator token file, operator token)."""
    join_token = os.path.join(work, "join.token")
    op_token = os.path.join(work, "op.token")
    token = secrets.token_hex(16)
    with open(join_token, "w") as f:
        f.write(secrets.token_hex(16) + "\n")
    with open(op_token, "w") as f:
        f.write(token + "\n")
    return join_token, op_token, token


def start_tidepoold(bin_dir, work, join_token, op_token, extra):
    """tidepoold on 127.0.0.1:0 for agents and the API, its database and log in `work`, with `extra` options; waits
    until it is ready: (process, log file, (agent port, API port)). Exits naming the log when it does not start."""
    log = open(os.path.join(work, "tidepoold.log"), "w+")
    daemon = subprocess.Popen([os.path.join(bin_dir, "tidepoold"), "--agent-listen", "127.0.0.1:0", "--api-listen",
                               "127.0.0.1:0", "--db", os.path.join(work, "t.db"), "--join-token-file", join_token,
                               "--operator-token-file", op_token] + extra, stderr=log)
    for _ in range(200):
        log.seek(0)
        m = re.search(r"ready: agents on 127\.0\.0\.1:(\d+), API on 127\.0\.0\.1:(\d+)", log.read())
        if m:
            return daemon, log, (int(m.group(1)), int(m.group(2)))
        time.sleep(0.05)
    daemon.kill()
    sys.exit("tidepoold did not become ready; see " + log.name)


def start_agent(bin_dir, work, agent_port, join_token, name, cgroup_name):
    """The real tidepool-agent (as root: it makes cgroups) joining the daemon on `agent_port` as node `name`, its state
    and log in `work`, its cgroups under `cgroup_name`: (process, log file)."""
    log = open(os.path.join(work, "agent.log"), "w")
    agent = subprocess.Popen([os.path.join(bin_dir, "tidepool-agent"), "--core", f"127.0.0.1:{agent_port}",
                              "--join-token-file", join_token, "--state-dir", os.path.join(work, "state"),
                              "--name", name, "--accelerator-file", "", "--no-slowdown",
                              "--cgroup-name", cgroup_name], stdout=log, stderr=subprocess.STDOUT)
    return agent, log


def stop_all(processes, cgroup_name):
    """Stops `processes` (SIGTERM, then SIGKILL after 10 s) and removes the agent's base cgroup, emptied of workloads,
    under whatever hierarchy holds it."""
    for p in processes:
        if p:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
    for root, dirs, _ in os.walk("/sys/fs/cgroup", topdown=False):
        for d in dirs:
            if cgroup_name in os.path.join(root, d):
                try:
                    os.rmdir(os.path.join(root, d))
                except OSError:
                    pass
