#include "agents/isolation/cgroup_layout.h"

#include "agents/isolation/sysfs.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace tidepool::agent {

namespace {

struct Mount {
    std::string root; // the path inside the hierarchy that is mounted (usually "/")
    std::filesystem::path mountPoint;
    std::string fsType;
    std::vector<std::string> superOptions;
};

std::vector<std::string_view> split(std::string_view text, char separator)
{
    std::vector<std::string_view> parts;
    while (true) {
        const auto at = text.find(separator);
        parts.push_back(text.substr(0, at));
        if (at == std::string_view::npos)
            break;
        text.remove_prefix(at + 1);
    }
    return parts;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescapeOctal(std::string_view text)
{
    const auto isOctal = [](char c) { return c >= '0' && c <= '7'; };
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 3 < text.size() && isOctal(text[i + 1]) && isOctal(text[i + 2])
            && isOctal(text[i + 3])) {
            out.push_back(static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 + (text[i + 3] - '0')));
            i += 3;
            continue;
        }
        out.push_back(text[i]);
    }
    return out;
}

std::vector<Mount> parseMountInfo(std::string_view mountinfo)
{
    std::vector<Mount> mounts;
    for (const auto line : split(mountinfo, '\n')) {
        std::vector<std::string_view> fields;
        for (const auto field : split(line, ' '))
            if (!field.empty())
                fields.push_back(field);
        const auto dash = std::find(fields.begin(), fields.end(), std::string_view("-"));
        if (fields.size() < 7 || dash == fields.end() || fields.end() - dash < 4 || dash - fields.begin() < 6)
            continue;
        Mount mount;
        mount.root = unescapeOctal(fields[3]);
        mount.mountPoint = unescapeOctal(fields[4]);
        mount.fsType = std::string(dash[1]);
        for (const auto option : split(dash[3], ','))
            mount.superOptions.emplace_back(option);
        mounts.push_back(std::move(mount));
    }
    return mounts;
}

// /proc/self/cgroup: "hierarchy-id:controller,list:/path"; the v2 entry is "0::/path".
struct SelfCgroups {
    std::optional<std::string> unified;
    std::map<std::string, std::string> byController;
};

SelfCgroups parseSelfCgroup(std::string_view text)
{
    SelfCgroups self;
    for (const auto line : split(text, '\n')) {
        const auto first = line.find(':');
        const auto second = first == std::string_view::npos ? first : line.find(':', first + 1);
        if (second == std::string_view::npos)
            continue;
        const auto controllers = line.substr(first + 1, second - first - 1);
        const std::string path(line.substr(second + 1));
        if (line.substr(0, first) == "0" && controllers.empty()) {
            self.unified = path;
            continue;
        }
        for (const auto controller : split(controllers, ','))
            if (!controller.empty())
                self.byController[std::string(controller)] = path;
    }
    return self;
}

// The directory of the cgroup `cgroupPath` (as /proc/self/cgroup names it) under `mount`; nullopt when the mount does
// not show it (another cgroup namespace, a bind mount of a different subtree).
std::optional<std::filesystem::path> mapToMount(const Mount& mount, const std::string& cgroupPath)
{
    std::string relative;
    if (mount.root == "/") {
        relative = cgroupPath;
    } else if (cgroupPath == mount.root) {
        relative = "/";
    } else if (cgroupPath.size() > mount.root.size() && cgroupPath.compare(0, mount.root.size(), mount.root) == 0
        && cgroupPath[mount.root.size()] == '/') {
        relative = cgroupPath.substr(mount.root.size());
    } else {
        return std::nullopt;
    }
    if (relative.find("/..") != std::string::npos || relative.empty() || relative[0] != '/')
        return std::nullopt;
    std::filesystem::path dir = mount.mountPoint;
    if (relative != "/")
        dir += relative;
    return dir.lexically_normal();
}

bool writable(const std::filesystem::path& dir)
{
    return ::access(dir.c_str(), W_OK) == 0;
}

std::set<std::string> controllersAt(const std::filesystem::path& dir)
{
    std::set<std::string> controllers;
    const auto text = sysfs::readFile(dir / "cgroup.controllers");
    if (!text)
        return controllers;
    for (const auto word : split(*text, ' ')) {
        std::string_view w = word;
        while (!w.empty() && (w.back() == '\n' || w.back() == ' '))
            w.remove_suffix(1);
        if (!w.empty())
            controllers.emplace(w);
    }
    return controllers;
}

std::string joined(const std::set<std::string>& words)
{
    std::string out;
    for (const auto& w : words)
        out += (out.empty() ? "" : " ") + w;
    return out.empty() ? "none" : out;
}

