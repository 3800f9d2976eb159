#include "agents/isolation/net_shaper.h"

#include "agents/crossisa/command.h"
#include "agents/isolation/sysfs.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>

namespace tidepool::agent {

namespace {

constexpr std::int64_t kMaxLinkMbps = 10'000'000; // 10 Tbit/s, as the protocol bounds it

std::string classId(std::uint32_t minor)
{
    char text[16];
    std::snprintf(text, sizeof text, "%x:%x", NetShaper::kHandle, minor);
    return text;
}

std::string rate(std::int64_t mbps)
{
    return std::to_string(std::max<std::int64_t>(1, mbps)) + "mbit";
}

IsolationExpected<void> checkDevice(std::string_view device)
{
    if (device.empty() || device.size() > 15 || device == "." || device == ".."
        || device.find_first_of(" \t\n/:") != std::string_view::npos)
        return makeIsolationError(IsolationErrorCode::BadName, "device",
            "network device \"" + sysfs::quoted(device)
                + "\" is not a device name (1 to 15 characters, no '/', ':' or space)");
    return {};
}

} // namespace

NetShaper::NetShaper(NetShapeConfig config)
    : m_config(std::move(config))
{
}

IsolationExpected<NetShapeConfig> NetShaper::parseOption(std::string_view value)
{
    NetShapeConfig config;
    const auto colon = value.rfind(':');
    config.device = std::string(value.substr(0, colon));
    if (colon != std::string_view::npos) {
        const std::string_view number = value.substr(colon + 1);
        std::int64_t mbps = 0;
        const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), mbps);
        if (ec != std::errc() || end != number.data() + number.size() || mbps < 1 || mbps > kMaxLinkMbps)
            return makeIsolationError(IsolationErrorCode::BadLimit, "linkMbps",
                "the link rate \"" + sysfs::quoted(number) + "\" is not a number of Mbit/s from 1 to 10000000");
        config.linkMbps = mbps;
    }
    if (auto ok = checkDevice(config.device); !ok)
        return tl::unexpected(ok.error());
    return config;
}

IsolationExpected<NetShaper> NetShaper::create(NetShapeConfig config)
{
    if (auto ok = checkDevice(config.device); !ok)
        return tl::unexpected(ok.error());
    const std::filesystem::path dir = config.sysClassNet / config.device;
    if (!sysfs::fileExists(dir))
        return makeIsolationError(IsolationErrorCode::NotFound, dir.string(),
            "network device " + config.device + " does not exist (no " + dir.string() + ")");
    if (config.linkMbps == 0) {
        // Virtual devices (veth, bridges, most VMs' NICs) have no speed: the file says -1 or cannot be read.
        const auto speed = sysfs::readFile(dir / "speed");
        std::int64_t mbps = 0;
        if (speed) {
            const std::string& text = *speed;
            std::from_chars(text.data(), text.data() + text.size(), mbps);
        }
        if (mbps < 1)
            return makeIsolationError(IsolationErrorCode::BadLimit, (dir / "speed").string(),
                "the link rate of " + config.device + " is not known (" + (dir / "speed").string() + " says "
                    + (speed ? "\"" + sysfs::quoted(speed->substr(0, speed->find('\n'))) + "\"" : speed.error().message)
                    + "): give it, as " + config.device + ":MBPS");
        config.linkMbps = std::min(mbps, kMaxLinkMbps);
    }
    if (config.tc.empty())
        config.tc = ::access("/usr/sbin/tc", X_OK) == 0 ? "/usr/sbin/tc" : "/sbin/tc";
    if (::access(config.tc.c_str(), X_OK) != 0)
        return makeIsolationError(IsolationErrorCode::NotFound, config.tc.string(),
            "no tc at " + config.tc.string() + " (Debian package iproute2): network shaping needs it");

    NetShaper shaper(std::move(config));
    // An htb root of this handle, a previous agent's, is kept with its classes: a restarted agent's pools stay shaped.
    // (`tc qdisc replace` cannot change an htb in place: it fails, so it is not tried on one.)
    auto roots = shaper.tc({ "qdisc", "show", "dev", shaper.device(), "root" });
    if (!roots)
        return tl::unexpected(roots.error());
    if (roots->find("qdisc htb " + std::to_string(kHandle) + ": root") == std::string::npos) {
        char defaultMinor[8];
        std::snprintf(defaultMinor, sizeof defaultMinor, "%x", kDefaultMinor);
        if (auto ok = shaper.tc({ "qdisc", "replace", "dev", shaper.device(), "root", "handle",
                std::to_string(kHandle) + ":", "htb", "default", defaultMinor });
            !ok)
            return tl::unexpected(ok.error());
    }
    if (auto ok = shaper.setClass(0, 1, shaper.linkMbps()); !ok)
        return tl::unexpected(ok.error());
    if (auto ok = shaper.setClass(1, kDefaultMinor, shaper.linkMbps()); !ok)
        return tl::unexpected(ok.error());
    shaper.m_defaultRate = shaper.linkMbps();
    return shaper;
}

