// tidepool-bench-remote-change: how soon a console attached to a running tidepoold (`tidepool --connect`) shows a
// change made by someone else, with the console's event watch (`RemoteConfig::eventWait`: a second connection waits for
// the daemon's next event and wakes the poller) and without it (the poll alone, once a second).
//   tidepool-bench-remote-change --url http://127.0.0.1:PORT --token-file FILE [--changes 20] [--poll-ms 1000]
// The real `RemoteBackend`, as the console runs it, with the default poll interval; each change is a pool created over
// the API (`POST /v1/pools`) by another client at a random moment of the poll's second, and its latency the time from
// the creation's answer to the first snapshot that holds the pool. The pools are deleted again. Prints one JSON object:
// per mode the median, p90 and largest latency in ms, and the snapshots the console built (what the watch costs).
// bench/remote_console_latency.py starts a daemon and runs this against it.

#include "core/api/api_client.h"
#include "ui/bridge/remote_backend.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace tidepool;
using Clock = std::chrono::steady_clock;

namespace {

int usage(const std::string& problem)
{
    std::cerr << "tidepool-bench-remote-change: " << problem << "\n"
              << "usage: tidepool-bench-remote-change --url http://HOST:PORT --token-file FILE [--changes 20] "
                 "[--poll-ms 1000]\n";
    return 2;
}

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    const auto at = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
    return values[std::min(at, values.size() - 1)];
}

// The snapshots a backend delivers, waited on by the bench's thread.
struct Snapshots {
    std::mutex mutex;
    std::condition_variable arrived;
    ui::SnapshotPtr latest;
    std::size_t count = 0;

    bool holdsPool(const std::string& name)
    {
        return latest && std::any_of(latest->pools.begin(), latest->pools.end(), [&](const ui::PoolRow& p) {
            return p.name == name;
        });
    }
};

} // namespace

int main(int argc, char** argv)
{
    std::string url, tokenFile;
    int changes = 20;
    long pollMs = 1000;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc)
            return usage(arg + " needs a value");
        const std::string value = argv[++i];
        if (arg == "--url")
            url = value;
        else if (arg == "--token-file")
            tokenFile = value;
        else if (arg == "--changes") {
            changes = std::atoi(value.c_str());
            if (changes < 1 || changes > 1000)
                return usage("--changes must be a number from 1 to 1000");
        } else if (arg == "--poll-ms") {
            pollMs = std::atol(value.c_str());
            if (pollMs < 100 || pollMs > 60'000)
                return usage("--poll-ms must be a number of milliseconds from 100 to 60000");
        } else
            return usage("unknown option " + arg);
    }
    if (url.empty() || tokenFile.empty())
        return usage("--url and --token-file are required");
    const auto endpoint = ui::parseConnectUrl(url);
    if (!endpoint)
        return usage(endpoint.error().message);
    std::string token;
    std::getline(std::ifstream(tokenFile), token);
    if (token.empty())
        return usage("no token in " + tokenFile);

    api::ApiClient client(endpoint->host, endpoint->port, token);
    std::mt19937 random(42);
    nlohmann::json out { { "changes", changes }, { "pollMs", pollMs } };
    for (const bool watch : { true, false }) {
        Snapshots seen;
        ui::ConsoleEvents events;
        events.snapshot = [&seen](ui::SnapshotPtr s) {
            const std::lock_guard lock(seen.mutex);
            seen.latest = std::move(s);
            ++seen.count;
            seen.arrived.notify_all();
        };
        ui::RemoteConfig config;
        config.endpoint = *endpoint;
        config.token = token;
        config.pollInterval = std::chrono::milliseconds(pollMs);
        config.eventWait = watch ? std::chrono::milliseconds(25'000) : std::chrono::milliseconds(0);
        ui::RemoteBackend backend(config, events);
        {
            std::unique_lock lock(seen.mutex);
            if (!seen.arrived.wait_for(lock, std::chrono::seconds(10), [&] { return seen.latest != nullptr; })) {
                std::cerr << "tidepool-bench-remote-change: no snapshot from " << url << " in 10 s\n";
                return 1;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500)); // the watch waits for the next event
        const std::size_t before = seen.count;
        std::vector<double> latencies;
        for (int i = 0; i < changes; ++i) {
            std::this_thread::sleep_for(
                std::chrono::milliseconds(std::uniform_int_distribution<long>(0, pollMs)(random)));
            const std::string name = std::string(watch ? "watched-" : "polled-") + std::to_string(i);
            const auto created
                = client.request(api::HttpMethod::Post, "/v1/pools", nlohmann::json { { "name", name } }.dump());
            const Clock::time_point at = Clock::now();
            if (!created || created->status != 201) {
                std::cerr << "tidepool-bench-remote-change: creating pool " << name << ": "
                          << (created ? created->body : created.error().message) << "\n";
                return 1;
            }
            std::unique_lock lock(seen.mutex);
            if (!seen.arrived.wait_for(lock, std::chrono::seconds(30), [&] { return seen.holdsPool(name); })) {
                std::cerr << "tidepool-bench-remote-change: pool " << name << " not shown in 30 s\n";
                return 1;
            }
            latencies.push_back(std::chrono::duration<double, std::milli>(Clock::now() - at).count());
            lock.unlock();
            (void)client.request(api::HttpMethod::Delete, "/v1/pools/" + name);
        }
        const std::size_t snapshots = seen.count - before;
        backend.stop();
        out[watch ? "watch" : "pollOnly"]
            = { { "latencyMs",
                    { { "median", percentile(latencies, 0.5) }, { "p90", percentile(latencies, 0.9) },
                        { "max", percentile(latencies, 1.0) } } },
                  { "snapshots", snapshots } };
    }
    std::cout << out.dump(2) << "\n";
    return 0;
}