std::optional<CgroupLayout> detectV2(
    const std::vector<Mount>& mounts, const SelfCgroups& self, std::vector<std::string>& findings)
{
    for (const auto& mount : mounts) {
        if (mount.fsType != "cgroup2")
            continue;
        const auto rootControllers = controllersAt(mount.mountPoint);
        if (!rootControllers.contains("cpu") || !rootControllers.contains("memory")) {
            findings.push_back("cgroup2 at " + mount.mountPoint.string() + " offers only '" + joined(rootControllers)
                + "' (needs cpu and memory)");
            continue;
        }
        CgroupLayout layout;
        layout.version = CgroupVersion::V2;
        std::filesystem::path parent = mount.mountPoint;
        if (self.unified) {
            const auto own = mapToMount(mount, *self.unified);
            if (own && *own != mount.mountPoint) {
                const auto ownControllers = controllersAt(*own);
                if (writable(*own) && ownControllers.contains("cpu") && ownControllers.contains("memory")) {
                    parent = *own;
                    layout.notes.push_back("cgroup v2: using the agent's own cgroup " + own->string());
                } else {
                    layout.notes.push_back("cgroup v2: the agent's own cgroup " + own->string()
                        + " is not writable or lacks cpu/memory; using the root " + mount.mountPoint.string());
                }
            }
        }
        const bool io = rootControllers.contains("io") && controllersAt(parent).contains("io");
        for (auto* paths : { &layout.parents, &layout.roots }) {
            const auto& dir = paths == &layout.parents ? parent : mount.mountPoint;
            paths->cpu = dir;
            paths->cpuacct = dir;
            paths->memory = dir;
            paths->io = io ? dir : std::filesystem::path();
        }
        if (!io)
            layout.notes.emplace_back("cgroup v2: no io controller; IO weight and throttles are not enforced");
        layout.notes.emplace_back("cgroup v2 has no net_cls: network use is accounted only");
        return layout;
    }
    return std::nullopt;
}

std::optional<CgroupLayout> detectV1(
    const std::vector<Mount>& mounts, const SelfCgroups& self, std::vector<std::string>& findings)
{
    CgroupLayout layout;
    layout.version = CgroupVersion::V1;
    const std::pair<const char*, std::filesystem::path CgroupPaths::*> wanted[] = {
        { "cpu", &CgroupPaths::cpu },
        { "cpuacct", &CgroupPaths::cpuacct },
        { "memory", &CgroupPaths::memory },
        { "blkio", &CgroupPaths::io },
        { "net_cls", &CgroupPaths::netCls },
        { "net_prio", &CgroupPaths::netPrio },
    };
    for (const auto& [controller, member] : wanted) {
        const Mount* found = nullptr;
        for (const auto& mount : mounts) {
            if (mount.fsType != "cgroup"
                || std::find(mount.superOptions.begin(), mount.superOptions.end(), controller)
                    == mount.superOptions.end())
                continue;
            found = &mount;
            break;
        }
        if (!found)
            continue;
        std::filesystem::path parent = found->mountPoint;
        const auto own = self.byController.find(controller);
        if (own != self.byController.end()) {
            const auto dir = mapToMount(*found, own->second);
            if (dir && *dir != found->mountPoint && writable(*dir)) {
                parent = *dir;
                layout.notes.push_back(
                    std::string("cgroup v1 ") + controller + ": using the agent's own cgroup " + dir->string());
            }
        }
        layout.parents.*member = parent;
        layout.roots.*member = found->mountPoint;
    }
    if (layout.parents.cpu.empty() || layout.parents.memory.empty()) {
        findings.push_back(std::string("cgroup v1: ") + (layout.parents.cpu.empty() ? "no cpu hierarchy" : "cpu ok")
            + ", " + (layout.parents.memory.empty() ? "no memory hierarchy" : "memory ok"));
        return std::nullopt;
    }
    if (layout.parents.cpuacct.empty())
        layout.notes.emplace_back("cgroup v1: no cpuacct hierarchy; CPU usage cannot be read back");
    if (layout.parents.io.empty())
        layout.notes.emplace_back("cgroup v1: no blkio hierarchy; IO weight and throttles are not enforced");
    if (layout.parents.netCls.empty() && layout.parents.netPrio.empty())
        layout.notes.emplace_back("cgroup v1: no net_cls or net_prio hierarchy; network use is accounted only");
    return layout;
}

} // namespace

std::vector<std::filesystem::path> CgroupPaths::distinct() const
{
    std::vector<std::filesystem::path> out;
    for (const auto* p : { &memory, &cpu, &cpuacct, &io, &netCls, &netPrio })
        if (!p->empty() && std::find(out.begin(), out.end(), *p) == out.end())
            out.push_back(*p);
    return out;
}

CgroupPaths CgroupPaths::child(std::string_view name) const
{
    CgroupPaths out;
    const auto extend = [name](const std::filesystem::path& p) { return p.empty() ? p : p / name; };
    out.cpu = extend(cpu);
    out.cpuacct = extend(cpuacct);
    out.memory = extend(memory);
    out.io = extend(io);
    out.netCls = extend(netCls);
    out.netPrio = extend(netPrio);
    return out;
}

IsolationExpected<CgroupLayout> detectCgroupLayout(std::string_view mountinfo, std::string_view selfCgroup)
{
    const auto mounts = parseMountInfo(mountinfo);
    const auto self = parseSelfCgroup(selfCgroup);
    std::vector<std::string> findings;
    if (auto v2 = detectV2(mounts, self, findings))
        return *v2;
    if (auto v1 = detectV1(mounts, self, findings))
        return *v1;
    std::string message = "no usable cgroup hierarchy: need cgroup v2 with the cpu and memory controllers, or "
                          "cgroup v1 cpu and memory hierarchies";
    for (const auto& f : findings)
        message += "; " + f;
    return makeIsolationError(IsolationErrorCode::NoCgroups, "/proc/self/mountinfo", message);
}

IsolationExpected<CgroupLayout> detectCgroupLayout()
{
    const auto mountinfo = sysfs::readFile("/proc/self/mountinfo");
    if (!mountinfo)
        return tl::unexpected(mountinfo.error());
    const auto self = sysfs::readFile("/proc/self/cgroup");
    if (!self)
        return tl::unexpected(self.error());
    return detectCgroupLayout(*mountinfo, *self);
}

} // namespace tidepool::agent
