#pragma once
// The messages agents and the core exchange, one JSON object per frame:
//   {"type": "<name>", "version": 1, ...fields}
// Decoding is strict: an unknown `type`, a `version` other than `kProtocolVersion`, a missing, unknown or wrongly
// typed field, an out-of-range number, an over-long string or a name with characters outside its alphabet is an
// error naming the field (a JSON path such as `samples[0].devices[1].utilisation`). Unknown fields are errors too:
// `version` is the compatibility handle, so a peer that speaks more must say so there. Nothing here throws.
//
// Thread affinity: none; plain value types and pure functions.

#include "protocol/error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace tidepool::protocol {

inline constexpr std::int32_t kProtocolVersion = 1;

// Bounds of the fields; a decoded message never exceeds them.
inline constexpr std::size_t kMaxNameBytes = 253; // node names, as long as a DNS name
inline constexpr std::size_t kMaxTokenBytes = 64; // ISA names, session ids
inline constexpr std::size_t kMaxTextBytes = 1024; // agent versions, reject reasons
inline constexpr std::size_t kMaxSamplesPerHeartbeat = 1024;
inline constexpr std::size_t kMaxDevicesPerSample = 64;
inline constexpr std::int64_t kMaxMemoryMiB = std::int64_t { 1 } << 40;
inline constexpr std::int64_t kMaxCpuMillis = std::int64_t { 1 } << 30;
inline constexpr std::int32_t kMaxAccelerators = 1024;
inline constexpr std::int32_t kMinHeartbeatIntervalMs = 10;
inline constexpr std::int32_t kMaxHeartbeatIntervalMs = 3'600'000;
inline constexpr std::size_t kMaxWorkloadsPerNode = 4096; // launched and finished records an inventory carries
inline constexpr std::size_t kMaxPoolsPerNode = 256;
inline constexpr std::size_t kMaxArgs = 256; // argv items of a launch, each at most kMaxTextBytes
inline constexpr std::size_t kMaxEnv = 256; // environment entries "NAME=value" of a launch
inline constexpr std::size_t kMaxCpuFeatures = 512;
inline constexpr std::int64_t kMaxWorkloadId = std::int64_t { 1 } << 53; // exact in every JSON implementation
inline constexpr std::int32_t kMaxIncarnation = 0x7fff'ffff; // launches of one workload id
inline constexpr std::int64_t kMaxNetMbps = 10'000'000; // 10 Tbit/s: a link's rate, a pool's share of it
inline constexpr std::size_t kNonceBytes = 32;
inline constexpr std::size_t kMacBytes = 32; // HMAC-SHA256
inline constexpr std::int64_t kMaxLogBytes = 256 * 1024; // of a workload's output in one `logs` answer
inline constexpr std::int64_t kMaxLogPosition = std::int64_t { 1 } << 53; // a byte's position in one output stream
inline constexpr std::int32_t kMaxLogWaitMs = 30'000; // a following read held for output to come (`LogRequest::waitMs`)
inline constexpr std::size_t kMaxFeatures = 64; // entries of a hello's or a welcome's `features`

