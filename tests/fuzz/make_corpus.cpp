// Writes the seed corpus of fuzz_decoder into a directory: every message type as a valid frame and as a bare
// payload (hello with and without its inventory, challenge, auth, welcome, reject, heartbeats with and without samples
// and devices), one stream holding all of them, and each type of `Message` default-constructed (not valid, but with
// its field names, so that a message type added later is seeded too). Seeds are made with the library's own
// `encodeMessage` and `encodeFrame`, so they follow the protocol as it changes.
//
//   make_corpus <directory>

#include "protocol/frame.h"
#include "protocol/messages.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

using namespace tidepool::protocol;

namespace {

struct Seed {
    std::string name;
    Message message;
};

template <std::size_t... I> void addDefaults(std::vector<Seed>& seeds, std::index_sequence<I...>)
{
    (seeds.push_back(Seed { "default-" + std::to_string(I), Message(std::in_place_index<I>) }), ...);
}

std::vector<Seed> seeds()
{
    Challenge challenge;
    Auth auth;
    for (std::size_t i = 0; i < challenge.nonce.size(); ++i) {
        challenge.nonce[i] = static_cast<std::uint8_t>(i * 7 + 1);
        auth.mac[i] = static_cast<std::uint8_t>(255 - i * 5);
    }
    Heartbeat busy;
    busy.sequence = 42;
    busy.samples.push_back({ 1'700'000'000'000, 0.25, 4096, { { 0, 0.5, 8000 }, { 1, 1.0, 16000 } } });
    busy.samples.push_back({ 1'700'000'001'000, 0.0, 0, {} });
    Heartbeat idle;
    idle.sequence = 18'446'744'073'709'551'615ull;

    std::vector<Seed> list {
        { "hello", Hello { "gpu-node-01", "tidepool-agent 0.1.0", std::nullopt } },
        { "hello-inventory",
            Hello { "arm.node_7", "tidepool-agent 0.1.0 (debug)", InventorySummary { "aarch64", 64000, 262144, 4 } } },
        { "challenge", challenge },
        { "auth", auth },
        { "hello-features", Hello { "gpu-node-02", "tidepool-agent 0.2.0", std::nullopt, {}, knownFeatures() } },
        { "welcome", Welcome { "session-0123456789abcdef", 1000 } },
        { "welcome-features", Welcome { "session-0123456789abcdef", 1000, knownFeatures() } },
        { "reject", Reject { "wrong join token" } },
        { "heartbeat-samples", busy },
        { "heartbeat-empty", idle },
        { "inventory",
            Inventory { "aarch64", "ARM Neoverse-N1", { "asimd", "fp" }, 64'000, 262'144, 2,
                { DeviceInfo { 0, "gpu", "A100-SXM4-80GB", 81'920, 1000 },
                    DeviceInfo { 1, "fpga", "Alveo-U250", 65'536, 8 } },
                { TranslationFactor { "x86_64", 2.5 } },
                { WorkloadStatus { 7, "running", 4242, 0, {} },
                    WorkloadStatus { 8, "oom_killed", 0, 9, "limit 64 MiB" } } } },
        { "workload-state", WorkloadUpdate { WorkloadStatus { 9, "exited", 17, 3, {} } } },
        { "pools", PoolConfig { { PoolLimits { "default", 4000, 8192, 100 }, PoolLimits { "batch", 500, 64, 10 } } } },
        { "launch",
            Launch {
                9, "infer-7", "batch", { "/usr/bin/python3", "-c", "print(1)" }, { "A=b" }, 500, 64, { 0, 3 }, 0 } },
        { "relaunch",
            Launch { 9, "infer-7", "batch", { "/usr/bin/python3", "-c", "print(1)" }, {}, 500, 64, { 1 }, 2 } },
        { "stop", Stop { 9, 0, std::nullopt } },
        { "launch-pool-limits",
            Launch { 12, "first-of-gold", "gold", { "/bin/true" }, {}, 100, 16, {}, 0,
                PoolLimits { "gold", 4000, 8192, 100, 250 } } },
        { "stop-incarnation", Stop { 9, 0, 1 } },
        { "launch-memory-limit",
            Launch { 13, "capped", "default", { "/bin/true" }, {}, 100, 64, {}, 0, std::nullopt, 256 } },
        { "resize", Resize { 13, 1, 250, 64, 128, 500 } },
        { "resized-refused", Resized { 13, 1, "the workload holds 300 MiB now" } },
    };
    addDefaults(list, std::make_index_sequence<std::variant_size_v<Message>>());
    return list;
}

bool writeFile(const std::filesystem::path& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
    return static_cast<bool>(out.flush());
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_corpus <directory>\n");
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        std::fprintf(stderr, "make_corpus: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
        return 1;
    }
    std::string stream;
    int written = 0;
    for (const Seed& seed : seeds()) {
        const std::string payload = encodeMessage(seed.message);
        const auto frame = encodeFrame(payload);
        if (!frame) {
            std::fprintf(
                stderr, "make_corpus: cannot frame %s: %s\n", seed.name.c_str(), frame.error().message.c_str());
            return 1;
        }
        const bool valid = decodeMessage(payload).has_value();
        if (!valid && seed.name.rfind("default-", 0) != 0) {
            // A hand-written seed the decoder rejects is a stale seed (or a decoder bug): say so, loudly.
            std::fprintf(stderr, "make_corpus: seed %s does not decode: %s\n", seed.name.c_str(),
                decodeMessage(payload).error().message.c_str());
            return 1;
        }
        if (!writeFile(dir / (seed.name + ".frame"), *frame) || !writeFile(dir / (seed.name + ".json"), payload)) {
            std::fprintf(stderr, "make_corpus: cannot write into %s\n", dir.c_str());
            return 1;
        }
        stream += *frame;
        written += 2;
    }
    if (!writeFile(dir / "all.stream", stream)) {
        std::fprintf(stderr, "make_corpus: cannot write into %s\n", dir.c_str());
        return 1;
    }
    std::printf("make_corpus: %d seeds in %s\n", written + 1, dir.c_str());
    return 0;
}
