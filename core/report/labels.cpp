#include "core/report/labels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace tidepool::report {

namespace {

struct Entry {
    std::string_view key;
    std::string_view en;
    std::string_view zh;
};

constexpr std::array kLabels {
    Entry { "title", "Tidepool report", "Tidepool 报告" },
    Entry { "period", "Period", "时段" },
    Entry { "scope", "Scope", "范围" },
    Entry { "generated", "Generated", "生成时间" },
    Entry { "page", "Page", "页" },
    Entry { "utc", "UTC", "UTC" },
    Entry { "nodes", "Nodes", "节点" },
    Entry { "pools", "Pools", "资源池" },
    // Scopes.
    Entry { "cluster", "Cluster", "集群" },
    Entry { "business-line", "Business line", "业务线" },
    Entry { "no-business-line", "(no business line)", "（无业务线）" },
    Entry { "pool", "Pool", "资源池" },
    Entry { "tier", "Tier", "层级" },
    // Sections.
    Entry { "utilisation", "Utilisation: requested vs used", "利用率：申请量与实际用量" },
    Entry { "tiers", "Tier occupancy", "层级占用" },
    Entry { "pending", "Pending time", "等待时间" },
    Entry { "forecasts", "Forecast accuracy", "预测准确度" },
    Entry { "proposals", "Proposals and their outcomes", "调整建议及其结果" },
    Entry { "energy", "Energy and carbon", "能耗与碳排放" },
    Entry { "costs", "Cost per business line", "各业务线成本" },
    Entry { "notes", "How these numbers are made", "数据说明" },
    // Columns.
    Entry { "resource", "Resource", "资源" },
    Entry { "unit", "Unit", "单位" },
    Entry { "capacity", "Capacity", "容量" },
    Entry { "requested", "Requested", "申请量" },
    Entry { "used", "Used", "实际用量" },
    Entry { "requested-mean", "Requested (mean)", "申请量（均值）" },
    Entry { "requested-peak", "Requested (peak)", "申请量（峰值）" },
    Entry { "used-mean", "Used (mean)", "实际用量（均值）" },
    Entry { "used-by-pools", "Used CPU and memory are what the agents measured the scope's pools' cgroups using.",
        "CPU 与内存的实际用量为各节点代理测得的本范围资源池 cgroup 用量。" },
    Entry { "used-by-nodes", "Used is what the scope's nodes used, the host and every pool on them included.",
        "实际用量为本范围节点的用量，含主机及其上所有资源池。" },
    Entry { "used-peak", "Used (peak)", "实际用量（峰值）" },
    Entry { "requested-share", "Requested / capacity", "申请量占容量" },
    Entry { "used-share", "Used / capacity", "用量占容量" },
    Entry { "cpu-capacity", "CPU capacity (cores)", "CPU 容量（核）" },
    Entry { "cpu-allocated", "CPU allocated (cores)", "CPU 已分配（核）" },
    Entry { "cpu-requested", "CPU requested (cores)", "CPU 申请量（核）" },
    Entry { "cpu-used", "CPU used (cores)", "CPU 用量（核）" },
    Entry { "accelerators", "Accelerators (devices)", "加速器（块）" },
    Entry { "accelerators-allocated", "Accelerators allocated", "加速器已分配量" },
    Entry { "accelerators-requested", "Accelerators requested", "加速器申请量" },
    Entry { "occupancy", "Occupancy (allocated / capacity)", "占用率（已分配/容量）" },
    Entry { "submitted", "Submitted", "提交数" },
    Entry { "placed", "Placed", "已放置" },
    Entry { "waiting", "Still waiting", "仍在等待" },
    Entry { "mean", "Mean", "平均" },
    Entry { "p50", "Median", "中位数" },
    Entry { "p90", "90th percentile", "第 90 百分位" },
    Entry { "max", "Longest", "最长" },
    Entry { "model", "Model", "模型" },
    Entry { "smape", "sMAPE (%)", "sMAPE（%）" },
    Entry { "coverage", "p10–p90 coverage (%)", "p10–p90 覆盖率（%）" },
    Entry { "mase", "MASE", "MASE" },
    Entry { "points", "Points", "点数" },
    Entry { "note", "Note", "备注" },
    Entry { "id", "ID", "编号" },
    Entry { "kind", "Kind", "类型" },
    Entry { "state", "Outcome", "结果" },
    Entry { "risk", "Risk", "风险" },
    Entry { "reason", "Reason", "原因" },
    Entry { "created", "Created", "创建时间" },
    Entry { "decided", "Decided", "决定时间" },
    Entry { "decided-by", "Decided by", "决定人" },
    Entry { "predicted", "Predicted utilisation", "预测利用率" },
    Entry { "realised", "Realised utilisation", "实际利用率" },
    Entry { "watts-saved", "Predicted watts saved", "预计节省功率（W）" },
    Entry { "energy-kwh", "Energy (kWh)", "能耗（kWh）" },
    Entry { "co2-kg", "Carbon (kg CO₂)", "碳排放（kg CO₂）" },
    Entry { "mean-watts", "Mean power (W)", "平均功率（W）" },
    Entry { "intensity", "Grid intensity (g CO₂/kWh)", "电网碳强度（g CO₂/kWh）" },
    Entry { "energy-per-bucket", "Energy per interval (kWh)", "各时段能耗（kWh）" },
    Entry { "cpu-core-hours", "CPU core-hours", "CPU 核时" },
    Entry { "memory-gib-hours", "Memory GiB-hours", "内存 GiB 时" },
    Entry { "accelerator-hours", "Accelerator hours", "加速器时" },
    Entry { "cost", "Cost", "成本" },
    Entry { "currency", "Currency", "货币" },
    Entry { "none", "None in this period.", "本时段内没有。" },
    Entry { "time", "Time", "时间" },
    Entry { "section", "Section", "部分" },
    Entry { "value", "Value", "数值" },
    // Resources and units.
    Entry { "cpu", "CPU", "CPU" },
    Entry { "memory", "Memory", "内存" },
    Entry { "gpu", "GPU", "GPU" },
    Entry { "npu", "NPU", "NPU" },
    Entry { "fpga", "FPGA", "FPGA" },
    Entry { "cores", "cores", "核" },
    Entry { "GiB", "GiB", "GiB" },
    Entry { "devices", "devices", "块" },
    // Tiers.
    Entry { "hot", "Hot", "热层" },
    Entry { "warm", "Warm", "温层" },
    Entry { "cold", "Cold", "冷层" },
    // Proposal kinds, states and risks.
    Entry { "quota", "Quota change", "配额调整" },
    Entry { "power_down", "Power down", "关机" },
    Entry { "power_up", "Power up", "开机" },
    Entry { "lend", "Lend accelerators", "借出加速器" },
    Entry { "reclaim", "Reclaim accelerators", "收回加速器" },
    Entry { "consolidate", "Consolidate", "整合" },
    Entry { "migrate", "Migrate", "迁移" },
    Entry { "defer", "Defer batch", "推迟批处理" },
    Entry { "resize", "Right-size", "规格调整" },
    Entry { "pending-state", "Pending", "待审批" },
    Entry { "approved", "Approved", "已批准" },
    Entry { "rejected", "Rejected", "已拒绝" },
    Entry { "expired", "Expired", "已过期" },
    Entry { "applied", "Applied", "已执行" },
    Entry { "failed", "Failed", "失败" },
    Entry { "low", "Low", "低" },
    Entry { "medium", "Medium", "中" },
    Entry { "high", "High", "高" },
    // Notes.
    Entry { "note-requested",
        "Requested: what the scope's pools asked for (pending, launching and running workloads), recorded every minute "
        "and averaged per 5 minutes. Used: what the scope's nodes measured.",
        "申请量：范围内资源池（等待、启动中和运行中的工作负载）申请的资源，每分钟记录一次并按 5 分钟取平均。"
        "实际用量：范围内节点测得的用量。" },
    Entry { "note-tiers",
        "Tier occupancy: what the tier's nodes hold (allocated to workloads of any tier, lent accelerators included) "
        "over their capacity. Requested there counts the tier's workloads wherever they run, and those still waiting, "
        "so it can pass the capacity.",
        "层级占用：该层级节点已分配的资源（分配给任何层级的工作负载，包括借出的加速器）占其容量的比例。"
        "该表中的申请量统计该层级的工作负载（无论运行在哪里）以及仍在等待的工作负载，因此可能超过容量。" },
    Entry { "note-energy",
        "Energy: each node's power is linear in its CPU and accelerator use between its idle and peak watts; a node "
        "with no samples in an interval counts as off.",
        "能耗：每个节点的功率按其 CPU 和加速器用量在空闲功率与峰值功率之间线性估算；某时段内没有采样的节点按关机计。" },
    Entry { "note-cost",
        "Cost: requested resource-hours of each business line's pools times the prices of the node classes their "
        "nodes belong to (from the daemon's configuration).",
        "成本：各业务线资源池申请的资源时数乘以其节点所属节点类别的价格（来自守护进程配置）。" },
    Entry { "note-forecast",
        "Forecast accuracy: a rolling-origin backtest of the forecasting model over the pool's 5-minute CPU history "
        "(and its memory history, where it has one) before the period's end, one hour ahead; the held-out part is "
        "the last fifth of that history.",
        "预测准确度：在时段结束前资源池 5 分钟粒度 CPU "
        "历史（以及内存历史，如有）上对预测模型做滚动起点回测（提前一小时）；"
        "留出部分为该历史的最后五分之一。" },
    Entry { "note-realised",
        "Realised utilisation: measured over the hour after a proposal was applied (a pool's requested CPU or memory "
        "against the quota it set, or a node's used CPU against its capacity).",
        "实际利用率：在建议执行后一小时内测得（资源池申请的 CPU 或内存与所设配额之比，或节点 CPU "
        "用量与其容量之比）。" },
};

// The console's Chinese of the reasons' forms, terms and units, by their English (generated; see core/CMakeLists.txt).
struct Translated {
    std::string_view english;
    std::string_view zh;
};
constexpr Translated kReasonsZh[] = {
#include "reason_zh_CN.inc"
    Translated { "", "" }, // so that the array is never empty
};

} // namespace

