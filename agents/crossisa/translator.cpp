#include "agents/crossisa/translator.h"

#include "agents/crossisa/elf.h"

#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace tidepool::agent::crossisa {

namespace {

// ISA names become part of a file name: only a plain token may, never a path.
bool isPlainName(std::string_view isa)
{
    return !isa.empty() && isa.size() <= 32 && std::all_of(isa.begin(), isa.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

bool isExecutableFile(const std::filesystem::path& path)
{
    struct stat st { };
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

} // namespace

std::string normaliseIsa(std::string_view machine)
{
    if (machine == "amd64" || machine == "x86-64")
        return "x86_64";
    if (machine == "arm64")
        return "aarch64";
    return std::string(machine);
}

std::string hostIsa()
{
    struct utsname names { };
    if (::uname(&names) != 0)
        return {};
    return normaliseIsa(names.machine);
}

Translator::Translator(TranslatorConfig config)
    : m_hostIsa(config.hostIsa.empty() ? crossisa::hostIsa() : normaliseIsa(config.hostIsa))
    , m_dirs(std::move(config.searchDirs))
{
    std::string path;
    if (config.searchPath)
        path = *config.searchPath;
    else if (const char* env = std::getenv("PATH"))
        path = env;
    std::string_view rest = path;
    while (!rest.empty()) {
        const std::size_t colon = rest.find(':');
        const std::string_view entry = rest.substr(0, colon);
        // An empty entry means the working directory to a shell; a daemon must not pick up whatever lies there.
        if (!entry.empty())
            m_dirs.emplace_back(entry);
        rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
}

std::optional<std::filesystem::path> Translator::translatorFor(std::string_view isa) const
{
    if (!isPlainName(isa))
        return std::nullopt;
    for (const std::string& name : { "qemu-" + std::string(isa) + "-static", "qemu-" + std::string(isa) }) {
        for (const std::filesystem::path& dir : m_dirs) {
            const std::filesystem::path candidate = dir / name;
            if (isExecutableFile(candidate))
                return candidate;
        }
    }
    return std::nullopt;
}

Expected<std::vector<std::string>> Translator::wrapperForIsa(std::string_view isa) const
{
    if (isa == m_hostIsa)
        return std::vector<std::string> {};
    if (!isPlainName(isa))
        return makeError(ErrorCode::BadArgument, "\"" + std::string(isa) + "\" is not an ISA name");
    if (auto qemu = translatorFor(isa))
        return std::vector<std::string> { qemu->string() };
    return makeError(ErrorCode::NoTranslator,
        "no translator for " + std::string(isa) + " binaries on this " + m_hostIsa + " host: neither qemu-"
            + std::string(isa) + "-static nor qemu-" + std::string(isa)
            + " was found (Debian package qemu-user-static)");
}

Expected<std::vector<std::string>> Translator::wrapperFor(const std::filesystem::path& binary) const
{
    auto info = readElfInfo(binary);
    if (!info)
        return tl::unexpected(info.error());
    if (info->isa.empty())
        return makeError(ErrorCode::UnknownIsa,
            "\"" + binary.string() + "\" is built for ELF machine " + std::to_string(info->machine) + " ("
                + (info->elfClass == ElfClass::Elf64 ? "64" : "32") + "-bit, "
                + (info->byteOrder == ByteOrder::Little ? "little" : "big") + "-endian), which this agent cannot run");
    auto wrapper = wrapperForIsa(info->isa);
    if (!wrapper)
        return makeError(wrapper.error().code, "cannot run \"" + binary.string() + "\": " + wrapper.error().message);
    return wrapper;
}

} // namespace tidepool::agent::crossisa
