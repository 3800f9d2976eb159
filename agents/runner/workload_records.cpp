#include "agents/runner/workload_records.h"

#include "agents/isolation/sysfs.h"
#include "agents/runner/async_safe.h"

#include <nlohmann/json.hpp>

namespace tidepool::agent {

using nlohmann::json;

namespace {

IsolationExpected<std::optional<json>> readJson(const std::filesystem::path& file)
{
    if (!sysfs::fileExists(file))
        return std::optional<json>();
    auto text = sysfs::readFile(file);
    if (!text)
        return tl::unexpected(text.error());
    json parsed = json::parse(*text, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object())
        return makeIsolationError(
            IsolationErrorCode::BadRecord, file.string(), file.string() + " is not a JSON object");
    return std::optional<json>(std::move(parsed));
}

tl::unexpected<IsolationError> badField(const std::filesystem::path& file, const std::string& what)
{
    return makeIsolationError(IsolationErrorCode::BadRecord, file.string(), file.string() + ": " + what);
}

} // namespace

std::string launchRecordPrefix(const LaunchRecord& record)
{
    const json object = {
        { "id", record.id },
        { "incarnation", record.incarnation },
        { "pool", record.pool },
        { "argv", record.argv },
        { "wrapper", record.wrapper },
        { "executable", record.executable },
        { "workingDir", record.workingDir },
        { "name", record.name },
        { "launchDigest", record.launchDigest },
        { "cpuMillis", record.cpuMillis },
        { "cgroup",
            {
                { "cpu", record.cgroup.cpu.string() },
                { "cpuacct", record.cgroup.cpuacct.string() },
                { "memory", record.cgroup.memory.string() },
                { "io", record.cgroup.io.string() },
                { "netCls", record.cgroup.netCls.string() },
                { "netPrio", record.cgroup.netPrio.string() },
            } },
        { "procsFile", record.procsFile },
        { "killFile", record.killFile },
        { "oomCounterFile", record.oomCounterFile },
        { "createdAtMs", record.createdAtMs },
    };
    std::string text = object.dump();
    text.back() = ','; // the closing brace; the shim's fields follow
    return text;
}

IsolationExpected<LaunchRecord> readLaunchRecord(const std::filesystem::path& file)
{
    auto loaded = readJson(file);
    if (!loaded)
        return tl::unexpected(loaded.error());
    if (!*loaded)
        return makeIsolationError(IsolationErrorCode::NotFound, file.string(), "no launch record " + file.string());
    const json& j = **loaded;
    LaunchRecord r;
    try {
        r.id = j.at("id").get<std::string>();
        r.incarnation = j.value("incarnation", std::uint32_t { 0 }); // absent in records from before incarnations
        r.pool = j.at("pool").get<std::string>();
        r.argv = j.at("argv").get<std::vector<std::string>>();
        r.wrapper = j.value("wrapper", std::vector<std::string>());
        r.executable = j.value("executable", std::string());
        r.workingDir = j.value("workingDir", std::string());
        r.name = j.value("name", std::string());
        r.launchDigest = j.value("launchDigest", std::string());
        r.cpuMillis = j.value("cpuMillis", std::uint64_t { 0 });
        const json& cg = j.at("cgroup");
        r.cgroup.cpu = cg.value("cpu", std::string());
        r.cgroup.cpuacct = cg.value("cpuacct", std::string());
        r.cgroup.memory = cg.at("memory").get<std::string>();
        r.cgroup.io = cg.value("io", std::string());
        r.cgroup.netCls = cg.value("netCls", std::string());
        r.cgroup.netPrio = cg.value("netPrio", std::string());
        r.procsFile = j.at("procsFile").get<std::string>();
        r.killFile = j.value("killFile", std::string());
        r.oomCounterFile = j.value("oomCounterFile", std::string());
        r.createdAtMs = j.value("createdAtMs", std::int64_t { 0 });
        r.pid = j.at("pid").get<int>();
        r.startTime = j.at("startTime").get<std::uint64_t>();
        r.shimPid = j.at("shimPid").get<int>();
        r.shimStartTime = j.at("shimStartTime").get<std::uint64_t>();
        r.execed = j.value("execed", true);
    } catch (const json::exception& e) {
        return badField(file, e.what());
    }
    return r;
}

IsolationExpected<std::optional<ExitRecord>> readExitRecord(const std::filesystem::path& file)
{
    auto loaded = readJson(file);
    if (!loaded)
        return tl::unexpected(loaded.error());
    if (!*loaded)
        return std::optional<ExitRecord>();
    const json& j = **loaded;
    ExitRecord r;
    try {
        if (j.contains("exitCode"))
            r.exitCode = j.at("exitCode").get<int>();
        if (j.contains("signal"))
            r.signal = j.at("signal").get<int>();
        r.oomKilled = j.value("oomKilled", false);
        r.oomKills = j.value("oomKills", std::uint64_t { 0 });
        r.startError = j.value("startError", std::string());
        r.error = j.value("errno", 0);
        r.waitFailed = j.value("waitFailed", false);
        r.endedAtMs = j.value("endedAtMs", std::int64_t { 0 });
    } catch (const json::exception& e) {
        return badField(file, e.what());
    }
    return std::optional<ExitRecord>(r);
}

IsolationExpected<std::optional<StopRecord>> readStopRecord(const std::filesystem::path& file)
{
    auto loaded = readJson(file);
    if (!loaded)
        return tl::unexpected(loaded.error());
    if (!*loaded)
        return std::optional<StopRecord>();
    StopRecord r;
    try {
        r.deadlineMs = (**loaded).at("deadlineMs").get<std::int64_t>();
    } catch (const json::exception& e) {
        return badField(file, e.what());
    }
    return std::optional<StopRecord>(r);
}

IsolationExpected<std::optional<ResizeRecord>> readResizeRecord(const std::filesystem::path& file)
{
    auto loaded = readJson(file);
    if (!loaded)
        return tl::unexpected(loaded.error());
    if (!*loaded)
        return std::optional<ResizeRecord>();
    ResizeRecord r;
    try {
        r.cpuMillis = (**loaded).at("cpuMillis").get<std::uint64_t>();
        r.memoryLimitBytes = (**loaded).at("memoryLimitBytes").get<std::uint64_t>();
        r.cpuLimitMillis = (**loaded).at("cpuLimitMillis").get<std::uint32_t>();
    } catch (const json::exception& e) {
        return badField(file, e.what());
    }
    return std::optional<ResizeRecord>(r);
}

IsolationExpected<void> writeResizeRecord(const std::filesystem::path& dir, const ResizeRecord& record)
{
    const std::string text = json { { "cpuMillis", record.cpuMillis }, { "memoryLimitBytes", record.memoryLimitBytes },
        { "cpuLimitMillis", record.cpuLimitMillis } }
                                 .dump()
        + "\n";
    const auto file = dir / "resize.json";
    const auto tmp = dir / "resize.json.tmp";
    const iovec part { const_cast<char*>(text.data()), text.size() };
    if (const int err = asyncsafe::writeFileAtomic(tmp.c_str(), file.c_str(), dir.c_str(), &part, 1); err != 0)
        return makeIsolationError(
            IsolationErrorCode::SystemCall, file.string(), "writing " + file.string() + ": " + sysfs::errnoText(err));
    return {};
}

IsolationExpected<void> writeStopRecord(const std::filesystem::path& dir, const StopRecord& record)
{
    const std::string text = json { { "deadlineMs", record.deadlineMs } }.dump() + "\n";
    const auto file = dir / "stop.json";
    const auto tmp = dir / "stop.json.tmp";
    const iovec part { const_cast<char*>(text.data()), text.size() };
    if (const int err = asyncsafe::writeFileAtomic(tmp.c_str(), file.c_str(), dir.c_str(), &part, 1); err != 0)
        return makeIsolationError(
            IsolationErrorCode::SystemCall, file.string(), "writing " + file.string() + ": " + sysfs::errnoText(err));
    return {};
}

} // namespace tidepool::agent