std::string reasonText(Language language, const rebalance::Why& why, const std::string& english)
{
    if (language != Language::ZhCN || why.empty())
        return english;
    const auto zh = [](std::string_view text) {
        const auto it = std::find_if(
            std::begin(kReasonsZh), std::end(kReasonsZh), [&](const Translated& t) { return t.english == text; });
        return std::string(it == std::end(kReasonsZh) ? text : it->zh);
    };
    return rebalance::worded(why, zh).value_or(english);
}

std::string_view label(Language language, std::string_view key)
{
    for (const Entry& e : kLabels)
        if (e.key == key)
            return language == Language::ZhCN ? e.zh : e.en;
    return key;
}

std::string scopeTitle(const ReportRequest& request)
{
    const std::string kind(label(request.language, toString(request.scope)));
    if (request.scope == ScopeKind::Cluster)
        return kind;
    const std::string name
        = request.scope == ScopeKind::Tier ? std::string(label(request.language, request.name)) : request.name;
    return kind + " " + name;
}

std::string costSubject(Language language, const BusinessLineCost& cost)
{
    if (!cost.businessLine.empty() || cost.pool.empty())
        return cost.businessLine;
    const std::string_view gap = language == Language::ZhCN ? "" : " ";
    return std::string(label(language, "pool")) + " " + cost.pool + std::string(gap)
        + std::string(label(language, "no-business-line"));
}

std::string formatNumber(double value, int digits)
{
    if (!measured(value) || std::isinf(value))
        return "—";
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

double niceAxisTop(double peak)
{
    if (!measured(peak) || peak <= 0)
        return 1.0;
    const double step = peak * 1.05 / 4.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(step)));
    for (const double m : { 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0 })
        if (m * magnitude >= step)
            return 4.0 * m * magnitude;
    return 40.0 * magnitude;
}

std::string formatDuration(double ms)
{
    if (!measured(ms))
        return "—";
    if (ms < 60'000)
        return formatNumber(ms / 1000.0, 0) + " s";
    if (ms < 3'600'000)
        return formatNumber(ms / 60'000.0, 1) + " min";
    return formatNumber(ms / 3'600'000.0, 1) + " h";
}

} // namespace tidepool::report
