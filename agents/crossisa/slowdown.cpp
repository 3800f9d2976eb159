#include "agents/crossisa/slowdown.h"

#include "agents/crossisa/command.h"
#include "agents/crossisa/elf.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

namespace tidepool::agent::crossisa {

namespace {

using nlohmann::json;

// Member access that never throws, whatever a hand-edited cache file holds (nlohmann's `value()` throws on a type
// mismatch).
const json& member(const json& object, std::string_view key)
{
    static const json kNull;
    if (!object.is_object())
        return kNull;
    const auto it = object.find(key);
    return it == object.end() ? kNull : *it;
}

constexpr int kMaxRuns = 99;
// Bump it when isabench's kernel or its timing changes: measurements of the old benchmark are then not reused.
constexpr int kCacheFormat = 1;
constexpr std::chrono::milliseconds kVersionTimeout { 10'000 };

struct BenchRun {
    std::int64_t ns = 0;
    std::string checksum;
};

std::int64_t median(std::vector<std::int64_t> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

std::string firstLine(const std::string& text)
{
    return text.substr(0, text.find('\n'));
}

Expected<BenchRun> runBench(
    const std::vector<std::string>& argv, std::string_view expectedIsa, std::chrono::milliseconds timeout)
{
    auto result = runCommand(argv, timeout);
    if (!result)
        return tl::unexpected(result.error());
    const std::string what = "`" + describeCommand(argv) + "`";
    if (result->exitCode != 0)
        return makeError(ErrorCode::BenchmarkFailed,
            what
                + (result->signal != 0 ? " was killed by signal " + std::to_string(result->signal)
                                       : " exited with status " + std::to_string(result->exitCode))
                + (result->err.empty() ? std::string() : ": " + firstLine(result->err)));
    const json out = json::parse(result->out, nullptr, false);
    const auto isa = out.is_object() ? out.find("isa") : out.end();
    const auto ns = out.is_object() ? out.find("ns") : out.end();
    const auto checksum = out.is_object() ? out.find("checksum") : out.end();
    if (!out.is_object() || isa == out.end() || !isa->is_string() || ns == out.end() || !ns->is_number_unsigned()
        || checksum == out.end() || !checksum->is_string())
        return makeError(ErrorCode::BenchmarkFailed,
            what + " printed \"" + firstLine(result->out).substr(0, 200)
                + "\", not isabench's {\"isa\", \"ns\", \"checksum\"} object");
    if (isa->get_ref<const std::string&>() != expectedIsa)
        return makeError(ErrorCode::BenchmarkFailed,
            what + " reports ISA " + isa->get_ref<const std::string&>() + ", not " + std::string(expectedIsa));
    const auto nanoseconds = ns->get<std::uint64_t>();
    if (nanoseconds == 0 || nanoseconds > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return makeError(ErrorCode::BenchmarkFailed, what + " reports an implausible time of " + ns->dump() + " ns");
    return BenchRun { static_cast<std::int64_t>(nanoseconds), checksum->get<std::string>() };
}

std::string cacheKey(std::string_view hostIsa, std::string_view targetIsa)
{
    return std::string(hostIsa) + "->" + std::string(targetIsa);
}

// The cache file's contents; an empty object when it does not exist. A file that is not ours (bad JSON, another
// format) is reported and then replaced, as a cache may be.
json loadCache(const std::filesystem::path& path, std::string& problem)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return json::object();
    std::stringstream text;
    text << in.rdbuf();
    json cache = json::parse(text.str(), nullptr, false);
    if (member(cache, "format") != json(kCacheFormat) || !member(cache, "pairs").is_object()) {
        problem = "ignored the slowdown cache \"" + path.string() + "\": not a format-" + std::to_string(kCacheFormat)
            + " slowdown cache";
        return json::object();
    }
    return cache;
}

std::vector<std::int64_t> integers(const json& array)
{
    std::vector<std::int64_t> values;
    if (!array.is_array())
        return values;
    for (const json& v : array) {
        if (!v.is_number_integer())
            return {};
        values.push_back(v.get<std::int64_t>());
    }
    return values;
}

// The cached measurement of the pair, when one was made with this qemu and these arguments.
std::optional<SlowdownMeasurement> cachedEntry(
    const json& cache, const SlowdownMeasurement& wanted, const std::vector<std::string>& benchArgs)
{
    const json& e = member(member(cache, "pairs"), cacheKey(wanted.hostIsa, wanted.targetIsa));
    if (member(e, "qemuVersion") != json(wanted.qemuVersion) || member(e, "benchArgs") != json(benchArgs))
        return std::nullopt;
    SlowdownMeasurement m = wanted;
    m.nativeNs = integers(member(e, "nativeNs"));
    m.translatedNs = integers(member(e, "translatedNs"));
    const json& factor = member(e, "factor");
    if (m.nativeNs.empty() || m.translatedNs.empty() || !factor.is_number())
        return std::nullopt;
    m.factor = factor.get<double>();
    if (!std::isfinite(m.factor) || m.factor <= 0.0)
        return std::nullopt;
    m.nativeMedianNs = median(m.nativeNs);
    m.translatedMedianNs = median(m.translatedNs);
    m.fromCache = true;
    return m;
}

// Writes the cache through a temporary file and a rename, so that a reader never sees half a file.
void saveCache(const std::filesystem::path& path, json cache, const SlowdownMeasurement& m,
    const std::vector<std::string>& benchArgs, std::string& problem)
{
    if (!member(cache, "pairs").is_object())
        cache = json { { "format", kCacheFormat }, { "pairs", json::object() } };
    const auto now
        = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
    cache["pairs"][cacheKey(m.hostIsa, m.targetIsa)]
        = json { { "qemuVersion", m.qemuVersion }, { "benchArgs", benchArgs }, { "factor", m.factor },
              { "nativeNs", m.nativeNs }, { "translatedNs", m.translatedNs }, { "measuredAtMs", now.count() } };

    std::error_code ec;
    if (path.has_parent_path())
        std::filesystem::create_directories(path.parent_path(), ec);
    std::filesystem::path temporary = path;
    temporary += ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << cache.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
        if (!out.flush()) {
            problem = "cannot write the slowdown cache \"" + temporary.string() + "\"";
            std::filesystem::remove(temporary, ec);
            return;
        }
    }
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        problem = "cannot replace the slowdown cache \"" + path.string() + "\": " + ec.message();
        std::filesystem::remove(temporary, ec);
    }
}

} // namespace

std::filesystem::path isabenchPath(const std::filesystem::path& benchDir, std::string_view isa)
{
    return benchDir / ("isabench-" + std::string(isa));
}

Expected<SlowdownMeasurement> measureSlowdown(const Translator& translator, const std::filesystem::path& benchDir,
    std::string_view targetIsa, const SlowdownOptions& options)
{
    if (options.runs < 1 || options.runs > kMaxRuns)
        return makeError(ErrorCode::BadArgument,
            "slowdown runs: " + std::to_string(options.runs) + "; it must be 1 to " + std::to_string(kMaxRuns));
    SlowdownMeasurement m;
    m.hostIsa = translator.hostIsa();
    m.targetIsa = std::string(targetIsa);
    auto wrapper = translator.wrapperForIsa(targetIsa);
    if (!wrapper)
        return tl::unexpected(wrapper.error());
    if (wrapper->empty()) {
        m.factor = 1.0; // the host's own ISA: nothing is translated
        return m;
    }

    auto version = runCommand({ wrapper->front(), "--version" }, kVersionTimeout);
    if (!version)
        return tl::unexpected(version.error());
    m.qemuVersion = firstLine(version->out);
    if (version->exitCode != 0 || m.qemuVersion.empty())
        return makeError(ErrorCode::NoTranslator,
            "`" + wrapper->front() + " --version` failed (status " + std::to_string(version->exitCode)
                + "): not a usable qemu-user");

    json cache;
    if (!options.cachePath.empty()) {
        cache = loadCache(options.cachePath, m.cacheProblem);
        if (auto cached = cachedEntry(cache, m, options.benchArgs))
            return *cached;
    }

    const std::filesystem::path nativeBench = isabenchPath(benchDir, m.hostIsa);
    const std::filesystem::path targetBench = isabenchPath(benchDir, m.targetIsa);
    for (const auto& [path, isa] : { std::pair { nativeBench, m.hostIsa }, std::pair { targetBench, m.targetIsa } }) {
        auto info = readElfInfo(path);
        if (!info)
            return makeError(ErrorCode::BenchmarkFailed, "no usable isabench for " + isa + ": " + info.error().message);
        if (info->isa != isa)
            return makeError(ErrorCode::BenchmarkFailed,
                "\"" + path.string() + "\" is not built for " + isa
                    + (info->isa.empty() ? std::string() : " but for " + info->isa));
    }

    std::vector<std::string> nativeArgv { nativeBench.string() };
    std::vector<std::string> translatedArgv = *wrapper;
    translatedArgv.push_back(targetBench.string());
    for (const std::string& arg : options.benchArgs) {
        nativeArgv.push_back(arg);
        translatedArgv.push_back(arg);
    }

    // Interleaved, so that a change of machine load during the measurement weighs on both sides alike.
    for (int i = 0; i < options.runs; ++i) {
        auto native = runBench(nativeArgv, m.hostIsa, options.runTimeout);
        if (!native)
            return tl::unexpected(native.error());
        auto translated = runBench(translatedArgv, m.targetIsa, options.runTimeout);
        if (!translated)
            return tl::unexpected(translated.error());
        if (translated->checksum != native->checksum)
            return makeError(ErrorCode::BenchmarkFailed,
                "`" + describeCommand(translatedArgv) + "` computed checksum " + translated->checksum
                    + " where the native build computed " + native->checksum + ": the translation is wrong");
        m.nativeNs.push_back(native->ns);
        m.translatedNs.push_back(translated->ns);
    }
    m.nativeMedianNs = median(m.nativeNs);
    m.translatedMedianNs = median(m.translatedNs);
    m.factor = static_cast<double>(m.translatedMedianNs) / static_cast<double>(m.nativeMedianNs);

    if (!options.cachePath.empty())
        saveCache(options.cachePath, std::move(cache), m, options.benchArgs, m.cacheProblem);
    return m;
}

} // namespace tidepool::agent::crossisa