// What a peer speaks beyond the fields every peer of this version reads: an agent lists its features in its hello,
// and the core answers with its own in the welcome, so that neither sends the other a field it would refuse and
// either can be upgraded first. A peer from before features names none, and is taken to speak what every peer spoke
// then. A feature is a token; unknown ones are ignored, so that a newer peer can name more.
// incarnation: `launch`, `stop` and workload statuses carry which launch of a workload they mean.
inline constexpr std::string_view kFeatureIncarnation = "incarnation";
// pool-usage: heartbeat samples carry each pool's own use (`UtilisationSample::pools`).
inline constexpr std::string_view kFeaturePoolUsage = "pool-usage";
// net-shape: an inventory may give a shaped link's rate, and `pools` entries a pool's guarantee on it.
inline constexpr std::string_view kFeatureNetShape = "net-shape";
// launch-pool: a launch may carry its pool's limits (`Launch::poolLimits`), for a pool the node's agent was not sent:
// the agent makes the pool from it, and the next `pools` message lists it as usual. Such an agent is sent only the
// pools its workloads use, and removes the others' cgroups; one that does not name it is sent every pool.
inline constexpr std::string_view kFeatureLaunchPool = "launch-pool";
// logs: the agent answers a `log_request` with the end of a workload's output (`LogRequest`, `LogReply`). The core asks
// only an agent that names it.
inline constexpr std::string_view kFeatureLogs = "logs";
// log-follow: a `log_request` may ask for a stream from a position on (`LogRequest::from`), and every `logs` answer
// says where in the stream its data lies (`LogReply::start`, `end`), so that a reader can follow the output as it is
// written. The core asks it only of an agent that names it; an agent sends the positions only to a core that does.
inline constexpr std::string_view kFeatureLogFollow = "log-follow";
// workload-usage: heartbeat samples carry each running workload's own use (`UtilisationSample::workloads`).
inline constexpr std::string_view kFeatureWorkloadUsage = "workload-usage";
// resize: the agent takes a `resize` of a running launch (`Resize`: its CPU weight and its own limits, changed in
// place) and answers each with a `resized` (`Resized`). The core sends it only to an agent that names it.
inline constexpr std::string_view kFeatureResize = "resize";
// log-wait: a following `log_request` may ask the agent to hold it until there is output from its position on, the
// launch ends, or `waitMs` has passed (`LogRequest::waitMs`), so that a follower sees a line as it is written without
// asking every second. The core asks it only of an agent that names it.
inline constexpr std::string_view kFeatureLogWait = "log-wait";
bool hasFeature(const std::vector<std::string>& features, std::string_view feature);
// Every feature this build speaks: what its agents name in their hello and its core in the welcome.
std::vector<std::string> knownFeatures();

using Nonce = std::array<std::uint8_t, kNonceBytes>; // hex on the wire
using Mac = std::array<std::uint8_t, kMacBytes>; // hex on the wire

// What an agent tells about its node when it joins; the full inventory follows in later messages.
struct InventorySummary {
    std::string isa; // "x86_64", "aarch64", "riscv64": a token; the core maps it
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    std::int32_t accelerators = 0;
    bool operator==(const InventorySummary&) const = default;
};

// Agent → core, first message. `nodeName` is the agent's identity: letters, digits, '.', '_' and '-'.
struct Hello {
    std::string nodeName;
    std::string agentVersion; // printable text, no control characters
    std::optional<InventorySummary> inventory;
    // The id of the single-use bootstrap token the agent joins with (join.h); empty with the shared join token. The
    // secret never travels: it keys the HMAC.
    std::string tokenId {};
    // What the agent speaks (the kFeature* tokens). On the wire only when not empty: a core from before features
    // refuses the field, and the agents from before it send none (upgrade the core first, once).
    std::vector<std::string> features {};
    bool operator==(const Hello&) const = default;
};

// Core → agent: 32 random bytes to be authenticated with the join token (see join.h).
struct Challenge {
    Nonce nonce {};
    bool operator==(const Challenge&) const = default;
};

// Agent → core: the HMAC-SHA256 answer to the challenge (see join.h for what it covers).
struct Auth {
    Mac mac {};
    bool operator==(const Auth&) const = default;
};

// Core → agent: joined.
struct Welcome {
    std::string sessionId; // a token
    std::int32_t heartbeatIntervalMs = 0;
    // What the core reads (the kFeature* tokens). The core writes it only to an agent whose hello named features (an
    // agent from before them would refuse the field); a welcome without it is a core from before features, which reads
    // what cores read then.
    std::vector<std::string> features {};
    bool operator==(const Welcome&) const = default;
};

