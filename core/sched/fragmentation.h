#pragma once
// Fragmentation of accelerator share, as measured by FGD (Weng et al., "Beware of Fragmentation", USENIX ATC 2023):
// the expected share on a node that a task drawn from the workload's typical mix could not use there. The `fgd`
// policy scores placements by how little they raise it; Tidepool's own policy reuses the same measure.
//
// Thread affinity: none; a `FragmentationModel` is immutable after construction and may be shared.

#include "core/model/cluster.h"

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace tidepool {

// One frequent request shape of the mix and its share of the mix (the frequencies of all shapes sum to 1).
struct TypicalShape {
    std::int64_t cpuMillis = 0;
    AcceleratorKind kind = AcceleratorKind::None; // None = a CPU-only shape
    std::int32_t count = 0; // devices per task
    std::int32_t sharePerDevice = 0; // share taken from each device (a whole device = its capacity)
    std::vector<ModelId> allowedModels; // empty = any model, as `AcceleratorRequest::allowedModels`
    std::string modelSpec; // the allowed models joined by '|', used to order equal counts
    std::int64_t occurrences = 0;
    double frequency = 0;
    std::int64_t memoryMiB = 0; // 0 unless the model counts memory (`fromMix`'s memoryQuantile)

    bool allows(ModelId model) const;
};

// The free state of one node, possibly hypothetical (after a placement being evaluated).
struct NodeFreeState {
    std::int64_t cpuFreeMillis = 0;
    std::int64_t memoryFreeMiB = std::numeric_limits<std::int64_t>::max();
    std::span<const Device> devices; // kinds and models
    std::span<const std::int32_t> share; // free share per device, parallel to `devices`
    std::int64_t shareTotal = -1; // the sum of `share` where the caller has it (scoring asks for it often), else -1
};

class FragmentationModel {
public:
    FragmentationModel() = default;
    explicit FragmentationModel(std::vector<TypicalShape> shapes, std::int32_t wholeShare = 1000);

    // FGD's "typical pods": group the mix by (CPU, share per device, device count, allowed models), order the groups
    // by count (descending; equal counts by the key, descending), keep the most frequent until they cover
    // `coverage` of the mix, and renormalise their frequencies. Whole-device requests count as a share equal to
    // the device capacity `wholeShare` (1000 milli-GPUs on openb). With `memoryQuantile` in [0, 1], each shape
    // also needs that quantile of its group's memory requests, so that a node short of memory counts its free
    // share as unusable the way FGD counts a node short of CPU; below 0, memory is ignored (FGD's definition).
    // At most `maxShapes` shapes are kept even if they cover less: a flat mix would otherwise make every
    // evaluation cost hundreds of shapes.
    static FragmentationModel fromMix(const std::vector<Workload>& mix, const ClusterState& cluster,
        double coverage = 0.95, std::int32_t wholeShare = 1000, double memoryQuantile = -1,
        std::size_t maxShapes = std::numeric_limits<std::size_t>::max());

    const std::vector<TypicalShape>& shapes() const { return m_shapes; }
    // Host-limited fragmentation (Tidepool's refinement; 0 = FGD's definition). A node whose devices could still
    // take n tasks of a fractional shape but whose CPU (or memory, when counted) can host only h < n of them
    // strands part of the share it counts as usable: `weight × (1 − h/n)` of it is counted as unusable too.
    // This makes CPU exhaustion a gradual cost instead of a cliff that FGD only sees once a shape no longer fits.
    void setHostLimitWeight(double weight) { m_hostLimitWeight = weight; }
    bool empty() const { return m_shapes.empty(); }

    // F(node) = Σ_t f_t × g_t, with g_t the free share that shape t cannot use: the share on usable devices too
    // small for t (plus any share on devices t may not use) when t fits the node — enough CPU and enough usable
    // devices with free ≥ t's share (and enough memory, when the shapes count it) — and the node's whole free
    // share otherwise (always for CPU-only shapes).
    double fragmentation(const NodeFreeState& state) const;
    double fragmentation(const Node& node) const;

    // What F needs to know of a node per typical shape. With it, F costs O(shapes), and F after a change of a few
    // devices' share costs O(shapes × changed devices) instead of O(shapes × devices) — what scoring a candidate
    // needs, once per device it might take.
    struct ShapeSummary {
        std::int32_t big = 0; // usable devices with free share ≥ the shape's share
        std::int32_t small = 0; // free share on the other devices
        std::int32_t tasks = 0; // tasks of the shape the big devices could take (fractional shapes)
    };
    struct DeviceChange {
        std::size_t device = 0;
        std::int32_t share = 0; // the device's free share after the change
    };
    void summarize(const NodeFreeState& state, std::vector<ShapeSummary>& out) const;
    double fragmentation(const NodeFreeState& state, std::span<const ShapeSummary> summary) const;
    // F of `state` with the given devices' free shares and the node's free CPU and memory changed; `summary` comes
    // from `summarize(state)`. Equal to `fragmentation` of the changed state.
    double fragmentationAfter(const NodeFreeState& state, std::span<const ShapeSummary> summary,
        std::span<const DeviceChange> changes, std::int64_t cpuFreeMillis, std::int64_t memoryFreeMiB) const;

private:
    // What the scoring loops read of one shape, packed into one small array: an evaluation walks every shape, and
    // `TypicalShape` spreads the same fields between lists and strings.
    struct ShapeParams {
        std::int64_t cpuMillis = 0;
        std::int64_t memoryMiB = 0;
        double frequency = 0;
        std::uint64_t modelMask = 0; // allowed models below 64 as bits (all bits = any model)
        std::uint64_t shareReciprocal = 0; // ceil(2^32 / sharePerDevice), 0 for CPU-only shapes
        std::int32_t sharePerDevice = 0;
        std::int32_t count = 0;
        AcceleratorKind kind = AcceleratorKind::None;
        bool listed = false; // names a model id beyond 63, which `modelMask` cannot hold: read the list
        bool fractional = false; // one device and less than a whole one: subject to the host limit
    };

    bool usableBy(std::size_t shape, const Device& d) const;
    // `share / shape's sharePerDevice` (which must be positive) without a hardware division where both are below
    // 2^16: a multiply by a precomputed reciprocal, exact in that range. This sits in the innermost scoring loop.
    std::int32_t tasksIn(const ShapeParams& t, std::int32_t share) const
    {
        if (share >= 0 && share < 65536 && t.sharePerDevice < 65536)
            return static_cast<std::int32_t>((static_cast<std::uint64_t>(share) * t.shareReciprocal) >> 32);
        return share / t.sharePerDevice;
    }
    ShapeSummary summarize(std::size_t shape, const NodeFreeState& state) const;
    // Whether a task of the shape could use the node at all: it asks for devices and the node has its CPU and
    // memory. When not, g_t is the node's whole free share, whatever its devices hold.
    static bool hostFits(const ShapeParams& t, std::int64_t cpuFreeMillis, std::int64_t memoryFreeMiB)
    {
        return t.kind != AcceleratorKind::None && cpuFreeMillis >= t.cpuMillis && memoryFreeMiB >= t.memoryMiB;
    }
    // g_t for one shape from its summary, on a node with `total` free share and the given free CPU and memory.
    double unusable(const ShapeParams& t, const ShapeSummary& s, std::int64_t total, std::int64_t cpuFreeMillis,
        std::int64_t memoryFreeMiB) const
    {
        if (!hostFits(t, cpuFreeMillis, memoryFreeMiB))
            return static_cast<double>(total);
        return unusableOnDevices(t, s, total, cpuFreeMillis, memoryFreeMiB);
    }
    // `unusable` for a shape that `hostFits`.
    double unusableOnDevices(const ShapeParams& t, const ShapeSummary& s, std::int64_t total,
        std::int64_t cpuFreeMillis, std::int64_t memoryFreeMiB) const;

    std::vector<TypicalShape> m_shapes;
    std::vector<ShapeParams> m_params; // parallel to `m_shapes`
    std::int32_t m_wholeShare = 1000; // a device's capacity; shapes below it are fractional
    double m_hostLimitWeight = 0;
};

// FGD's node score for a fragmentation change: int(100 × sigmoid((before − after) / unit)); 50 when unchanged.
std::int64_t fragmentationScore(double before, double after, double unit = 1000.0);

} // namespace tidepool
