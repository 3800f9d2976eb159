#pragma once
// Running a workload binary built for another ISA: through qemu-user (`qemu-<isa>-static`, else `qemu-<isa>`),
// when one is installed. `wrapperFor` gives the argv prefix the runner puts before the binary's own argv.
//
// A foreign binary that is dynamically linked also needs its ISA's loader and libraries where qemu looks for them
// (`QEMU_LD_PREFIX`, or a multi-arch root); static binaries, the usual case for shipped workloads, need nothing.
//
// Thread affinity: none after construction; the search directories are fixed then, and lookups only stat files.

#include "agents/crossisa/error.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::agent::crossisa {

// "x86_64", "aarch64" or "riscv64" for the common spellings of those machines ("amd64", "arm64"); `machine`
// unchanged otherwise.
std::string normaliseIsa(std::string_view machine);
// The ISA this agent runs on, from uname(2), normalised.
std::string hostIsa();

struct TranslatorConfig {
    std::string hostIsa; // empty: `hostIsa()`
    std::vector<std::filesystem::path> searchDirs; // searched first, in order (the agent's `--qemu-dir`)
    std::optional<std::string> searchPath; // colon-separated, searched after `searchDirs`; nullopt: $PATH
};

class Translator {
public:
    explicit Translator(TranslatorConfig config = {});

    const std::string& hostIsa() const { return m_hostIsa; }
    // The qemu-user executable that runs `isa` binaries on this host: `qemu-<isa>-static` in each search directory,
    // then `qemu-<isa>` in each. Nullopt when there is none, or when `isa` is not a plain name.
    std::optional<std::filesystem::path> translatorFor(std::string_view isa) const;
    // The argv prefix for running `isa` binaries: empty for the host's ISA, `{qemu}` for a foreign one; a
    // `NoTranslator` error naming the ISA when no qemu-user for it is installed.
    Expected<std::vector<std::string>> wrapperForIsa(std::string_view isa) const;
    // The same, for the ISA of the ELF binary at `binary`; errors of `readElfInfo`, and `UnknownIsa` naming the
    // path and its ELF machine when that is none of the ISAs this agent knows.
    Expected<std::vector<std::string>> wrapperFor(const std::filesystem::path& binary) const;

private:
    std::string m_hostIsa;
    std::vector<std::filesystem::path> m_dirs; // `searchDirs`, then the search path's entries
};

} // namespace tidepool::agent::crossisa