// Why the core closes a connection, for the agent to act on (`Reject::reason` says it in words).
// joinRefused: the join was refused (a wrong or reused token); replaced: another agent joined under this node's name
// and the core took the newer session; closed: the core ended the joined session for another reason (the node was
// declared lost, its ISA is unknown, the core is stopping).
enum class RejectCause : std::uint8_t { Invalid = 0, JoinRefused, Replaced, Closed };

// Core → agent, before the core closes the connection: during the join, or to a joined agent whose session it ends.
struct Reject {
    std::string reason; // printable text
    // On the wire as `cause` ("replaced", "closed") only when not `JoinRefused`: absent reads as a refused join, the
    // only reject there was before causes.
    RejectCause cause = RejectCause::JoinRefused;
    bool operator==(const Reject&) const = default;
};
std::string_view toString(RejectCause cause);

struct DeviceSample {
    std::int32_t index = 0; // the device's index on its node
    double utilisation = 0.0; // 0..1
    std::int64_t memoryUsedMiB = 0;
    bool operator==(const DeviceSample&) const = default;
};

// What one pool's cgroup on the node used, as the kernel accounts it: all its workloads together, whatever they asked
// for, and nothing of the host's own processes.
struct PoolUsage {
    std::string name; // a pool of the last `pools` message (or one the agent still holds workloads in)
    std::int64_t cpuMillis = 0; // CPU time used since the previous sample, per second of it: 1000 = one core busy
    std::int64_t memoryMiB = 0; // memory charged to the pool at the sample
    // Bytes the pool sent through the shaped device since the previous sample, as Mbit/s; -1 (absent on the wire)
    // where the agent does not shape, or its class was made since.
    double netMbps = -1.0;
    bool operator==(const PoolUsage&) const = default;
};

// What one running workload's cgroup on the node used, as `PoolUsage` for its pool: its processes only.
struct WorkloadUsage {
    std::int64_t workloadId = 0; // as its statuses name it
    std::int32_t incarnation = 0; // which launch of it
    std::int64_t cpuMillis = 0; // CPU time used since the previous sample, per second of it: 1000 = one core busy
    std::int64_t memoryMiB = 0; // memory charged to it at the sample
    bool operator==(const WorkloadUsage&) const = default;
};

struct UtilisationSample {
    std::int64_t timestampMs = 0; // Unix epoch, milliseconds
    double cpuUtilisation = 0.0; // 0..1 of the node's CPU capacity
    std::int64_t memoryUsedMiB = 0;
    std::vector<DeviceSample> devices;
    // Each pool's use of the node over the interval the sample ends; a pool appears from its second sample on (the
    // first only primes its counters), and only when it used something (absent reads as none). On the wire only when
    // not empty, so agents that do not measure pools read as before. An agent writes it only to a core whose welcome
    // names kFeaturePoolUsage (a core from before pool usage refuses the field).
    std::vector<PoolUsage> pools {};
    // Each running workload's use over the interval, from its second sample on, as `pools`; only to a core whose
    // welcome names kFeatureWorkloadUsage.
    std::vector<WorkloadUsage> workloads {};
    bool operator==(const UtilisationSample&) const = default;
};

// Agent → core, every heartbeat interval. Several samples when the agent buffered them while disconnected.
struct Heartbeat {
    std::uint64_t sequence = 0;
    std::vector<UtilisationSample> samples;
    bool operator==(const Heartbeat&) const = default;
};

// One accelerator of the node, as the agent discovered it (NVML, the inventory file or a probe command).
struct DeviceInfo {
    std::int32_t index = 0; // the device's index on its node, 0..n-1 in order
    std::string kind; // "gpu", "npu" or "fpga"
    std::string model; // a name: "A100-SXM4-80GB", "V100M32"
    std::int64_t memoryMiB = 0;
    std::int32_t shareCapacity = 0; // milli-GPUs (1000 per GPU), NPU cores or FPGA time-slice slots
    bool operator==(const DeviceInfo&) const = default;
};

// A translation slowdown the agent measured: binaries of `fromIsa` run here through qemu-user `factor` times slower.
struct TranslationFactor {
    std::string fromIsa;
    double factor = 1.0; // 1..1000
    bool operator==(const TranslationFactor&) const = default;
};

