#pragma once
// NVIDIA GPUs through NVML, loaded at run time with dlopen("libnvidia-ml.so.1") so that the agent runs, and builds,
// on nodes without the NVIDIA driver. A missing library or an NVML that fails to initialise means no NVIDIA GPUs,
// not an error: `available()` is false and `reason()` says why, for the log. The devices are enumerated once, when
// the object is made; `sample()` asks NVML for their utilisation and memory use.
//
// Thread affinity: made and destroyed on one thread; `devices` and `sample` may then be called from any one thread
// at a time (NVML itself is thread-safe). Ownership: the composition root owns the one `Nvml` of the agent and
// lends it to `discover` and to the `Sampler`. Not copyable or movable: it owns the library handle.

#include "agents/inventory/accelerator.h"
#include "protocol/messages.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::agent {

inline constexpr std::string_view kDefaultNvmlLibrary = "libnvidia-ml.so.1";

struct NvmlSamples {
    // `index` is the device's `index` in `devices()`, which is the node's too: discovery lists NVML's GPUs first.
    std::vector<protocol::DeviceSample> devices;
    std::vector<std::string> problems; // devices whose query failed this time, with NVML's error text
};

class Nvml {
public:
    // Loads `libraryPath` (a file name searched the way dlopen searches, or a path), initialises NVML and
    // enumerates the devices. Never fails; see `available` and `reason`.
    explicit Nvml(std::string libraryPath = std::string(kDefaultNvmlLibrary));
    ~Nvml(); // nvmlShutdown, then dlclose
    Nvml(const Nvml&) = delete;
    Nvml& operator=(const Nvml&) = delete;

    // Whether NVML was loaded and initialised (it may still have found no device).
    bool available() const { return m_api != nullptr; }
    // Why NVML is unavailable ("libnvidia-ml.so.1: cannot open shared object file…", "nvmlInit_v2: Driver Not
    // Loaded"), or a summary ("NVML: 2 GPUs") when it is available. Also names devices skipped at enumeration.
    const std::string& reason() const { return m_reason; }
    const std::string& libraryPath() const { return m_libraryPath; }

    // The GPUs, `index` 0.., kind `Gpu`, vendor "NVIDIA", `shareCapacity` 1000, source `Nvml`.
    const std::vector<AcceleratorDevice>& devices() const { return m_devices; }

    // Utilisation (0..1, the share of the last sample period in which a kernel ran) and memory used of every
    // device; empty when NVML is unavailable.
    NvmlSamples sample() const;

private:
    struct Api; // the resolved entry points (nvml.cpp)

    std::string m_libraryPath;
    std::string m_reason;
    void* m_library = nullptr; // dlopen handle
    std::unique_ptr<Api> m_api; // set once nvmlInit_v2 succeeded
    std::vector<AcceleratorDevice> m_devices;
    std::vector<void*> m_handles; // nvmlDevice_t of each device, parallel to `m_devices`
};

} // namespace tidepool::agent
