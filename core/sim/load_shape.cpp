#include "core/sim/load_shape.h"

#include "core/forecast/series.h"
#include "core/model/csv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>

namespace tidepool::sim {

Expected<LoadShape> LoadShape::load(const std::string& path, const std::string& column)
{
    auto loaded = forecast::loadSeriesCsv(path, forecast::SeriesCsvOptions { column, 300.0 });
    if (!loaded)
        return tl::unexpected(loaded.error());
    LoadShape s;
    s.m_values = forecast::fillGaps(loaded->series.values);
    const double peak = s.m_values.empty() ? 0 : *std::max_element(s.m_values.begin(), s.m_values.end());
    if (s.m_values.size() < 288 || !(peak > 0))
        return makeError(ErrorCode::ParseError, path + ": column '" + column + "' holds less than a day of load");
    for (double& v : s.m_values)
        v = std::max(0.0, v / peak);
    return s;
}

Expected<LoadShape> LoadShape::loadQps(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::IoError, path + ": cannot open file");
    std::string headerLine;
    std::getline(in, headerLine);
    if (!headerLine.empty() && headerLine.back() == '\r')
        headerLine.pop_back();
    const auto header = splitCsvFields(headerLine);
    std::string line;
    const auto column = [&](std::string_view name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
    };
    const std::size_t timeColumn = column("timestamp_anon"), valueColumn = column("value");
    if (timeColumn >= header.size() || valueColumn >= header.size())
        return makeError(ErrorCode::ParseError, path + ":1: expected columns timestamp_anon and value");
    std::map<std::int64_t, double> perMinute; // requests/s summed over pods
    for (int lineNo = 2; std::getline(in, line); ++lineNo) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.empty())
            continue;
        const auto fields = splitCsvFields(line);
        double t = 0, v = 0;
        const auto number = [](std::string_view text, double& out) {
            const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
            return !text.empty() && ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(out);
        };
        if (fields.size() != header.size() || !number(fields[timeColumn], t) || !number(fields[valueColumn], v)
            || v < 0)
            return makeError(ErrorCode::ParseError,
                path + ":" + std::to_string(lineNo) + ": expected a timestamp and a non-negative value");
        perMinute[static_cast<std::int64_t>(t / 60)] += v;
    }
    if (perMinute.size() < 60)
        return makeError(ErrorCode::ParseError, path + ": less than an hour of requests");
    const std::int64_t first = perMinute.begin()->first, last = perMinute.rbegin()->first;
    std::vector<double> minutes(static_cast<std::size_t>(last - first + 1), std::nan(""));
    for (const auto& [minute, qps] : perMinute)
        minutes[static_cast<std::size_t>(minute - first)] = qps;
    minutes = forecast::fillGaps(minutes);
    LoadShape s;
    s.m_values.resize(288);
    for (std::size_t i = 0; i < 288; ++i) { // bucket i of the day: the trace's minutes that stretch onto it
        const auto from = i * minutes.size() / 288, to = std::max(from + 1, (i + 1) * minutes.size() / 288);
        double sum = 0;
        for (std::size_t m = from; m < to; ++m)
            sum += minutes[m];
        s.m_values[i] = sum / static_cast<double>(to - from);
    }
    const double peak = *std::max_element(s.m_values.begin(), s.m_values.end());
    if (!(peak > 0))
        return makeError(ErrorCode::ParseError, path + ": no requests");
    for (double& v : s.m_values)
        v /= peak;
    return s;
}

std::vector<double> LoadShape::dailyLevels() const
{
    std::vector<double> means;
    for (std::size_t d = 0; (d + 1) * 288 <= m_values.size(); ++d) {
        double sum = 0;
        for (std::size_t i = d * 288; i < (d + 1) * 288; ++i)
            sum += m_values[i];
        means.push_back(sum / 288);
    }
    double all = 0;
    for (double m : means)
        all += m;
    for (double& m : means)
        m /= all / static_cast<double>(means.size());
    return means;
}

void LoadShape::scaleDays(const std::vector<double>& levels)
{
    if (levels.empty() || m_values.size() < 288)
        return;
    const std::vector<double> day = m_values;
    m_values.clear();
    for (double level : levels)
        for (double v : day)
            m_values.push_back(v * level);
    const double peak = *std::max_element(m_values.begin(), m_values.end());
    for (double& v : m_values)
        v /= peak;
}

double LoadShape::at(std::int64_t ms) const
{
    const double pos = static_cast<double>(ms) / 300'000.0;
    const auto n = static_cast<std::int64_t>(m_values.size());
    const auto i = static_cast<std::int64_t>(std::floor(pos));
    const double frac = pos - static_cast<double>(i);
    const auto wrap = [n](std::int64_t k) { return static_cast<std::size_t>(((k % n) + n) % n); };
    return m_values[wrap(i)] * (1 - frac) + m_values[wrap(i + 1)] * frac;
}

double LoadShape::peak(std::int64_t fromMs, std::int64_t toMs) const
{
    double p = 0;
    for (std::int64_t t = fromMs; t < toMs; t += 300'000)
        p = std::max(p, at(t));
    return p;
}

Expected<TraceShapes> loadTraceShapes(const std::string& dataDir)
{
    const std::string series = dataDir + "/load-series/";
    auto google = LoadShape::load(series + "google2019_instance_usage_28days_300s.csv", "avg_cpu");
    if (!google)
        return tl::unexpected(google.error());
    auto alibaba = LoadShape::load(series + "alibaba2018_machine_usage_8days_300s.csv", "cpu_util_percent");
    if (!alibaba)
        return tl::unexpected(alibaba.error());
    auto genai = LoadShape::loadQps(dataDir + "/services/qps.csv");
    if (!genai)
        return tl::unexpected(genai.error());
    genai->scaleDays(google->dailyLevels());
    return TraceShapes { std::move(*google), std::move(*alibaba), std::move(*genai) };
}

} // namespace tidepool::sim
