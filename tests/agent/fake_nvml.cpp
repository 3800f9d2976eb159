// A fake NVML for tst_inventory: built as libnvidia-ml.so.1 in its own directory, so that the agent's `Nvml`
// really goes through dlopen and dlsym. It implements the entry points the agent resolves, with two GPUs, plus
// `fakeNvml*` controls the test reaches through its own dlopen of the same file (the same loaded copy).
//
// Thread affinity: the test's main thread; the state is plain globals.

#include <cstdio>

namespace {

// The values of NVML's documented return codes that this fake hands out.
constexpr int kSuccess = 0;
constexpr int kUninitialized = 1;
constexpr int kInvalidArgument = 2;
constexpr int kNotSupported = 3;

struct FakeGpu {
    const char* name;
    unsigned long long totalBytes;
    unsigned long long usedBytes;
    unsigned int utilisationPercent;
    bool utilisationSupported;
};

constexpr unsigned long long kMiB = 1024ull * 1024ull;

FakeGpu g_gpus[2] = {
    { "Tidepool Fake GPU Alpha", 16384 * kMiB, 1024 * kMiB, 25, true },
    { "Tidepool Fake GPU Beta", 81920 * kMiB, 40960 * kMiB, 75, true },
};
int g_initResult = kSuccess;
int g_liveInits = 0; // nvmlInit_v2 calls not yet matched by nvmlShutdown

struct NvmlMemory {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

struct NvmlUtilization {
    unsigned int gpu;
    unsigned int memory;
};

FakeGpu* gpuOf(void* device)
{
    for (auto& gpu : g_gpus) {
        if (device == &gpu)
            return &gpu;
    }
    return nullptr;
}

} // namespace

extern "C" {

// --- the NVML entry points ---

int nvmlInit_v2()
{
    if (g_initResult != kSuccess)
        return g_initResult;
    ++g_liveInits;
    return kSuccess;
}

int nvmlShutdown()
{
    if (g_liveInits == 0)
        return kUninitialized;
    --g_liveInits;
    return kSuccess;
}

int nvmlDeviceGetCount_v2(unsigned int* count)
{
    if (g_liveInits == 0)
        return kUninitialized;
    if (!count)
        return kInvalidArgument;
    *count = 2;
    return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device)
{
    if (g_liveInits == 0)
        return kUninitialized;
    if (index >= 2 || !device)
        return kInvalidArgument;
    *device = &g_gpus[index];
    return kSuccess;
}

int nvmlDeviceGetName(void* device, char* name, unsigned int length)
{
    FakeGpu* gpu = gpuOf(device);
    if (!gpu || !name)
        return kInvalidArgument;
    std::snprintf(name, length, "%s", gpu->name);
    return kSuccess;
}

int nvmlDeviceGetUUID(void* device, char* uuid, unsigned int length)
{
    FakeGpu* gpu = gpuOf(device);
    if (!gpu || !uuid)
        return kInvalidArgument;
    std::snprintf(uuid, length, "GPU-fake0000-0000-0000-0000-00000000000%d", static_cast<int>(gpu - g_gpus));
    return kSuccess;
}

int nvmlDeviceGetMemoryInfo(void* device, NvmlMemory* memory)
{
    FakeGpu* gpu = gpuOf(device);
    if (!gpu || !memory)
        return kInvalidArgument;
    memory->total = gpu->totalBytes;
    memory->used = gpu->usedBytes;
    memory->free = gpu->totalBytes - gpu->usedBytes;
    return kSuccess;
}

int nvmlDeviceGetUtilizationRates(void* device, NvmlUtilization* utilisation)
{
    FakeGpu* gpu = gpuOf(device);
    if (!gpu || !utilisation)
        return kInvalidArgument;
    if (!gpu->utilisationSupported)
        return kNotSupported;
    utilisation->gpu = gpu->utilisationPercent;
    utilisation->memory = gpu->utilisationPercent / 2;
    return kSuccess;
}

const char* nvmlErrorString(int result)
{
    switch (result) {
    case kSuccess: return "Success";
    case kUninitialized: return "Uninitialized";
    case kInvalidArgument: return "Invalid Argument";
    case kNotSupported: return "Not Supported";
    case 9: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

// --- the test's controls ---

void fakeNvmlSetInitResult(int result)
{
    g_initResult = result;
}

int fakeNvmlLiveInits()
{
    return g_liveInits;
}

void fakeNvmlSetGpu(unsigned int index, unsigned int utilisationPercent, unsigned long long usedMiB, int supported)
{
    if (index >= 2)
        return;
    g_gpus[index].utilisationPercent = utilisationPercent;
    g_gpus[index].usedBytes = usedMiB * kMiB;
    g_gpus[index].utilisationSupported = supported != 0;
}

} // extern "C"
