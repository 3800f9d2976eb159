// CSV loaders of the openb trace. They are strict on purpose: a replay of a half-read trace would publish wrong
// numbers, so any doubt about a row stops the load with file:line:field before anything is placed.

#include "core/sim/openb.h"

#include "core/model/csv.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

namespace tidepool::sim {

namespace {

// One CSV file split into a header and rows, with the positions of the named columns.
class CsvTable {
public:
    static Expected<CsvTable> read(const std::string& path, const std::vector<std::string_view>& required)
    {
        CsvTable t;
        t.m_path = path;
        std::ifstream in(path, std::ios::binary);
        if (!in)
            return makeError(ErrorCode::IoError, path + ": cannot open file");
        std::ostringstream text;
        text << in.rdbuf();
        t.m_text = text.str();
        std::string_view all(t.m_text);
        std::size_t start = 0;
        int lineNo = 0;
        while (start < all.size()) {
            std::size_t end = all.find('\n', start);
            if (end == std::string_view::npos)
                end = all.size();
            std::string_view line = all.substr(start, end - start);
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            ++lineNo;
            start = end + 1;
            if (lineNo == 1)
                t.m_header = splitCsvFields(line);
            else if (!line.empty())
                t.m_rows.push_back({ lineNo, splitCsvFields(line) });
        }
        if (t.m_header.empty())
            return makeError(ErrorCode::ParseError, path + ":1: empty file, expected a header");
        for (std::string_view name : required)
            if (t.column(name) < 0)
                return makeError(ErrorCode::ParseError, path + ":1: field '" + std::string(name) + "': missing column");
        for (const Row& row : t.m_rows)
            if (row.fields.size() != t.m_header.size())
                return makeError(ErrorCode::ParseError,
                    path + ":" + std::to_string(row.line) + ": expected " + std::to_string(t.m_header.size())
                        + " fields, found " + std::to_string(row.fields.size()));
        return t;
    }

    struct Row {
        int line = 0;
        std::vector<std::string_view> fields;
    };
    const std::vector<Row>& rows() const { return m_rows; }
    int column(std::string_view name) const
    {
        auto it = std::find(m_header.begin(), m_header.end(), name);
        return it == m_header.end() ? -1 : static_cast<int>(it - m_header.begin());
    }
    std::string_view field(const Row& row, std::string_view name) const
    {
        return row.fields[static_cast<std::size_t>(column(name))];
    }

    tl::unexpected<Error> error(const Row& row, std::string_view field, const std::string& problem) const
    {
        return makeError(ErrorCode::ParseError,
            m_path + ":" + std::to_string(row.line) + ": field '" + std::string(field) + "': " + problem);
    }

    // A non-negative integer no larger than `max`.
    Expected<std::int64_t> count(
        const Row& row, std::string_view name, std::int64_t max = std::int64_t { 1 } << 50) const
    {
        const std::string_view text = field(row, name);
        std::int64_t value = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
            return error(row, name, "not a number: '" + std::string(text) + "'");
        if (value < 0)
            return error(row, name, "negative request " + std::string(text));
        if (value > max)
            return error(row, name, "too large: " + std::string(text));
        return value;
    }

private:
    std::string m_path;
    std::string m_text; // the views below point into it
    std::vector<std::string_view> m_header;
    std::vector<Row> m_rows;
};

bool validModelName(std::string_view name)
{
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
            || c == '.';
    });
}

} // namespace

Expected<std::vector<OpenbNode>> loadOpenbNodes(const std::string& path)
{
    auto table = CsvTable::read(path, { "sn", "cpu_milli", "memory_mib", "gpu", "model" });
    if (!table)
        return tl::unexpected(table.error());
    std::vector<OpenbNode> nodes;
    std::set<std::string_view> seen;
    for (const auto& row : table->rows()) {
        OpenbNode n;
        n.name = std::string(table->field(row, "sn"));
        if (n.name.empty() || !seen.insert(table->field(row, "sn")).second)
            return table->error(row, "sn", n.name.empty() ? "empty node name" : "duplicate node name '" + n.name + "'");
        auto cpu = table->count(row, "cpu_milli");
        auto mem = table->count(row, "memory_mib");
        auto gpus = table->count(row, "gpu", 1024);
        for (const auto* v : { &cpu, &mem, &gpus })
            if (!*v)
                return tl::unexpected(v->error());
        n.cpuMillis = *cpu;
        n.memoryMiB = *mem;
        n.gpus = static_cast<std::int32_t>(*gpus);
        n.model = std::string(table->field(row, "model"));
        if (n.gpus > 0 && !validModelName(n.model))
            return table->error(row, "model", "bad GPU model '" + n.model + "' for a node with GPUs");
        nodes.push_back(std::move(n));
    }
    return nodes;
}