// What a workload the agent holds is doing. `state` is one of `kWorkloadStates`.
struct WorkloadStatus {
    // A constructor rather than an aggregate, so that the many five-field initialisations from before incarnations
    // (tests, simulations) still mean incarnation 0 without a missing-initializer warning.
    WorkloadStatus() = default;
    WorkloadStatus(std::int64_t workloadId_, std::string state_, std::int32_t pid_, std::int32_t exitCode_,
        std::string detail_, std::int32_t incarnation_ = 0)
        : workloadId(workloadId_)
        , state(std::move(state_))
        , pid(pid_)
        , exitCode(exitCode_)
        , detail(std::move(detail_))
        , incarnation(incarnation_)
    {
    }

    std::int64_t workloadId = 0;
    std::string state;
    std::int32_t pid = 0; // 0 when there is no process (failed to start, or not known)
    std::int32_t exitCode = 0; // the exit status for "exited", the signal for "killed"
    std::string detail; // why, in words; may be empty
    // Which launch of the workload this is about (see `Launch::incarnation`). On the wire only when not 0, and absent
    // reads as 0, so agents and cores from before incarnations read each other's statuses.
    std::int32_t incarnation = 0;
    bool operator==(const WorkloadStatus&) const = default;
};
// running: started (and still running); exited: ended on its own with `exitCode`; killed: ended by signal
// `exitCode`; oom_killed: killed because its pool ran out of memory; failed: could not start (`detail` says why);
// stopped: ended because the core asked; lost: the agent had launched it and can find neither it nor its end.
inline constexpr std::string_view kWorkloadStates[]
    = { "running", "exited", "killed", "oom_killed", "failed", "stopped", "lost" };

// Agent → core, right after `welcome` (and so again after every reconnect): the full node, the measured
// translation factors, and every workload the agent holds, running or finished since it last joined. The core
// reconciles its placements with `workloads`.
struct Inventory {
    std::string isa;
    std::string cpuModel; // printable text; may be empty
    std::vector<std::string> cpuFeatures; // names
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    std::int32_t numaNodes = 1;
    std::vector<DeviceInfo> devices;
    std::vector<TranslationFactor> translation;
    std::vector<WorkloadStatus> workloads;
    // The egress link's rate in Mbit/s where the agent shapes the node's traffic by pool (`tidepool-agent
    // --net-shape`); the core then counts it as the node's network capacity and sends each pool's guaranteed rate. On
    // the wire only when not 0 (absent: not shaped, the network counts as unlimited), so agents that do not shape read
    // as before; a core from before shaping refuses the field: upgrade the core before turning shaping on.
    std::int64_t netMbps = 0;
    bool operator==(const Inventory&) const = default;
};

// Agent → core: one workload changed state (and the answer to a `launch`: "running" or "failed").
struct WorkloadUpdate {
    WorkloadStatus status;
    bool operator==(const WorkloadUpdate&) const = default;
};

// The limits of one pool's cgroup on this node.
struct PoolLimits {
    std::string name;
    std::int64_t cpuMillis = 0; // CPU quota: 500 = half a core
    std::int64_t memoryMiB = 0; // memory limit
    std::int32_t ioWeight = 100; // 1..10000, as cgroup v2's io.weight
    // The egress rate guaranteed to the pool on this node, Mbit/s: what its workloads placed here asked for. Sent only
    // to an agent that shapes (its inventory gave `netMbps`) and only when not 0 (absent reads as 0: best effort).
    std::int64_t netMbps = 0;
    bool operator==(const PoolLimits&) const = default;
};

// Core → agent: the pools this node carves out. To an agent naming kFeatureLaunchPool, those its workloads placed there
// are in (possibly none), sent again when one leaves or, shaped, a guarantee changes (a new pool comes inside its first
// launch there); the agent removes the cgroups (and classes) of pools missing from the list once they run nothing. To
// one from before features, every pool, at its join and before the first launch into a pool created since.
struct PoolConfig {
    std::vector<PoolLimits> pools;
    bool operator==(const PoolConfig&) const = default;
};

