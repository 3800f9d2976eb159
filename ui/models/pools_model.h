#pragma once
// Pools as a tree: business line → pool → the nodes its workloads run on (and a row of those waiting for a place) →
// the workloads. Per resource (CPU, memory, memory bandwidth, network, accelerators) what is requested and what is
// used as measured, side by side, as bars against the row's limit: a line's or a pool's quota, a node's capacity,
// a workload's own request. Measured use is the pools' (or else the nodes') as their agents report it, split among the
// workloads by their requests (`workload_rows.h`); memory and network bandwidth show requests only.
//
// While the business lines and pools stay the same, a snapshot updates values in place (`dataChanged`) and diffs each
// pool's nodes and each node's workloads by key (rows inserted and removed as workloads come, go and move), or, when
// that would take more than `kIncrementalRunsUpTo` runs of inserted and removed rows, takes the next tree as one layout
// change with its persistent indexes moved by key; a pool or a business line that appears or goes resets the model.
// Workload rows are views into the snapshot the model holds.
//
// Drag and drop goes through the model, as on the Tiers board and with the same payload (`workload_mime.h`), so that a
// test moves a workload without a mouse: a workload row dropped on a pool (or its waiting row) asks to move it into
// that pool, where the core picks the node; dropped on a node of a pool (or a workload row under it), into that pool
// on that node. The model changes nothing itself: it emits `moveRequested`, the page sends the command to the core,
// and the next snapshot shows where the workload went. `flags` and `mimeData` look at the one row asked about: nothing
// is kept per row for them, so that updates of 50,000 workloads cost no more.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"
#include "ui/models/filter_proxy.h"
#include "ui/models/grouped_diff.h"
#include "ui/models/workload_mime.h"

#include <QAbstractItemModel>

#include <vector>

namespace tidepool::ui {

class PoolsModel : public QAbstractItemModel, public DirectSortKeys {
    Q_OBJECT
public:
    enum Column : int {
        Name,
        Tier,
        Workloads, // a count; a workload row's phase
        CpuRequested,
        CpuUsed, // measured; a bar against the row's limit
        CpuQuota,
        QuotaUsed, // CPU requested against the quota (a node's CPU on a node row); a bar
        MemoryRequested, // a bar against the limit
        MemoryUsed, // measured; a bar
        MemoryQuota,
        MemBandwidth, // requested; a bar against the quota
        Network, // requested; a bar against the quota
        NetworkUsed, // measured where nodes shape their links; a bar against the quota, a node's guarantee, the request
        Accelerators, // requested, in devices
        AcceleratorsUsed, // measured, in devices busy; a bar against the request
        ColumnCount
    };
    // The columns drawn as bars (`ShareRole`).
    static constexpr Column kBarColumns[]
        = { CpuUsed, QuotaUsed, MemoryRequested, MemoryUsed, MemBandwidth, Network, NetworkUsed, AcceleratorsUsed };

    explicit PoolsModel(QObject* parent = nullptr);

    void setSnapshot(const SnapshotPtr& snapshot);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    // Names compare as they are, case aside (the waiting row's "" first), without building strings.
    std::optional<int> compareSortKeys(const QModelIndex& left, const QModelIndex& right) const override;

    // The pool of a pool row, or the pool a node or workload row is under, or a business line's only pool; null for a
    // line of several pools and for an index of another model.
    const PoolRow* poolAt(const QModelIndex& index) const;

    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QModelIndexList& indexes) const override;
    bool canDropMimeData(
        const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent) const override;
    bool dropMimeData(
        const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent) override;
    Qt::DropActions supportedDragActions() const override;
    Qt::DropActions supportedDropActions() const override;

    // A pool row's disruption budget, in words (the tooltip of its Workloads cell).
    static QString disruptionTip(const PoolRow& pool);

Q_SIGNALS:
    // A workload was dropped into pool `pool`: onto node `node` of it, or with an empty `node` where the core picks.
    void moveRequested(qint64 workloadId, const QString& pool, const QString& node);

private:
    using WorkloadRef = SnapshotRef<WorkloadRow>;
    // Rows of the snapshot the model holds, not copies, so that 10,000 nodes cost little to update.
    struct NodeGroup {
        SnapshotRef<PoolNodeRow> row; // node "" holds the pool's waiting workloads
        std::vector<WorkloadRef> workloads; // by id
        bool operator==(const NodeGroup& other) const { return row == other.row; }
    };
    struct PoolEntry {
        SnapshotRef<PoolRow> row; // its `nodes`, one for each of `nodes` below
        std::vector<NodeGroup> nodes; // by node name
    };
    struct Line {
        std::string name;
        std::vector<PoolEntry> pools; // by id
    };
    // What a row shows, whatever its level. -1: not measured, or no limit; -2: a quota that does not apply.
    struct Cells {
        std::string name;
        std::string tier;
        bool showTier = false;
        int workloads = 0;
        std::string phase; // a workload row
        std::int64_t cpuRequested = 0, cpuUsed = -1, cpuLimit = -1, cpuQuota = -2;
        std::int64_t memoryRequested = 0, memoryUsed = -1, memoryLimit = -1, memoryQuota = -2;
        std::int64_t memBandwidth = 0, memBandwidthLimit = -1, network = 0, networkLimit = -1;
        double accelerators = 0.0, acceleratorsUsed = -1.0;
        double networkUsed = -1.0; // measured, Mbit/s
    };

    // Where a drop on `parent` moves workloads: a pool, and a node of it (empty: the core picks).
    struct Target {
        std::string pool;
        std::string node;
        bool valid = false;
    };

    static std::vector<Line> group(const SnapshotPtr& snapshot);
    // The same business lines with the same pools (their nodes and workloads may differ).
    static bool samePools(const std::vector<Line>& a, const std::vector<Line>& b);
    Cells cells(const QModelIndex& index) const;
    static QString acceleratorQuotaTip(const PoolRow& pool);
    // The Name column's text; `shown`: as displayed (the waiting row's label), else raw (sorting, filtering).
    QString name(const QModelIndex& index, bool shown) const;
    const std::string& rawName(const QModelIndex& index) const;
    // Brings pool `p` of line `l` to `next`: its values in place, its nodes and their workloads diffed. True when
    // anything changed.
    bool updatePool(std::size_t l, std::size_t p, PoolEntry next);
    // The runs of inserted and removed rows that bringing the shown tree to `next` row by row would signal, counted
    // up to `kIncrementalRunsUpTo + 1`.
    std::size_t insertRemoveRunsTo(const std::vector<Line>& next) const;
    // Takes `next` (the same lines and pools) as one layout change, moving persistent indexes by key.
    void relayout(std::vector<Line> next);
    const WorkloadRow* workloadAt(const QModelIndex& index) const; // a workload row's; null for other rows
    Target targetOf(const QModelIndex& parent) const;
    // The dragged workloads that a drop on `target` would move (not those already there).
    static std::vector<DraggedWorkload> movable(const std::vector<DraggedWorkload>& dragged, const Target& target);

    SnapshotPtr m_snapshot; // what the workload rows point into
    std::vector<Line> m_lines; // by name
};

} // namespace tidepool::ui
