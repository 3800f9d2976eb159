#pragma once
// The translation slowdown of an ISA pair, measured on this node: isabench (agents/crossisa/isabench.c, built for
// each ISA into the agent's bin directory as `isabench-<isa>`) is run natively and through qemu-user, a few times
// each, and the factor is the ratio of the medians of the kernel's CPU times it reports (qemu's start-up is not
// counted; CPU time rather than wall-clock time, so that other load on the node weighs less on the factor).
// "Target" is qemu's word: the ISA the binaries are built for, which qemu translates to the host's. The factor is
// the core's `SlowdownTable` entry from the target ISA (the workload's) to the host ISA (this node's), in place of
// its default of 1.15.
//
// A measurement takes seconds, so results are cached in a small JSON file keyed by ISA pair; an entry is reused
// only while the qemu version (and the benchmark's arguments) are the ones it was measured with.
//
// Thread affinity: none; each call runs its own child processes. Two agents sharing one cache file is safe
// (the file is replaced by rename), though they may both measure.

#include "agents/crossisa/error.h"
#include "agents/crossisa/translator.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::agent::crossisa {

struct SlowdownOptions {
    int runs = 3; // of each build; 1 to 99; the median is used
    std::filesystem::path cachePath; // e.g. `<state-dir>/slowdown.json`; empty: measure every time
    std::vector<std::string> benchArgs; // passed to isabench (its round count); empty: its default, ~0.4 s natively
    std::chrono::milliseconds runTimeout { 120'000 }; // per isabench run
};

struct SlowdownMeasurement {
    std::string hostIsa;
    std::string targetIsa;
    std::string qemuVersion; // first line of `qemu-<isa> --version`; empty when the target is the host ISA
    std::vector<std::int64_t> nativeNs; // isabench's kernel CPU time of each run, in run order
    std::vector<std::int64_t> translatedNs;
    std::int64_t nativeMedianNs = 0;
    std::int64_t translatedMedianNs = 0;
    double factor = 0.0; // translatedMedianNs / nativeMedianNs; 1 for the host ISA itself
    bool fromCache = false;
    std::string cacheProblem; // why the cache could not be read or written, when it could not; the factor is valid
};

// `benchDir / "isabench-<isa>"`.
std::filesystem::path isabenchPath(const std::filesystem::path& benchDir, std::string_view isa);

// Measures (or finds in the cache) the slowdown of `targetIsa` binaries translated on this host. Errors:
// `NoTranslator` naming the ISA, `BenchmarkFailed` naming the build that is missing, failed, timed out or computed
// a different checksum than the native build (a translation bug), `BadArgument` for a run count out of range.
Expected<SlowdownMeasurement> measureSlowdown(const Translator& translator, const std::filesystem::path& benchDir,
    std::string_view targetIsa, const SlowdownOptions& options = {});

} // namespace tidepool::agent::crossisa
