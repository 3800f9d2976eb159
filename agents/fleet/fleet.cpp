#include "agents/fleet/fleet.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <random>

namespace tidepool::agent {

namespace {

std::vector<std::string_view> splitCsv(std::string_view line)
{
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    while (true) {
        const auto comma = line.find(',', start);
        fields.push_back(line.substr(start, comma == std::string_view::npos ? comma : comma - start));
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    return fields;
}

protocol::Expected<double> number(std::string_view text, const std::string& where, std::string_view field)
{
    double value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value) || value < 0)
        return protocol::makeError(protocol::ErrorCode::WrongType, std::string(field),
            where + ": field " + std::string(field) + " is not a non-negative number");
    return value;
}

// The model names of the traces, as device model names (letters, digits, '.', '_' and '-').
std::string modelName(std::string_view text)
{
    std::string name;
    for (const char c : text)
        name.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ? c : '-');
    return name.empty() ? "unknown" : name;
}

std::int64_t gpuMemoryMiB(std::string_view model)
{
    if (model.find("80") != std::string_view::npos || model == "H800" || model == "A800")
        return 80 * 1024;
    if (model == "V100M32" || model == "A100")
        return 32 * 1024;
    if (model == "A10" || model == "T4")
        return (model == "A10" ? 24 : 16) * 1024;
    return 16 * 1024;
}

void addGpus(FleetNodeSpec& spec, std::string_view model, int count)
{
    for (int i = 0; i < count; ++i)
        spec.devices.push_back(protocol::DeviceInfo { i, "gpu", modelName(model), gpuMemoryMiB(model), 1000 });
}

// Calls `row(fields, where)` for each non-empty line of a CSV file (after its header when `header`), checking the
// field count first; the first error, the helper's or `row`'s, names the file and line.
protocol::Expected<void> forEachRow(const std::string& path, bool header, std::size_t minFields, std::size_t maxFields,
    std::string_view columns,
    const std::function<protocol::Expected<void>(const std::vector<std::string_view>&, const std::string&)>& row)
{
    std::ifstream in(path);
    if (!in)
        return protocol::makeError(protocol::ErrorCode::MissingField, {}, path + ": cannot be read");
    std::string line;
    std::size_t lineNo = 0;
    if (header && std::getline(in, line))
        ++lineNo;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty())
            continue;
        const std::string where = path + ":" + std::to_string(lineNo);
        const auto fields = splitCsv(line);
        if (fields.size() < minFields || fields.size() > maxFields)
            return protocol::makeError(protocol::ErrorCode::MissingField, {},
                where + ": expected " + std::string(columns) + ", found " + std::to_string(fields.size()) + " fields");
        if (auto done = row(fields, where); !done)
            return done;
    }
    return {};
}

} // namespace

protocol::Expected<std::vector<FleetNodeSpec>> loadPai2020(const std::string& path)
{
    std::vector<FleetNodeSpec> specs;
    auto read = forEachRow(path, false, 5, 5, "5 fields (machine, gpu_type, cap_cpu, cap_mem, cap_gpu)",
        [&](const std::vector<std::string_view>& f, const std::string& where) -> protocol::Expected<void> {
            auto cpu = number(f[2], where, "cap_cpu");
            auto mem = number(f[3], where, "cap_mem");
            auto gpus = number(f[4], where, "cap_gpu");
            for (const auto* v : { &cpu, &mem, &gpus })
                if (!*v)
                    return tl::unexpected(v->error());
            FleetNodeSpec spec;
            spec.name = std::string(f[0]);
            spec.cpuMillis = static_cast<std::int64_t>(*cpu * 1000);
            spec.memoryMiB = static_cast<std::int64_t>(*mem * 1024);
            if (spec.cpuMillis <= 0 || spec.memoryMiB <= 0)
                return protocol::makeError(protocol::ErrorCode::OutOfRange, {}, where + ": a node needs CPU and memory");
            if (f[1] != "CPU")
                addGpus(spec, f[1], static_cast<int>(*gpus));
            specs.push_back(std::move(spec));
            return {};
        });
    if (!read)
        return tl::unexpected(read.error());
    return specs;
}

protocol::Expected<std::vector<FleetNodeSpec>> loadSpot2026(const std::string& path)
{
    std::vector<FleetNodeSpec> specs;
    auto read = forEachRow(path, true, 4, 4, "4 fields (gpu_model, gpu_capacity_num, cpu_num, node_name)",
        [&](const std::vector<std::string_view>& f, const std::string& where) -> protocol::Expected<void> {
            auto gpus = number(f[1], where, "gpu_capacity_num");
            auto cpu = number(f[2], where, "cpu_num");
            if (!gpus)
                return tl::unexpected(gpus.error());
            if (!cpu)
                return tl::unexpected(cpu.error());
            FleetNodeSpec spec;
            spec.name = "spot-" + std::string(f[3]);
            spec.cpuMillis = static_cast<std::int64_t>(*cpu * 1000);
            spec.memoryMiB = static_cast<std::int64_t>(*cpu * 8 * 1024);
            addGpus(spec, f[0], static_cast<int>(*gpus));
            specs.push_back(std::move(spec));
            return {};
        });
    if (!read)
        return tl::unexpected(read.error());
    return specs;
}