Expected<std::vector<OpenbPod>> loadOpenbPods(const std::string& path)
{
    auto table = CsvTable::read(path, { "name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli" });
    if (!table)
        return tl::unexpected(table.error());
    const bool hasSpec = table->column("gpu_spec") >= 0;
    const bool hasLife = table->column("creation_time") >= 0 && table->column("deletion_time") >= 0;
    std::vector<OpenbPod> pods;
    std::set<std::string_view> seen;
    for (const auto& row : table->rows()) {
        OpenbPod p;
        p.name = std::string(table->field(row, "name"));
        if (p.name.empty() || !seen.insert(table->field(row, "name")).second)
            return table->error(row, "name", p.name.empty() ? "empty pod name" : "duplicate pod name '" + p.name + "'");
        auto cpu = table->count(row, "cpu_milli");
        auto mem = table->count(row, "memory_mib");
        auto gpus = table->count(row, "num_gpu", 1024);
        auto milli = table->count(row, "gpu_milli", kGpuShareCapacity);
        for (const auto* v : { &cpu, &mem, &gpus, &milli })
            if (!*v)
                return tl::unexpected(v->error());
        p.cpuMillis = *cpu;
        p.memoryMiB = *mem;
        p.gpus = static_cast<std::int32_t>(*gpus);
        p.gpuMilli = static_cast<std::int32_t>(*milli);
        // The reference simulator rejects these shapes (it panics); say so here instead.
        if (p.gpus == 0 && p.gpuMilli != 0)
            return table->error(row, "gpu_milli", "a GPU share without GPUs (num_gpu = 0)");
        if (p.gpus > 0 && p.gpuMilli == 0)
            return table->error(row, "gpu_milli", "no GPU share for num_gpu = " + std::to_string(p.gpus));
        if (p.gpus > 1 && p.gpuMilli != kGpuShareCapacity)
            return table->error(row, "gpu_milli", "a multi-GPU request must take whole GPUs (1000)");
        if (hasSpec && p.gpus > 0) {
            // Models are separated by '|'; empty entries are ignored, as the reference's converter drops them.
            const std::string_view spec = table->field(row, "gpu_spec");
            std::size_t start = 0;
            for (;;) {
                const std::size_t bar = spec.find('|', start);
                const std::string_view name = spec.substr(start, bar == std::string_view::npos ? bar : bar - start);
                if (!name.empty()) {
                    if (!validModelName(name))
                        return table->error(row, "gpu_spec", "bad GPU model '" + std::string(name) + "'");
                    p.gpuSpec.emplace_back(name);
                }
                if (bar == std::string_view::npos)
                    break;
                start = bar + 1;
            }
        }
        if (hasLife && !table->field(row, "creation_time").empty() && !table->field(row, "deletion_time").empty()) {
            auto created = table->count(row, "creation_time");
            auto deleted = table->count(row, "deletion_time");
            for (const auto* v : { &created, &deleted })
                if (!*v)
                    return tl::unexpected(v->error());
            if (*deleted < *created)
                return table->error(row, "deletion_time", "deleted before it was created");
            p.creationS = *created;
            p.deletionS = *deleted;
        }
        pods.push_back(std::move(p));
    }
    return pods;
}

ClusterState makeOpenbCluster(const std::vector<OpenbNode>& nodes)
{
    ClusterState cluster;
    for (const OpenbNode& n : nodes) {
        Node node;
        node.name = n.name;
        node.isa = Isa::X86_64;
        node.capacity.cpuMillis = n.cpuMillis;
        node.capacity.memoryMiB = n.memoryMiB;
        if (n.gpus > 0) {
            const ModelId model = cluster.internModel(n.model);
            node.devices.assign(static_cast<std::size_t>(n.gpus),
                Device { AcceleratorKind::Gpu, model, kGpuShareCapacity, kGpuShareCapacity, 0, 0 });
        }
        cluster.addNode(std::move(node));
    }
    return cluster;
}

Workload makeOpenbWorkload(const OpenbPod& pod, WorkloadId id, ClusterState& cluster)
{
    Workload w;
    w.id = id;
    w.name = pod.name;
    w.requests.cpuMillis = pod.cpuMillis;
    w.requests.memoryMiB = pod.memoryMiB;
    if (pod.gpus > 0) {
        AcceleratorRequest& a = w.accelerators;
        a.kind = AcceleratorKind::Gpu;
        a.count = pod.gpus;
        // A whole GPU is asked for as whole devices, so that it takes only idle GPUs, like the reference.
        a.sharePerDevice = pod.gpuMilli >= kGpuShareCapacity ? 0 : pod.gpuMilli;
        for (const std::string& model : pod.gpuSpec)
            a.allowedModels.push_back(cluster.internModel(model));
    }
    return w;
}

} // namespace tidepool::sim