// Core → agent: start a workload. The core launches one workload id again (re-placed after its node was lost, migrated,
// preempted) with a higher `incarnation` each time. For an (id, incarnation) it already holds the agent starts nothing
// and answers with that launch's current state, so a launch sent twice (a reconnect racing the first) never starts it
// twice; a higher incarnation of an id it holds is started (and supersedes the older one, which the agent stops if
// nobody has yet); a lower one is refused.
struct Launch {
    std::int64_t workloadId = 0;
    std::string name; // a name, for logs and the process title
    std::string pool; // a pool of the last `pools` message
    // The program and its arguments, no shell. tidepool-agent refuses a launch without one ("the launch names no
    // command"); tidepool-fleet's simulated agents run nothing in any case, only hold what was asked.
    std::vector<std::string> argv;
    std::vector<std::string> env; // "NAME=value" entries added to the agent's minimal environment
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    std::vector<std::int32_t> devices; // device indexes granted (whole or shared)
    // 0 for the first launch of the id, 0 to `kMaxIncarnation`. On the wire only when not 0 (absent reads as 0): an
    // agent from before incarnations takes first launches, and refuses (as an unknown field) only a relaunch, which it
    // could not have started anyway. Upgrade agents before the core.
    std::int32_t incarnation = 0;
    // The limits of `pool` (its `name` is `pool`) where the agent was not sent it in a `pools` message: only to an
    // agent that names kFeatureLaunchPool, which adds the pool to those it was listed. On the wire as `poolLimits` when
    // set. A node that takes many pools' first launches at once then gets them without a `pools` message for each,
    // whose lists, one pool longer each time, cost the core quadratic time.
    std::optional<PoolLimits> poolLimits {};
    // The most memory the workload may use (its own cgroup's limit, swap included), at least `memoryMiB`; 0 = none
    // of its own, only its pool's. On the wire only when set: an agent from before it refuses (as an unknown field)
    // only a launch that asks for a limit, which it could not have enforced.
    std::int64_t memoryLimitMiB = 0;
    // The most CPU the workload may use (its own cgroup's bandwidth quota, inside its pool's), at least `cpuMillis` and
    // 10; 0 = none of its own. On the wire only when set, as `memoryLimitMiB`.
    std::int64_t cpuLimitMillis = 0;
    bool operator==(const Launch&) const = default;
};

// Core → agent: stop one launch of a workload (SIGTERM, then SIGKILL after `graceMs`), the one `incarnation` names: the
// core always knows which launch it means (the current one, or an older copy left running where a newer one runs), and
// a stop never reaches another. Without `incarnation` (a core from before incarnations) it reaches only the newest
// incarnation the agent holds of the id. The agent answers every stop: a launch that runs with its end (a
// `workload_update`, as ever), one that has ended at once with how it ended, and one it does not hold at once as
// `lost` ("not held here"), so that a core may count stops in flight (`ControlPlaneConfig::stopWindow`).
struct Stop {
    std::int64_t workloadId = 0;
    std::int32_t graceMs = 10'000;
    std::optional<std::int32_t> incarnation;
    bool operator==(const Stop&) const = default;
};

