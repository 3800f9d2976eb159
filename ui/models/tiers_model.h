#pragma once
// The Tiers board as a tree: tier (hot, warm, cold) → its nodes, after a group of the workloads that wait for a place
// on it → workload cards. Fed with snapshots and diffed by key at every level (nodes by name, cards by workload id),
// or, when that would take more than `kIncrementalRunsUpTo` runs of inserted and removed rows, taken as one layout
// change with the persistent indexes moved by key; only a load into an empty model resets. Cards are views into the snapshot the model holds, not copies, so that
// 50,000 of them cost little to update.
//
// Drag and drop goes through the model (`mimeData`, `canDropMimeData`, `dropMimeData`), so that a test moves a card
// without a mouse: a card dropped on a tier (or its waiting group) asks for the best node of that tier, dropped on a
// node (or a card of it) asks for that node. The model changes nothing itself: it emits `moveRequested`, the page
// sends the command to the core, and the next snapshot shows where the workload went; `setNote` puts the core's answer
// on the card meanwhile (a refusal's reasons in its tooltip and on the card).
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"
#include "ui/models/grouped_diff.h"
#include "ui/models/workload_mime.h"

#include <QAbstractItemModel>

#include <map>

namespace tidepool::ui {

class TiersModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Level : int { TierLevel = 0, GroupLevel = 1, CardLevel = 2 };
    // Roles beside `roles.h`'s, for the board's delegate and for tests.
    enum CardRole : int {
        LevelRole = Qt::UserRole + 40, // Level
        SubtitleRole, // a group's summary, a card's pool and resources
        NoteRole, // the last move's answer for a card ("moving…", a refusal); empty when none
        NoteStateRole, // NoteState
        PhaseRole, // the card's phase, the core's name
        WorkloadIdRole, // a card's workload id
        NodeRole, // a group's or card's node name; empty for the waiting group and a waiting card
        TierRole, // the tier's core name ("hot")
    };
    enum class NoteState : int { None = 0, Moving, Moved, Refused };

    // The payload of dragged cards, shared with the Pools tree (`workload_mime.h`).
    static inline const QString kMimeType = kWorkloadMimeType;

    explicit TiersModel(QObject* parent = nullptr);

    void setSnapshot(const SnapshotPtr& snapshot);
    // The answer to a move, shown on the card until its next move.
    void setNote(qint64 workloadId, const QString& note, NoteState state);

    QModelIndex tierIndex(const QString& tier) const;
    QModelIndex nodeIndex(const QString& node) const; // the group of node `node`
    QModelIndex cardIndex(qint64 workloadId) const; // a linear search: for tests and selections
    int cardCount(const QModelIndex& tier) const; // cards under a tier

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QModelIndexList& indexes) const override;
    bool canDropMimeData(
        const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent) const override;
    bool dropMimeData(
        const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent) override;
    Qt::DropActions supportedDragActions() const override;
    Qt::DropActions supportedDropActions() const override;

Q_SIGNALS:
    // A card was dropped on a target: `node` (a node's name), or with an empty `node` the best node of `tier`.
    void moveRequested(qint64 workloadId, const QString& node, const QString& tier);

private:
    using Card = SnapshotRef<WorkloadRow>;
    struct Group {
        std::string key; // the node's name; "" for the workloads waiting for a place on the tier
        SnapshotRef<NodeRow> node; // a row of the snapshot; an empty row for the waiting group
        std::vector<Card> cards; // by workload id
        bool operator==(const Group& other) const { return key == other.key && node == other.node; }
    };
    struct Column {
        std::string tier;
        std::vector<Group> groups; // by key
    };
    struct Target {
        std::string node; // empty: the tier
        std::string tier;
        bool valid = false;
    };

    std::vector<Column> group(const SnapshotPtr& snapshot) const;
    // Takes `next` (the same tiers) as one layout change, moving persistent indexes by key.
    void relayout(std::vector<Column> next);
    const Group* groupAt(const QModelIndex& index) const; // a group row, or a card's group
    const WorkloadRow* cardAt(const QModelIndex& index) const;
    Target targetOf(const QModelIndex& parent) const;
    // The dragged cards that the drop on `target` would move (not those already there).
    static std::vector<DraggedWorkload> movable(const std::vector<DraggedWorkload>& dragged, const Target& target);

    SnapshotPtr m_snapshot; // what the cards point into
    std::vector<Column> m_columns; // hot, warm, cold
    std::map<qint64, std::pair<QString, NoteState>> m_notes;
};

} // namespace tidepool::ui