std::vector<FleetNodeSpec> generateFleet(std::size_t count, std::uint64_t seed)
{
    std::mt19937_64 random(seed);
    std::vector<FleetNodeSpec> specs;
    for (std::size_t i = 0; i < count; ++i) {
        FleetNodeSpec spec;
        const auto roll = static_cast<int>(random() % 100);
        if (roll < 45) {
            spec.cpuMillis = 64'000;
            spec.memoryMiB = 256 * 1024;
        } else if (roll < 70) {
            spec.cpuMillis = 96'000;
            spec.memoryMiB = 512 * 1024;
            addGpus(spec, roll < 60 ? "V100" : "A100-80GB", roll < 60 ? 8 : 4);
        } else if (roll < 88) {
            spec.isa = "aarch64";
            spec.cpuMillis = 128'000;
            spec.memoryMiB = 256 * 1024;
        } else if (roll < 95) {
            spec.isa = "riscv64";
            spec.cpuMillis = 64'000;
            spec.memoryMiB = 128 * 1024;
        } else if (roll < 98) {
            spec.cpuMillis = 48'000;
            spec.memoryMiB = 192 * 1024;
            for (int d = 0; d < 4; ++d)
                spec.devices.push_back(protocol::DeviceInfo { d, "npu", "Ascend-910B", 64 * 1024, 32 });
        } else {
            spec.cpuMillis = 32'000;
            spec.memoryMiB = 128 * 1024;
            spec.devices.push_back(protocol::DeviceInfo { 0, "fpga", "Alveo-U250", 64 * 1024, 8 });
        }
        specs.push_back(std::move(spec));
    }
    return specs;
}

std::vector<FleetNodeSpec> takeNodes(const std::vector<FleetNodeSpec>& specs, std::size_t count, const std::string& prefix)
{
    std::vector<FleetNodeSpec> nodes;
    if (specs.empty())
        return nodes;
    for (std::size_t i = 0; i < count; ++i) {
        FleetNodeSpec spec = specs[i % specs.size()];
        spec.name = prefix + "-" + std::to_string(i);
        nodes.push_back(std::move(spec));
    }
    return nodes;
}

std::pair<double, double> LoadSeries::at(double seconds) const
{
    if (cpu.empty())
        return { 0.3, 0.5 };
    const auto index = static_cast<std::size_t>(std::max(0.0, seconds) / bucketSeconds) % cpu.size();
    return { cpu[index], memory[index] };
}

protocol::Expected<LoadSeries> loadLoadSeries(const std::string& path, double bucketSeconds)
{
    LoadSeries series;
    series.bucketSeconds = bucketSeconds;
    auto read = forEachRow(path, true, 2, std::numeric_limits<std::size_t>::max(), "at least 2 fields (CPU, memory)",
        [&](const std::vector<std::string_view>& f, const std::string& where) -> protocol::Expected<void> {
            auto cpu = number(f[0], where, "column 1");
            auto mem = number(f[1], where, "column 2");
            if (!cpu)
                return tl::unexpected(cpu.error());
            if (!mem)
                return tl::unexpected(mem.error());
            // Percentages in the Alibaba series, fractions in Google's: normalise both to 0..1.
            series.cpu.push_back(std::min(1.0, *cpu > 1.0 ? *cpu / 100.0 : *cpu));
            series.memory.push_back(std::min(1.0, *mem > 1.0 ? *mem / 100.0 : *mem));
            return {};
        });
    if (!read)
        return tl::unexpected(read.error());
    return series;
}

SimulatedAgent::SimulatedAgent(boost::asio::io_context& io, FleetNodeSpec spec, AgentConnectionConfig config,
    const LoadSeries* load, double timeScale, double phaseSeconds, protocol::LogSink log)
    : m_spec(std::move(spec))
    , m_load(load)
    , m_timeScale(timeScale)
    , m_phaseSeconds(phaseSeconds)
    , m_started(std::chrono::steady_clock::now())
{
    config.client.hello.nodeName = m_spec.name;
    config.client.hello.inventory = protocol::InventorySummary { m_spec.isa, m_spec.cpuMillis, m_spec.memoryMiB,
        static_cast<std::int32_t>(m_spec.devices.size()) };
    AgentConnectionHandlers handlers;
    handlers.inventory = [this] { return inventory(); };
    handlers.sample = [this] { return sample(); };
    handlers.command = [this](const protocol::Message& m) { onCommand(m); };
    m_connection = AgentConnection::create(io, std::move(config), std::move(handlers), std::move(log));
}

protocol::Inventory SimulatedAgent::inventory() const
{
    protocol::Inventory inv;
    inv.isa = m_spec.isa;
    inv.cpuModel = "simulated " + m_spec.isa;
    inv.cpuMillis = m_spec.cpuMillis;
    inv.memoryMiB = m_spec.memoryMiB;
    inv.numaNodes = m_spec.cpuMillis >= 64'000 ? 2 : 1;
    inv.devices = m_spec.devices;
    inv.netMbps = m_spec.netMbps;
    for (const auto& [id, status] : m_workloads)
        inv.workloads.push_back(status);
    return inv;
}

