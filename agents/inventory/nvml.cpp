#include "agents/inventory/nvml.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>

// NVML's C API, declared here from NVIDIA's documentation (the NVML API Reference Guide), as the header is not
// installed where the agent is built. Only the few entry points and types the agent uses; their ABI has been stable
// since the `_v2` names appeared (CUDA 5.5).
namespace {

using nvmlReturn_t = int; // an enum in C: NVML_SUCCESS = 0, errors > 0
using nvmlDevice_t = struct nvmlDevice_st*;

constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr unsigned kNvmlNameBufferSize = 96; // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kNvmlUuidBufferSize = 96; // NVML_DEVICE_UUID_V2_BUFFER_SIZE

struct nvmlMemory_t {
    unsigned long long total; // bytes
    unsigned long long free;
    unsigned long long used;
};

struct nvmlUtilization_t {
    unsigned int gpu; // percent of the last sample period in which a kernel ran
    unsigned int memory;
};

constexpr std::int64_t kBytesPerMiB = 1024 * 1024;

} // namespace

namespace tidepool::agent {

struct Nvml::Api {
    nvmlReturn_t (*init)() = nullptr;
    nvmlReturn_t (*shutdown)() = nullptr;
    nvmlReturn_t (*deviceGetCount)(unsigned int*) = nullptr;
    nvmlReturn_t (*deviceGetHandleByIndex)(unsigned int, nvmlDevice_t*) = nullptr;
    nvmlReturn_t (*deviceGetName)(nvmlDevice_t, char*, unsigned int) = nullptr;
    nvmlReturn_t (*deviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
    nvmlReturn_t (*deviceGetUuid)(nvmlDevice_t, char*, unsigned int) = nullptr;
    nvmlReturn_t (*deviceGetUtilizationRates)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
    const char* (*errorString)(nvmlReturn_t) = nullptr;

    std::string describe(std::string_view call, nvmlReturn_t result) const
    {
        const char* text = errorString ? errorString(result) : nullptr;
        return std::string(call) + ": " + (text ? std::string(text) : "NVML error " + std::to_string(result));
    }
};

namespace {

// Resolves `name` into `entry`; returns false (and leaves `entry` null) when the library lacks it.
template <typename Function> bool resolve(void* library, const char* name, Function*& entry)
{
    // POSIX guarantees that a function's address survives the round trip through dlsym's void*.
    entry = reinterpret_cast<Function*>(dlsym(library, name));
    return entry != nullptr;
}

std::string lastDlError(std::string_view fallback)
{
    const char* text = dlerror();
    return text ? std::string(text) : std::string(fallback);
}

std::int64_t toMiB(unsigned long long bytes)
{
    return static_cast<std::int64_t>(bytes / static_cast<unsigned long long>(kBytesPerMiB));
}

// NVML writes NUL-terminated text; a buffer it filled to the brim is cut at its end.
std::string fromBuffer(const char* buffer, std::size_t size)
{
    return std::string(buffer, strnlen(buffer, size));
}

} // namespace

Nvml::Nvml(std::string libraryPath)
    : m_libraryPath(std::move(libraryPath))
{
    dlerror(); // clears an older error
    m_library = dlopen(m_libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!m_library) {
        m_reason = "no NVIDIA GPUs: " + lastDlError(m_libraryPath + " could not be loaded");
        return;
    }

    auto api = std::make_unique<Api>();
    const char* missing = nullptr;
    const auto need = [&](const char* name, auto*& entry) {
        if (!missing && !resolve(m_library, name, entry))
            missing = name;
    };
    need("nvmlInit_v2", api->init);
    need("nvmlShutdown", api->shutdown);
    need("nvmlDeviceGetCount_v2", api->deviceGetCount);
    need("nvmlDeviceGetHandleByIndex_v2", api->deviceGetHandleByIndex);
    need("nvmlDeviceGetName", api->deviceGetName);
    need("nvmlDeviceGetMemoryInfo", api->deviceGetMemoryInfo);
    need("nvmlDeviceGetUUID", api->deviceGetUuid);
    need("nvmlDeviceGetUtilizationRates", api->deviceGetUtilizationRates);
    need("nvmlErrorString", api->errorString);
    if (missing) {
        m_reason = "no NVIDIA GPUs: " + m_libraryPath + " lacks " + missing;
        dlclose(m_library);
        m_library = nullptr;
        return;
    }

    if (const nvmlReturn_t result = api->init(); result != kNvmlSuccess) {
        m_reason = "no NVIDIA GPUs: " + api->describe("nvmlInit_v2", result);
        dlclose(m_library);
        m_library = nullptr;
        return;
    }
    m_api = std::move(api);

    unsigned int count = 0;
    if (const nvmlReturn_t result = m_api->deviceGetCount(&count); result != kNvmlSuccess) {
        m_reason = "no NVIDIA GPUs: " + m_api->describe("nvmlDeviceGetCount_v2", result);
        return;
    }
    std::string skipped;
    for (unsigned int nvmlIndex = 0; nvmlIndex < count; ++nvmlIndex) {
        // A device that does not answer (fallen off the bus, no permission) is left out, so that the others serve.
        const auto skip = [&](std::string_view call, nvmlReturn_t result) {
            skipped += "; NVML device " + std::to_string(nvmlIndex) + " skipped: " + m_api->describe(call, result);
        };
        nvmlDevice_t handle = nullptr;
        if (const nvmlReturn_t result = m_api->deviceGetHandleByIndex(nvmlIndex, &handle); result != kNvmlSuccess) {
            skip("nvmlDeviceGetHandleByIndex_v2", result);
            continue;
        }
        char name[kNvmlNameBufferSize] = {};
        if (const nvmlReturn_t result = m_api->deviceGetName(handle, name, sizeof name); result != kNvmlSuccess) {
            skip("nvmlDeviceGetName", result);
            continue;
        }
        nvmlMemory_t memory {};
        if (const nvmlReturn_t result = m_api->deviceGetMemoryInfo(handle, &memory); result != kNvmlSuccess) {
            skip("nvmlDeviceGetMemoryInfo", result);
            continue;
        }
        AcceleratorDevice device;
        device.index = static_cast<std::int32_t>(m_devices.size());
        device.kind = AcceleratorKind::Gpu;
        device.vendor = "NVIDIA";
        device.model = fromBuffer(name, sizeof name);
        device.memoryMiB = toMiB(memory.total);
        device.shareCapacity = kGpuShareCapacity;
        device.source = DeviceSource::Nvml;
        // The UUID is an identity for the log and the UI, not needed to schedule: a device without one still serves.
        char uuid[kNvmlUuidBufferSize] = {};
        if (m_api->deviceGetUuid(handle, uuid, sizeof uuid) == kNvmlSuccess)
            device.uuid = fromBuffer(uuid, sizeof uuid);
        m_devices.push_back(std::move(device));
        m_handles.push_back(handle);
    }
    m_reason = "NVML: " + std::to_string(m_devices.size()) + (m_devices.size() == 1 ? " GPU" : " GPUs") + skipped;
}

Nvml::~Nvml()
{
    if (m_api)
        m_api->shutdown();
    if (m_library)
        dlclose(m_library);
}

NvmlSamples Nvml::sample() const
{
    NvmlSamples samples;
    if (!m_api)
        return samples;
    for (std::size_t i = 0; i < m_handles.size(); ++i) {
        auto* handle = static_cast<nvmlDevice_t>(m_handles[i]);
        const std::int32_t index = m_devices[i].index;
        nvmlUtilization_t utilisation {};
        if (const nvmlReturn_t result = m_api->deviceGetUtilizationRates(handle, &utilisation);
            result != kNvmlSuccess) {
            samples.problems.push_back(
                "GPU " + std::to_string(index) + ": " + m_api->describe("nvmlDeviceGetUtilizationRates", result));
            continue;
        }
        nvmlMemory_t memory {};
        if (const nvmlReturn_t result = m_api->deviceGetMemoryInfo(handle, &memory); result != kNvmlSuccess) {
            samples.problems.push_back(
                "GPU " + std::to_string(index) + ": " + m_api->describe("nvmlDeviceGetMemoryInfo", result));
            continue;
        }
        protocol::DeviceSample sample;
        sample.index = index;
        sample.utilisation = std::clamp(static_cast<double>(utilisation.gpu) / 100.0, 0.0, 1.0);
        sample.memoryUsedMiB = toMiB(memory.used);
        samples.devices.push_back(sample);
    }
    return samples;
}

} // namespace tidepool::agent