std::map<std::uint32_t, std::uint64_t> parseClassBytes(std::string_view tcOutput, std::uint32_t handle)
{
    std::map<std::uint32_t, std::uint64_t> out;
    const std::string prefix = "class htb " + std::to_string(handle) + ":";
    // The class whose counters the next "Sent" line holds (an optional here draws a false maybe-uninitialized warning).
    bool inClass = false;
    std::uint32_t minor = 0;
    while (!tcOutput.empty()) {
        const auto end = tcOutput.find('\n');
        std::string_view line = tcOutput.substr(0, end);
        tcOutput.remove_prefix(end == std::string_view::npos ? tcOutput.size() : end + 1);
        if (line.starts_with("class ")) {
            inClass = false;
            if (!line.starts_with(prefix))
                continue;
            line.remove_prefix(prefix.size());
            const auto [next, ec] = std::from_chars(line.data(), line.data() + line.size(), minor, 16);
            inClass = ec == std::errc() && (next == line.data() + line.size() || *next == ' ');
            continue;
        }
        while (!line.empty() && line.front() == ' ')
            line.remove_prefix(1);
        if (!inClass || !line.starts_with("Sent "))
            continue;
        line.remove_prefix(5);
        std::uint64_t bytes = 0;
        const auto [next, ec] = std::from_chars(line.data(), line.data() + line.size(), bytes);
        if (ec == std::errc() && std::string_view(next, line.data() + line.size() - next).starts_with(" bytes"))
            out[minor] = bytes;
        inClass = false;
    }
    return out;
}

IsolationExpected<std::map<std::string, std::uint64_t>> NetShaper::sentBytes() const
{
    auto shown = tc({ "-s", "class", "show", "dev", device() });
    if (!shown)
        return tl::unexpected(shown.error());
    const auto bytes = parseClassBytes(*shown, kHandle);
    std::map<std::string, std::uint64_t> out;
    for (const auto& [pool, minor] : m_minors)
        if (const auto it = bytes.find(minor); it != bytes.end())
            out.emplace(pool, it->second);
    return out;
}

IsolationExpected<std::string> NetShaper::tc(const std::vector<std::string>& args) const
{
    std::vector<std::string> argv { m_config.tc.string() };
    argv.insert(argv.end(), args.begin(), args.end());
    auto ran = crossisa::runCommand(argv, m_config.timeout);
    if (!ran)
        return makeIsolationError(IsolationErrorCode::SystemCall, m_config.tc.string(), ran.error().message);
    if (ran->exitCode != 0) {
        std::string err = ran->err;
        while (!err.empty() && (err.back() == '\n' || err.back() == ' '))
            err.pop_back();
        return makeIsolationError(IsolationErrorCode::SystemCall, m_config.tc.string(),
            "`" + crossisa::describeCommand(argv) + "` failed"
                + (ran->signal ? " (signal " + std::to_string(ran->signal) + ")"
                               : " (exit " + std::to_string(ran->exitCode) + ")")
                + (err.empty() ? std::string() : ": " + err.substr(err.size() > 400 ? err.size() - 400 : 0)));
    }
    return std::move(ran->out);
}