// Core → agent (one that names kFeatureLogs): the end of one launch's output, for an operator
// (`GET /v1/workloads/{id}/logs`). The agent answers every request with a `logs` message of its `requestId`.
struct LogRequest {
    std::int64_t requestId = 0; // 1 to kMaxWorkloadId, the core's
    std::int64_t workloadId = 0;
    std::int32_t incarnation = 0; // which launch; on the wire only when not 0
    bool stderrStream = false; // `stream`: "stdout" (false) or "stderr"
    std::int64_t maxBytes = 0; // 1 to kMaxLogBytes: the last this many bytes of the stream
    // With kFeatureLogFollow: -1 (not on the wire) asks for the last `maxBytes`; 0 to kMaxLogPosition for the first
    // `maxBytes` from this position of the stream on (a byte's position counts every byte the launch wrote to it,
    // also those the agent no longer keeps). What is no longer kept is skipped: the answer's `start` says from where.
    std::int64_t from = -1;
    // With kFeatureLogWait and `from`: 1 to kMaxLogWaitMs holds the request at the agent while it has nothing from
    // `from` on and the launch runs, answering as soon as there is output, the launch ends, or this long has passed
    // (an answer without data then). 0 (not on the wire): answered at once.
    std::int32_t waitMs = 0;
    bool operator==(const LogRequest&) const = default;
};

// Agent → core: the answer to a `log_request`. `data` is the stream's last `maxBytes` bytes at most (what the agent
// keeps: its current file and the one it rotated out), as UTF-8 text: bytes that are not UTF-8, and control characters
// other than newline and tab, arrive as U+FFFD, a carriage return as a newline. `sizeBytes` is how much the agent
// holds of the stream, `truncated` whether `data` begins after its beginning. `error` (then no `data`) says why there
// is none: "workload 12 (incarnation 0) is not held here".
struct LogReply {
    std::int64_t requestId = 0;
    std::string data; // on the wire only when not empty
    std::int64_t sizeBytes = 0;
    bool truncated = false;
    std::string error; // on the wire only when not empty
    // With kFeatureLogFollow (else -1, not on the wire): the stream positions of the first byte `data` is from and of
    // the one after its last. Following reads on from `end`; `start` past the `from` asked for counts bytes no longer
    // kept. A multi-byte character or a carriage return at the end of what was written so far is left for the next
    // read from `end` when `from` was asked for, so that no read splits one.
    std::int64_t start = -1;
    std::int64_t end = -1;
    bool operator==(const LogReply&) const = default;
};

// Core → agent (one that names kFeatureResize): change what one running launch was given, in place, without a restart:
// its CPU request (its cgroup's weight among its pool's workloads) and its own limits. Each field holds the launch's
// new value whole, as `Launch` gives it: a limit of 0 removes the workload's own limit (it shares its pool's). The
// agent refuses a memory limit below what the workload uses now (the kernel would reclaim or kill to enforce it) and
// answers every resize with a `resized`; a launch it does not hold, or that has ended, is refused there too.
struct Resize {
    std::int64_t workloadId = 0;
    std::int32_t incarnation = 0; // on the wire only when not 0
    std::int64_t cpuMillis = 0; // 0 to kMaxCpuMillis
    std::int64_t memoryMiB = 0; // 0 to kMaxMemoryMiB: the request, for the launch's record
    std::int64_t memoryLimitMiB = 0; // 0 (none) or at least `memoryMiB`
    std::int64_t cpuLimitMillis = 0; // 0 (none) or at least `cpuMillis` and 10
    bool operator==(const Resize&) const = default;
};

// Agent → core: the answer to a `resize`. `error` (on the wire only when not empty) says why nothing changed, or what
// was left as it was; empty: every value is in place.
struct Resized {
    std::int64_t workloadId = 0;
    std::int32_t incarnation = 0; // on the wire only when not 0
    std::string error;
    bool operator==(const Resized&) const = default;
};

using Message = std::variant<Hello, Challenge, Auth, Welcome, Reject, Heartbeat, Inventory, WorkloadUpdate, PoolConfig,
    Launch, Stop, LogRequest, LogReply, Resize, Resized>;

bool isWorkloadState(std::string_view state);

// The `type` value of each message.
std::string_view typeName(const Message& message);

// The JSON text of `message`, with `type` and `version`. Does not validate: decode what peers send.
std::string encodeMessage(const Message& message);
// Parses and validates one frame's payload.
Expected<Message> decodeMessage(std::string_view payload);

} // namespace tidepool::protocol
