#include "agents/runner/core_commands.h"

#include <algorithm>
#include <charconv>

namespace tidepool::agent {

namespace {

std::string protocolState(WorkloadState state)
{
    switch (state) {
    case WorkloadState::Starting: // the shim has not reported yet: it is being started
    case WorkloadState::Running: return "running";
    case WorkloadState::Exited: return "exited";
    case WorkloadState::Killed: return "killed";
    case WorkloadState::OomKilled: return "oom_killed";
    case WorkloadState::FailedToStart: return "failed";
    case WorkloadState::Lost:
    case WorkloadState::Invalid: break;
    }
    return "lost";
}

std::string text(std::string s)
{
    return s.substr(0, protocol::kMaxTextBytes);
}

// Every incarnation held of `id` above `incarnation`, oldest first.
std::vector<WorkloadStatus> newerThan(const Runner& runner, const std::string& id, std::uint32_t incarnation)
{
    std::vector<WorkloadStatus> newer;
    for (WorkloadStatus& w : runner.workloads())
        if (w.id == id && w.incarnation > incarnation)
            newer.push_back(std::move(w));
    return newer;
}

std::string describeHeld(const WorkloadStatus& held)
{
    return "incarnation " + std::to_string(held.incarnation) + " of it ("
        + (held.name.empty() ? std::string() : "\"" + held.name + "\", ") + workloadStateName(held.state)
        + (held.pid && !isFinal(held.state) ? ", pid " + std::to_string(held.pid) : std::string()) + ")";
}

} // namespace

PoolLimits cgroupLimitsOf(const protocol::PoolLimits& pool)
{
    PoolLimits limits;
    limits.cpuMillis = static_cast<std::uint32_t>(std::clamp<std::int64_t>(pool.cpuMillis, 10, 1 << 30));
    limits.memoryBytes = static_cast<std::uint64_t>(pool.memoryMiB) << 20;
    if (pool.ioWeight != protocol::PoolLimits {}.ioWeight)
        limits.ioWeight = static_cast<std::uint32_t>(pool.ioWeight);
    return limits;
}

std::optional<protocol::WorkloadStatus> toProtocolStatus(const WorkloadStatus& s)
{
    std::int64_t id = 0;
    const auto [ptr, ec] = std::from_chars(s.id.data(), s.id.data() + s.id.size(), id);
    if (ec != std::errc() || ptr != s.id.data() + s.id.size() || id <= 0 || id > protocol::kMaxWorkloadId)
        return std::nullopt; // not one of the core's
    protocol::WorkloadStatus out;
    out.workloadId = id;
    out.incarnation = static_cast<std::int32_t>(std::min<std::uint32_t>(s.incarnation, protocol::kMaxIncarnation));
    out.state = protocolState(s.state);
    out.pid = s.pid;
    out.exitCode = s.signal ? *s.signal : s.exitCode.value_or(0);
    out.detail = text(s.reason);
    for (char& c : out.detail)
        if (static_cast<unsigned char>(c) < 0x20)
            c = ' ';
    return out;
}

OlderLaunch judgeOlderLaunch(const WorkloadStatus& newest, const std::string& digest)
{
    const bool sameWorkload = newest.launchDigest.empty() || digest.empty() || newest.launchDigest == digest;
    if (!isFinal(newest.state))
        return OlderLaunch::Conflicts;
    return sameWorkload ? OlderLaunch::Stale : OlderLaunch::Replaces;
}

CommandOutcome applyLaunch(Runner& runner, const protocol::Launch& launch, const PrepareLaunch& prepare)
{
    CommandOutcome out;
    const std::string id = std::to_string(launch.workloadId);
    const auto incarnation = static_cast<std::uint32_t>(std::max<std::int32_t>(0, launch.incarnation));
    const std::string what = recordName(id, incarnation);
    protocol::WorkloadStatus failed { launch.workloadId, "failed", 0, 0, {}, launch.incarnation };
    const auto refuse = [&](const std::string& detail) {
        failed.detail = text(detail);
        out.log.push_back("workload " + what + " (" + launch.name + ") refused: " + failed.detail);
        out.answers.push_back(failed);
        return out;
    };
    const auto setAside = [&](const WorkloadStatus& held) -> std::optional<std::string> {
        const std::string heldName = recordName(held.id, held.incarnation);
        auto aside = runner.setAside(held.id, held.incarnation);
        if (!aside)
            return "the records of the finished workload held as " + heldName
                + " could not be moved aside: " + aside.error().message;
        out.setAside.push_back(heldName);
        out.log.push_back("workload " + heldName + ": the core launches another workload (" + launch.name + ", " + what
            + ") under the id of the finished one held here ("
            + (held.name.empty() ? std::string("unnamed") : held.name)
            + "; the core's database may have been replaced): its records moved to " + aside->string());
        return std::nullopt;
    };
    LaunchSpec spec = launchSpecFor(launch);

    if (const auto held = runner.status(id, incarnation)) {
        switch (judgeHeldLaunch(*held, spec.launchDigest)) {
        case HeldLaunch::Conflicts:
            // Another workload under the (id, incarnation) of one that runs here: a core that numbers its workloads
            // anew. The running one is not the core's to stop through this launch.
            return refuse(conflictDetail(*held));
        case HeldLaunch::Replaces:
            if (auto error = setAside(*held))
                return refuse(*error);
            break;
        case HeldLaunch::Repeat:
        case HeldLaunch::Invalid:
            // This very launch is held already (a launch sent again after a reconnect): start nothing, say what it is
            // doing.
            if (auto s = toProtocolStatus(*held))
                out.answers.push_back(*s);
            return out;
        }
    }
    if (const std::vector<WorkloadStatus> newer = newerThan(runner, id, incarnation); !newer.empty()) {
        const WorkloadStatus& newest = newer.back();
        const auto running
            = std::find_if(newer.begin(), newer.end(), [](const WorkloadStatus& w) { return !isFinal(w.state); });
        OlderLaunch verdict = judgeOlderLaunch(newest, spec.launchDigest);
        if (verdict == OlderLaunch::Replaces && running != newer.end())
            verdict = OlderLaunch::Conflicts; // an older one of them still stops
        switch (verdict) {
        case OlderLaunch::Stale:
            // An older launch than one this agent has run: never started after the newer one.
            return refuse("incarnation " + std::to_string(incarnation) + " is older than incarnation "
                + std::to_string(newest.incarnation) + ", which this agent has launched");
        case OlderLaunch::Conflicts: {
            const WorkloadStatus& runs = running != newer.end() ? *running : newest;
            return refuse("workload id " + id + ": this launch is incarnation " + std::to_string(incarnation) + ", and "
                + describeHeld(runs) + " still runs here, newer: not started, and the running one is "
                + "left alone. Either the launch is stale, or the core's database was replaced and it numbers its "
                + "workloads anew (the running one is then the old database's)");
        }
        case OlderLaunch::Replaces:
            // Another workload (its launch differs) under the id of finished ones: a core that numbers its
            // workloads anew. What the old ones left goes aside, as for a held (id, incarnation).
            for (const WorkloadStatus& old : newer)
                if (auto error = setAside(old))
                    return refuse(*error);
            break;
        case OlderLaunch::Invalid: return refuse("cannot judge the launch against what this agent holds of the id");
        }
    }
    if (spec.argv.empty())
        return refuse("the launch names no command");
    if (prepare)
        if (auto why = prepare(spec))
            return refuse(*why);
    auto started = runner.launch(spec);
    if (!started)
        return refuse(started.error().message);
    out.log.push_back("workload " + what + " (" + launch.name + ") launched in pool " + launch.pool
        + (spec.wrapper.empty() ? "" : " through " + spec.wrapper.front()) + ": " + workloadStateName(started->state)
        + (started->pid ? ", pid " + std::to_string(started->pid) : std::string()));
    // Still starting: the poll that sees the shim's report sends "running" (or why it failed).
    if (started->state != WorkloadState::Starting)
        if (auto s = toProtocolStatus(*started))
            out.answers.push_back(*s);
    out.launched = *started;
    return out;
}

protocol::Resized applyResize(Runner& runner, const protocol::Resize& resize, std::vector<std::string>& log)
{
    protocol::Resized answer { resize.workloadId, resize.incarnation, {} };
    const std::string id = std::to_string(resize.workloadId);
    const auto incarnation = static_cast<std::uint32_t>(std::max(0, resize.incarnation));
    const WorkloadResources own { .cpuMillis = static_cast<std::uint64_t>(std::max<std::int64_t>(0, resize.cpuMillis)),
        .memoryLimitBytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, resize.memoryLimitMiB)) << 20,
        .cpuLimitMillis
        = static_cast<std::uint32_t>(std::clamp<std::int64_t>(resize.cpuLimitMillis, 0, protocol::kMaxCpuMillis)) };
    const auto limit = [](std::int64_t value, const char* unit) {
        return value == 0 ? std::string("none") : std::to_string(value) + unit;
    };
    const std::string what = "resize " + recordName(id, incarnation) + " to CPU " + std::to_string(resize.cpuMillis)
        + "m (limit " + limit(resize.cpuLimitMillis, "m") + "), memory limit " + limit(resize.memoryLimitMiB, " MiB");
    if (auto done = runner.resize(id, incarnation, own); !done) {
        answer.error = done.error().message.substr(0, protocol::kMaxTextBytes);
        log.push_back(what + ": refused: " + done.error().message);
    } else {
        log.push_back(what + ": done");
    }
    return answer;
}