IsolationExpected<void> NetShaper::setClass(std::uint32_t parentMinor, std::uint32_t minor, std::int64_t rateMbps) const
{
    const std::string parent = parentMinor == 0 ? std::to_string(kHandle) + ":" : classId(parentMinor);
    if (auto ok = tc({ "class", "replace", "dev", device(), "parent", parent, "classid", classId(minor), "htb", "rate",
            rate(rateMbps), "ceil", rate(linkMbps()) });
        !ok)
        return tl::unexpected(ok.error());
    return {};
}

void NetShaper::adopt(const std::string& pool, std::uint32_t priority)
{
    const std::uint32_t minor = priority & 0xffff;
    if (priority >> 16 != kHandle || minor < kFirstPoolMinor || minor > kLastPoolMinor || m_minors.contains(pool))
        return;
    for (const auto& [name, held] : m_minors)
        if (held == minor)
            return;
    m_minors.emplace(pool, minor);
}

IsolationExpected<std::vector<std::string>> NetShaper::apply(const std::vector<PoolRate>& pools)
{
    std::vector<std::string> notes;
    std::int64_t guaranteed = 0;
    std::map<std::string, std::int64_t, std::less<>> wanted;
    for (const PoolRate& p : pools) {
        guaranteed += std::max<std::int64_t>(1, p.guaranteedMbps);
        wanted[p.pool] = p.guaranteedMbps;
    }
    // Classes of pools gone first: their minors may serve new pools.
    for (auto it = m_minors.begin(); it != m_minors.end();) {
        if (wanted.contains(it->first)) {
            ++it;
            continue;
        }
        if (auto ok = tc({ "class", "del", "dev", device(), "classid", classId(it->second) }); !ok) {
            // Already gone (removed by hand, or never made by this agent): nothing is left to remove.
            if (ok.error().message.find("No such file") == std::string::npos
                && ok.error().message.find("Cannot find") == std::string::npos)
                return tl::unexpected(ok.error());
        }
        m_rates.erase(it->first);
        it = m_minors.erase(it);
    }
    for (const auto& [pool, mbps] : wanted) {
        auto minor = m_minors.find(pool);
        if (minor == m_minors.end()) {
            std::uint32_t next = kFirstPoolMinor;
            for (bool taken = true; taken && next <= kLastPoolMinor;) {
                taken = false;
                for (const auto& [name, held] : m_minors)
                    if (held == next) {
                        taken = true;
                        ++next;
                        break;
                    }
            }
            if (next > kLastPoolMinor)
                return makeIsolationError(IsolationErrorCode::BadLimit, pool, "no shaping class left for pool " + pool);
            minor = m_minors.emplace(pool, next).first;
        }
        if (const auto set = m_rates.find(pool); set != m_rates.end() && set->second == mbps)
            continue;
        m_rates.erase(pool); // until it is set: a failed command leaves it to be tried again
        if (auto ok = setClass(1, minor->second, mbps); !ok)
            return tl::unexpected(ok.error());
        m_rates[pool] = mbps;
    }
    if (guaranteed >= linkMbps())
        notes.push_back("the pools' guarantees on " + device() + " (" + std::to_string(guaranteed)
            + " Mbit/s) reach its link rate (" + std::to_string(linkMbps())
            + " Mbit/s): the link is shared in their proportion, and traffic outside the pools gets 1 Mbit/s");
    const std::int64_t rest = std::max<std::int64_t>(1, linkMbps() - guaranteed);
    if (rest != m_defaultRate) {
        m_defaultRate = -1;
        if (auto ok = setClass(1, kDefaultMinor, rest); !ok)
            return tl::unexpected(ok.error());
        m_defaultRate = rest;
    }
    return notes;
}

std::uint32_t NetShaper::priorityOf(std::string_view pool) const
{
    const auto it = m_minors.find(pool);
    return it == m_minors.end() ? 0 : (kHandle << 16) | it->second;
}

IsolationExpected<void> NetShaper::remove()
{
    m_minors.clear();
    m_rates.clear();
    m_defaultRate = -1;
    if (auto ok = tc({ "qdisc", "del", "dev", device(), "root" }); !ok)
        return tl::unexpected(ok.error());
    return {};
}

} // namespace tidepool::agent
