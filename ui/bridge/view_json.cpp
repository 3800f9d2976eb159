#include "ui/bridge/view_json.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace tidepool::ui {

using nlohmann::json;

namespace {

// A whole number that is not negative (nlohmann keeps non-negative literals made in code as signed).
bool isCount(const json& v)
{
    return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

// A number, or null where it is not one (JSON has no NaN).
json number(double value)
{
    return std::isfinite(value) ? json(value) : json();
}

// A utilisation (0..1) to a hundredth of a percent, or null where it is not measured: agents measure whole percents
// (NVML) or a few digits more, and the 17 digits of a double would double the size of a poll's usage.
json utilisation(double value)
{
    return value < 0.0 || !std::isfinite(value) ? json() : json(std::round(value * 10'000.0) / 10'000.0);
}

// Why a field could not be read, with its place; caught at the edge of each reader.
struct FieldError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Reads the fields of one object, naming a bad one by its place.
class Fields {
public:
    Fields(const json& j, std::string where)
        : m_j(j)
        , m_where(std::move(where))
    {
        if (!m_j.is_object())
            throw FieldError(m_where + " is not an object");
    }

    const json& at(const char* name) const
    {
        const auto it = m_j.find(name);
        if (it == m_j.end())
            throw FieldError(place(name) + " is missing");
        return *it;
    }
    std::string text(const char* name) const
    {
        const json& v = at(name);
        if (!v.is_string())
            throw FieldError(place(name) + " is not a string");
        return v.get<std::string>();
    }
    template <typename T> T integer(const char* name) const
    {
        const json& v = at(name);
        if (!v.is_number_integer())
            throw FieldError(place(name) + " is not a whole number");
        if constexpr (std::is_unsigned_v<T>) {
            if (isCount(v))
                return checked<T>(v.get<std::uint64_t>(), name);
            if (v.get<std::int64_t>() < 0)
                throw FieldError(place(name) + " is negative");
            return checked<T>(static_cast<std::uint64_t>(v.get<std::int64_t>()), name);
        } else {
            if (isCount(v) && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
                throw FieldError(place(name) + " is out of range");
            return checked<T>(v.get<std::int64_t>(), name);
        }
    }
    double real(const char* name) const { return realOf(at(name), place(name)); }
    // A number, or null for NaN.
    double realOrNull(const char* name) const
    {
        const json& v = at(name);
        return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : realOf(v, place(name));
    }
    bool flag(const char* name) const
    {
        const json& v = at(name);
        if (!v.is_boolean())
            throw FieldError(place(name) + " is not true or false");
        return v.get<bool>();
    }
    const json& array(const char* name) const
    {
        const json& v = at(name);
        if (!v.is_array())
            throw FieldError(place(name) + " is not an array");
        return v;
    }
    std::string place(const char* name) const { return m_where + "." + name; }

    static double realOf(const json& v, const std::string& place)
    {
        if (!v.is_number())
            throw FieldError(place + " is not a number");
        return v.get<double>();
    }

private:
    template <typename T, typename V> T checked(V value, const char* name) const
    {
        if (value > static_cast<V>(std::numeric_limits<T>::max())
            || (std::is_signed_v<V> && value < static_cast<V>(std::numeric_limits<T>::min())))
            throw FieldError(place(name) + " is out of range");
        return static_cast<T>(value);
    }

    const json& m_j;
    std::string m_where;
};

template <typename F> auto reading(F&& read) -> Expected<decltype(read())>
{
    try {
        return read();
    } catch (const FieldError& e) {
        return makeError(ErrorCode::ParseError, e.what());
    }
}

std::string item(const std::string& where, std::size_t i)
{
    return where + "[" + std::to_string(i) + "]";
}

} // namespace

json toJson(const DeviceRow& row)
{
    json holders = json::array();
    for (const DeviceHolder& h : row.holders)
        holders.push_back(json { { "workload", h.workload }, { "name", h.name }, { "pool", h.pool },
            { "share", h.share }, { "memoryMiB", h.memoryMiB } });
    return json { { "key", row.key }, { "nodeId", row.nodeId }, { "index", row.index }, { "node", row.node },
        { "tier", row.tier }, { "nodeState", row.nodeState }, { "kind", row.kind }, { "model", row.model },
        { "shareCapacity", row.shareCapacity }, { "shareAllocated", row.shareAllocated },
        { "memoryMiB", row.memoryMiB }, { "memoryAllocatedMiB", row.memoryAllocatedMiB },
        { "utilisation", utilisation(row.utilisation) },
        { "memoryUsedMiB", row.memoryUsedMiB < 0 ? json() : json(row.memoryUsedMiB) },
        { "holders", std::move(holders) }, { "slotHolders", row.slotHolders },
        { "slotsUnnumbered", row.slotsUnnumbered } };
}

json toJson(const DeviceUsage& usage)
{
    return json::array(
        { usage.key, utilisation(usage.utilisation), usage.memoryUsedMiB < 0 ? json() : json(usage.memoryUsedMiB) });
}

json toJson(const EventRow& row)
{
    return json { { "sequence", row.sequence }, { "atMs", row.atMs }, { "category", row.category },
        { "subject", row.subject }, { "from", row.from }, { "to", row.to }, { "node", row.node },
        { "actor", row.actor }, { "detail", row.detail },
        { "detailWhy", row.detailWhy.empty() ? json() : json::parse(row.detailWhy, nullptr, false) } };
}

json toJson(const ForecastSeries& series)
{
    json history = json::array();
    for (const HistoryValue& v : series.history)
        history.push_back(json::array({ v.atMs, number(v.value) }));
    json forecast = json::array();
    for (const ForecastPoint& p : series.forecast)
        forecast.push_back(json::array({ p.atMs, number(p.mean), number(p.p10), number(p.p90) }));
    const BacktestError& b = series.backtest;
    return json { { "scope", series.scope }, { "name", series.name }, { "resource", series.resource },
        { "history", std::move(history) }, { "model", series.model }, { "madeMs", series.madeMs },
        { "forecast", std::move(forecast) },
        { "backtest",
            json { { "done", b.done }, { "failure", b.failure }, { "horizonSteps", b.horizonSteps },
                { "smapePct", number(b.smapePct) }, { "mase", number(b.mase) },
                { "coveragePct", number(b.coveragePct) }, { "scoredPoints", b.scoredPoints } } } };
}

json toJson(const AlertRow& row)
{
    return json { { "kind", row.kind }, { "subject", row.subject }, { "detail", row.detail }, { "value", row.value },
        { "total", row.total } };
}

json deviceHistoryToJson(const std::vector<DeviceFramePtr>& frames)
{
    json layouts = json::array();
    json out = json::array();
    const DeviceLayout* last = nullptr;
    for (const DeviceFramePtr& frame : frames) {
        if (!frame || !frame->layout)
            continue;
        if (frame->layout.get() != last) {
            last = frame->layout.get();
            json ranges = json::array();
            for (const SlotRange& r : last->slotRanges)
                ranges.push_back(json::array({ r.position, r.first, r.count }));
            layouts.push_back(json { { "firstOfNode", last->firstOfNode }, { "slotRanges", std::move(ranges) } });
        }
        json values = json::array();
        for (const DeviceSampleValue& v : frame->values) {
            values.push_back(v.utilisation);
            values.push_back(v.allocated);
            values.push_back(v.memoryUsed);
            values.push_back(v.memoryAllocated);
        }
        json slots; // null without FPGAs
        if (frame->slotFrame) {
            json workloads = json::array();
            for (const SlotHolder& h : frame->slotFrame->workloads)
                workloads.push_back(json { { "workload", h.workload }, { "name", h.name }, { "pool", h.pool } });
            slots = json { { "holders", frame->slotFrame->holders }, { "workloads", std::move(workloads) } };
        }
        out.push_back(json { { "atMs", frame->atMs }, { "layout", layouts.size() - 1 }, { "values", std::move(values) },
            { "slots", std::move(slots) } });
    }
    return json { { "layouts", std::move(layouts) }, { "frames", std::move(out) } };
}

Expected<DeviceUsage> deviceUsageFromJson(const json& j, const std::string& where)
{
    // As `deviceFromJson` reads the same fields of a whole row: utilisation 0..1 where measured, memory not negative.
    if (!j.is_array() || j.size() != 3 || !j[0].is_number_integer() || (!j[1].is_null() && !j[1].is_number())
        || (!j[2].is_null() && !isCount(j[2]))
        || (j[0].is_number_unsigned() && j[0].get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max())
        || (j[2].is_number_unsigned() && j[2].get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()))
        return makeError(ErrorCode::ParseError, where + " is not [key, utilisation, memoryUsedMiB]");
    DeviceUsage usage;
    usage.key = j[0].get<std::int64_t>();
    if (!j[1].is_null()) {
        usage.utilisation = j[1].get<double>();
        if (!(usage.utilisation >= 0.0 && usage.utilisation <= 1.0))
            return makeError(ErrorCode::ParseError, where + "[1] is not a utilisation from 0 to 1");
    }
    if (!j[2].is_null())
        usage.memoryUsedMiB = j[2].get<std::int64_t>();
    return usage;
}

Expected<DeviceRow> deviceFromJson(const json& j, const std::string& where)
{
    return reading([&] {
        const Fields f(j, where);
        DeviceRow row;
        row.key = f.integer<std::int64_t>("key");
        row.nodeId = f.integer<std::int32_t>("nodeId");
        row.index = f.integer<std::int32_t>("index");
        row.node = f.text("node");
        row.tier = f.text("tier");
        row.nodeState = f.text("nodeState");
        row.kind = f.text("kind");
        row.model = f.text("model");
        row.shareCapacity = f.integer<std::int32_t>("shareCapacity");
        row.shareAllocated = f.integer<std::int32_t>("shareAllocated");
        row.memoryMiB = f.integer<std::int64_t>("memoryMiB");
        row.memoryAllocatedMiB = f.integer<std::int64_t>("memoryAllocatedMiB");
        row.utilisation = f.at("utilisation").is_null() ? -1.0 : f.real("utilisation");
        row.memoryUsedMiB = f.at("memoryUsedMiB").is_null() ? -1 : f.integer<std::int64_t>("memoryUsedMiB");
        if (row.key != DeviceRow::keyOf(row.nodeId, row.index))
            throw FieldError(f.place("key") + " is not the key of node " + std::to_string(row.nodeId) + "'s device "
                + std::to_string(row.index));
        const json& holders = f.array("holders");
        for (std::size_t i = 0; i < holders.size(); ++i) {
            const Fields h(holders[i], item(f.place("holders"), i));
            row.holders.push_back(DeviceHolder { h.integer<std::int64_t>("workload"), h.text("name"), h.text("pool"),
                h.integer<std::int32_t>("share"), h.integer<std::int64_t>("memoryMiB") });
        }
        const json& slots = f.array("slotHolders");
        if (slots.size() > static_cast<std::size_t>(kMaxNumberedSlots))
            throw FieldError(f.place("slotHolders") + " has more than " + std::to_string(kMaxNumberedSlots) + " slots");
        for (std::size_t i = 0; i < slots.size(); ++i) {
            if (!slots[i].is_number_integer())
                throw FieldError(item(f.place("slotHolders"), i) + " is not a workload id");
            row.slotHolders.push_back(slots[i].get<std::int64_t>());
        }
        row.slotsUnnumbered = f.integer<std::int32_t>("slotsUnnumbered");
        return row;
    });
}

Expected<EventRow> eventFromJson(const json& j, const std::string& where)
{
    return reading([&] {
        const Fields f(j, where);
        EventRow row;
        row.sequence = f.integer<std::uint64_t>("sequence");
        row.atMs = f.integer<std::int64_t>("atMs");
        row.category = f.text("category");
        row.subject = f.text("subject");
        row.from = f.text("from");
        row.to = f.text("to");
        row.node = f.text("node");
        row.actor = f.text("actor");
        row.detail = f.text("detail");
        // A daemon before session 22 sends none; anything but clauses is left to the English detail.
        if (const auto why = j.find("detailWhy"); why != j.end() && why->is_array())
            row.detailWhy = why->dump();
        return row;
    });
}

Expected<ForecastSeries> forecastFromJson(const json& j, const std::string& where)
{
    return reading([&] {
        const Fields f(j, where);
        ForecastSeries s;
        s.scope = f.text("scope");
        s.name = f.text("name");
        s.resource = f.text("resource");
        s.model = f.text("model");
        s.madeMs = f.integer<std::int64_t>("madeMs");
        // [atMs, v...] tuples: the time a whole number, the values numbers or null.
        auto tuple = [](const json& t, std::size_t size, const std::string& place) {
            if (!t.is_array() || t.size() != size || !t[0].is_number_integer())
                throw FieldError(place + " is not [time, " + (size == 2 ? "value]" : "mean, p10, p90]"));
            std::vector<double> values;
            for (std::size_t k = 1; k < size; ++k)
                values.push_back(t[k].is_null() ? std::numeric_limits<double>::quiet_NaN()
                                                : Fields::realOf(t[k], place + "[" + std::to_string(k) + "]"));
            return std::pair { t[0].get<std::int64_t>(), values };
        };
        const json& history = f.array("history");
        s.history.reserve(history.size());
        for (std::size_t i = 0; i < history.size(); ++i) {
            auto [at, v] = tuple(history[i], 2, item(f.place("history"), i));
            s.history.push_back(HistoryValue { at, v[0] });
        }
        const json& forecast = f.array("forecast");
        for (std::size_t i = 0; i < forecast.size(); ++i) {
            auto [at, v] = tuple(forecast[i], 4, item(f.place("forecast"), i));
            s.forecast.push_back(ForecastPoint { at, v[0], v[1], v[2] });
        }
        const Fields b(f.at("backtest"), f.place("backtest"));
        s.backtest.done = b.flag("done");
        s.backtest.failure = b.text("failure");
        s.backtest.horizonSteps = b.integer<std::int64_t>("horizonSteps");
        s.backtest.smapePct = b.realOrNull("smapePct");
        s.backtest.mase = b.realOrNull("mase");
        s.backtest.coveragePct = b.realOrNull("coveragePct");
        s.backtest.scoredPoints = b.integer<std::size_t>("scoredPoints");
        return s;
    });
}

Expected<AlertRow> alertFromJson(const json& j, const std::string& where)
{
    return reading([&] {
        const Fields f(j, where);
        return AlertRow { f.text("kind"), f.text("subject"), f.text("detail"), f.integer<std::int64_t>("value"),
            f.integer<std::int64_t>("total") };
    });
}

Expected<std::vector<DeviceFramePtr>> deviceHistoryFromJson(const json& j, std::shared_ptr<const DeviceLayout> previous)
{
    return reading([&] {
        const Fields f(j, "device history");
        std::vector<std::shared_ptr<const DeviceLayout>> layouts;
        const json& ls = f.array("layouts");
        for (std::size_t i = 0; i < ls.size(); ++i) {
            auto layout = std::make_shared<DeviceLayout>();
            const Fields l(ls[i], item(f.place("layouts"), i));
            const std::string place = l.place("firstOfNode");
            const json& offsets = l.array("firstOfNode");
            if (offsets.empty())
                throw FieldError(place + " is empty");
            std::uint32_t last = 0;
            for (const json& first : offsets) {
                if (!isCount(first) || first.get<std::uint64_t>() > 0xFFFFFFFFu
                    || first.get<std::uint32_t>() < last)
                    throw FieldError(place + " is not a rising array of device offsets");
                last = first.get<std::uint32_t>();
                layout->firstOfNode.push_back(last);
            }
            const json& ranges = l.array("slotRanges");
            std::uint32_t slotsEnd = 0;
            for (std::size_t k = 0; k < ranges.size(); ++k) {
                const json& r = ranges[k];
                const std::string at = item(l.place("slotRanges"), k);
                if (!r.is_array() || r.size() != 3 || !isCount(r[0]) || !isCount(r[1])
                    || !isCount(r[2]) || r[0].get<std::uint64_t>() >= layout->firstOfNode.back()
                    || r[1].get<std::uint64_t>() != slotsEnd || r[2].get<std::uint64_t>() > kMaxNumberedSlots
                    || (k > 0 && r[0].get<std::uint32_t>() <= layout->slotRanges.back().position))
                    throw FieldError(at + " is not [device position, first slot, slots] following the one before");
                layout->slotRanges.push_back(
                    SlotRange { r[0].get<std::uint32_t>(), r[1].get<std::uint32_t>(), r[2].get<std::uint32_t>() });
                slotsEnd += r[2].get<std::uint32_t>();
            }
            if (previous && previous->firstOfNode == layout->firstOfNode && previous->slotRanges == layout->slotRanges)
                layouts.push_back(previous);
            else
                layouts.push_back(std::move(layout));
        }
        std::vector<DeviceFramePtr> frames;
        const json& fs = f.array("frames");
        for (std::size_t i = 0; i < fs.size(); ++i) {
            const Fields fr(fs[i], item(f.place("frames"), i));
            auto frame = std::make_shared<DeviceFrame>();
            frame->atMs = fr.integer<std::int64_t>("atMs");
            const auto layout = fr.integer<std::size_t>("layout");
            if (layout >= layouts.size())
                throw FieldError(fr.place("layout") + " names layout " + std::to_string(layout) + " of "
                    + std::to_string(layouts.size()));
            frame->layout = layouts[layout];
            const json& values = fr.array("values");
            const std::size_t devices = frame->layout->firstOfNode.back();
            if (values.size() != devices * 4)
                throw FieldError(fr.place("values") + " has " + std::to_string(values.size()) + " values, not 4 for each of "
                    + std::to_string(devices) + " devices");
            frame->values.resize(devices);
            for (std::size_t k = 0; k < values.size(); ++k) {
                if (!isCount(values[k]) || values[k].get<std::uint64_t>() > 0xFFFF)
                    throw FieldError(item(fr.place("values"), k) + " is not a per-mille value");
                const auto v = values[k].get<std::uint16_t>();
                DeviceSampleValue& s = frame->values[k / 4];
                switch (k % 4) {
                case 0: s.utilisation = v; break;
                case 1: s.allocated = v; break;
                case 2: s.memoryUsed = v; break;
                default: s.memoryAllocated = v; break;
                }
            }
            const json& slots = fr.at("slots");
            const std::uint32_t slotCount = frame->layout->slotRanges.empty()
                ? 0
                : frame->layout->slotRanges.back().first + frame->layout->slotRanges.back().count;
            if (!slots.is_null()) {
                const Fields sf(slots, fr.place("slots"));
                auto slotFrame = std::make_shared<SlotFrame>();
                const json& holders = sf.array("holders");
                if (holders.size() != slotCount)
                    throw FieldError(sf.place("holders") + " has " + std::to_string(holders.size())
                        + " slots, not the layout's " + std::to_string(slotCount));
                for (std::size_t k = 0; k < holders.size(); ++k) {
                    if (!holders[k].is_number_integer())
                        throw FieldError(item(sf.place("holders"), k) + " is not a workload id");
                    slotFrame->holders.push_back(holders[k].get<std::int64_t>());
                }
                const json& workloads = sf.array("workloads");
                for (std::size_t k = 0; k < workloads.size(); ++k) {
                    const Fields w(workloads[k], item(sf.place("workloads"), k));
                    slotFrame->workloads.push_back(
                        SlotHolder { w.integer<std::int64_t>("workload"), w.text("name"), w.text("pool") });
                }
                // Consecutive frames share one while no slot changes hands, as the collector's do.
                if (!frames.empty() && frames.back()->slotFrame && *frames.back()->slotFrame == *slotFrame)
                    frame->slotFrame = frames.back()->slotFrame;
                else
                    frame->slotFrame = std::move(slotFrame);
            } else if (slotCount > 0) {
                throw FieldError(fr.place("slots") + " is missing while its layout has FPGA slots");
            }
            frames.push_back(std::move(frame));
        }
        return frames;
    });
}

} // namespace tidepool::ui
