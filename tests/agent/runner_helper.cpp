// tst_runner's helper executable (no Qt), in two roles:
//   runner_helper agent <state-dir> <cgroup-base> <pool> <id>
//       a stand-in agent: launches `sleep 30` as workload <id> in <pool>, prints "started <pid> <shim-pid>" and
//       waits to be SIGKILLed, so that the suite can adopt the workload from a really dead agent;
//   runner_helper hog <MiB>
//       allocates and touches <MiB> of memory, then sleeps: resident memory for the OOM test.

#include "agents/isolation/cgroups.h"
#include "agents/runner/runner.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace tidepool::agent;

namespace {

int fail(const std::string& message)
{
    std::printf("error %s\n", message.c_str());
    std::fflush(stdout);
    return 1;
}

int runAgent(char** argv)
{
    auto layout = detectCgroupLayout();
    if (!layout)
        return fail(layout.error().message);
    auto cgroups = PoolCgroups::create(*layout, argv[1]);
    if (!cgroups)
        return fail(cgroups.error().message);
    RunnerConfig config;
    config.stateDir = argv[0];
    auto runner = Runner::create(config, *cgroups);
    if (!runner)
        return fail(runner.error().message);
    LaunchSpec spec;
    spec.id = argv[3];
    spec.pool = argv[2];
    spec.argv = { "sleep", "30" };
    auto status = runner->launch(spec);
    if (!status)
        return fail(status.error().message);
    if (status->state != WorkloadState::Running)
        return fail(std::string("workload is ") + workloadStateName(status->state) + ": " + status->reason);
    std::printf("started %d %d\n", status->pid, status->shimPid);
    std::fflush(stdout);
    for (;;)
        ::pause();
}

int runHog(const char* mebibytes)
{
    const long count = std::atol(mebibytes);
    std::vector<char*> blocks;
    for (long i = 0; i < count; ++i) {
        auto* block = static_cast<char*>(std::malloc(1 << 20));
        if (block == nullptr)
            return 2;
        std::memset(block, static_cast<int>(i + 1), 1 << 20); // touched, so resident
        blocks.push_back(block);
    }
    std::printf("allocated %ld MiB\n", count);
    std::fflush(stdout);
    for (;;)
        ::pause();
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 6 && std::strcmp(argv[1], "agent") == 0)
        return runAgent(argv + 2);
    if (argc == 3 && std::strcmp(argv[1], "hog") == 0)
        return runHog(argv[2]);
    std::fprintf(stderr, "usage: %s agent <state-dir> <cgroup-base> <pool> <id> | hog <MiB>\n", argv[0]);
    return 64;
}
