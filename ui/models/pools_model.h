#pragma once
// Pools as a tree: business line → pool → the nodes its workloads run on, with CPU quota against use, memory and
// accelerators. While the business lines and pools stay the same, a snapshot updates values in place (`dataChanged`)
// and diffs each pool's nodes (rows inserted and removed as its workloads move); a pool or a business line that
// appears or goes resets the model.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"

#include <QAbstractItemModel>

#include <vector>

namespace tidepool::ui {

class PoolsModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column : int {
        Name,
        Tier,
        Workloads,
        CpuUsed,
        CpuQuota,
        QuotaUsed,
        MemoryUsed,
        MemoryQuota,
        Accelerators,
        ColumnCount
    };

    explicit PoolsModel(QObject* parent = nullptr);

    void setSnapshot(const SnapshotPtr& snapshot);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Line {
        std::string name;
        std::vector<PoolRow> pools; // by id
        bool operator==(const Line&) const = default;
    };
    // What a row shows, whatever its level.
    struct Cells {
        std::string name;
        std::string tier;
        bool showTier = false;
        int workloads = 0;
        std::int64_t cpuUsed = 0, cpuQuota = -1, memoryUsed = 0, memoryQuota = -1, accelerators = 0;
    };

    static std::vector<Line> group(const SnapshotPtr& snapshot);
    // The same business lines with the same pools (their nodes may differ).
    static bool samePools(const std::vector<Line>& a, const std::vector<Line>& b);
    Cells cells(const QModelIndex& index) const;
    // Brings pool `p` of line `l` to `next`: its values in place, its nodes diffed. True when anything changed.
    bool updatePool(std::size_t l, std::size_t p, PoolRow next);

    std::vector<Line> m_lines; // by name
};

} // namespace tidepool::ui