CommandOutcome applyStop(Runner& runner, const protocol::Stop& stop)
{
    CommandOutcome out;
    const std::string id = std::to_string(stop.workloadId);
    const std::chrono::milliseconds grace(stop.graceMs);
    std::optional<WorkloadStatus> target;
    if (stop.incarnation) {
        target = runner.status(id, static_cast<std::uint32_t>(*stop.incarnation));
    } else {
        // A stop that names no incarnation (a core from before incarnations) reaches the newest launch held of the id
        // only: an older one is either stopped already (a newer launch supersedes it) or ended.
        target = runner.status(id);
        if (target)
            out.log.push_back("stop " + id + " names no incarnation: it reaches only the newest held, "
                + std::to_string(target->incarnation));
    }
    const std::int32_t incarnation = stop.incarnation.value_or(target
            ? static_cast<std::int32_t>(std::min<std::uint32_t>(target->incarnation, protocol::kMaxIncarnation))
            : 0);
    if (!target) {
        // Nothing to stop; the answer says so, so that the core does not wait for an end that will not come.
        protocol::WorkloadStatus lost { stop.workloadId, "lost", 0, 0, "not held here: nothing to stop", incarnation };
        out.log.push_back("stop " + recordName(id, static_cast<std::uint32_t>(incarnation)) + ": not held here");
        out.answers.push_back(lost);
        return out;
    }
    if (isFinal(target->state) && target->state != WorkloadState::Lost) {
        // Ended already: its end is the answer.
        if (auto s = toProtocolStatus(*target))
            out.answers.push_back(*s);
        return out;
    }
    if (auto stopped = runner.stop(id, target->incarnation, grace); !stopped) {
        out.log.push_back("stop " + recordName(id, target->incarnation) + ": " + stopped.error().message);
        if (target->state == WorkloadState::Lost)
            if (auto s = toProtocolStatus(*target))
                out.answers.push_back(*s);
        return out;
    }
    // A lost launch has no end to come: signalled (its cgroup, in case), and answered as it is.
    if (target->state == WorkloadState::Lost)
        if (auto s = toProtocolStatus(*target))
            out.answers.push_back(*s);
    return out;
}

} // namespace tidepool::agent