protocol::UtilisationSample SimulatedAgent::sample() const
{
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
    const auto [cpu, mem] = m_load ? m_load->at(m_phaseSeconds + elapsed * m_timeScale) : std::pair { 0.3, 0.5 };
    protocol::UtilisationSample s;
    s.timestampMs = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    s.cpuUtilisation = cpu;
    s.memoryUsedMiB = static_cast<std::int64_t>(mem * static_cast<double>(m_spec.memoryMiB));
    for (const protocol::DeviceInfo& d : m_spec.devices)
        s.devices.push_back(protocol::DeviceSample { d.index, cpu, static_cast<std::int64_t>(cpu * d.memoryMiB) });
    if (m_spec.poolUsage) {
        std::map<std::string, std::pair<std::int64_t, std::int64_t>> requested; // pool → (CPU, memory)
        for (const auto& [id, held] : m_held) {
            auto& [cpuMillis, memoryMiB] = requested[held.pool];
            cpuMillis += held.cpuMillis;
            memoryMiB += held.memoryMiB;
        }
        for (const auto& [pool, r] : requested)
            s.pools.push_back(protocol::PoolUsage { pool, static_cast<std::int64_t>(cpu * static_cast<double>(r.first)),
                static_cast<std::int64_t>(mem * static_cast<double>(r.second)), m_spec.netMbps > 0 ? 0.0 : -1.0 });
        // Each running workload uses the node's load of what it asked for.
        for (const auto& [id, held] : m_held)
            if (const auto status = m_workloads.find(id);
                m_spec.workloadUsage && status != m_workloads.end() && status->second.state == "running")
                s.workloads.push_back(protocol::WorkloadUsage { id, status->second.incarnation,
                    static_cast<std::int64_t>(cpu * static_cast<double>(held.cpuMillis)),
                    static_cast<std::int64_t>(mem * static_cast<double>(held.memoryMiB)) });
    }
    return s;
}

void SimulatedAgent::onCommand(const protocol::Message& message)
{
    if (const auto* launch = std::get_if<protocol::Launch>(&message)) {
        auto [it, inserted] = m_workloads.try_emplace(launch->workloadId);
        // A newer incarnation of an id held replaces the older one (as the real agent's runner supersedes it).
        if (inserted || launch->incarnation > it->second.incarnation) {
            ++m_stats.launches;
            it->second = protocol::WorkloadStatus { launch->workloadId, "running", m_nextPid++, 0, {}, launch->incarnation };
            m_held[launch->workloadId] = Held { launch->pool, launch->cpuMillis, launch->memoryMiB };
        } else {
            ++m_stats.duplicateLaunches;
        }
        m_connection->sendUpdate(it->second);
    } else if (const auto* logs = std::get_if<protocol::LogRequest>(&message)) {
        // Answered, as the real agent answers every request, with why there is nothing to show.
        protocol::LogReply reply;
        reply.requestId = logs->requestId;
        reply.error = "node " + m_spec.name
            + " is simulated (tidepool-fleet): its workloads run nothing and write no "
              "output";
        m_connection->sendLogs(reply);
    } else if (const auto* resize = std::get_if<protocol::Resize>(&message)) {
        // Held from now on at the new request, as the real agent's cgroup is given it; refused as the real one refuses.
        protocol::Resized answer { resize->workloadId, resize->incarnation, {} };
        const auto it = m_workloads.find(resize->workloadId);
        if (it == m_workloads.end() || it->second.incarnation != resize->incarnation)
            answer.error = "workload " + std::to_string(resize->workloadId) + " (incarnation "
                + std::to_string(resize->incarnation) + ") is not held here";
        else if (const auto held = m_held.find(resize->workloadId); held != m_held.end()) {
            held->second.cpuMillis = resize->cpuMillis;
            held->second.memoryMiB = resize->memoryMiB;
        }
        m_connection->sendResized(answer);
    } else if (const auto* stop = std::get_if<protocol::Stop>(&message)) {
        const auto it = m_workloads.find(stop->workloadId);
        if (it == m_workloads.end() || (stop->incarnation && *stop->incarnation != it->second.incarnation)) {
            // Not held: answered all the same, as the real agent does, so that the core's stop window moves on.
            m_connection->sendUpdate(protocol::WorkloadStatus {
                stop->workloadId, "lost", 0, 0, "not held here: nothing to stop", stop->incarnation.value_or(0) });
            return;
        }
        ++m_stats.stops;
        protocol::WorkloadStatus status = it->second;
        status.state = "stopped";
        m_workloads.erase(it);
        m_held.erase(stop->workloadId);
        // A stop that is not delivered now is still answered: the next inventory no longer lists the workload.
        m_connection->sendUpdate(status);
    }
}

} // namespace tidepool::agent
