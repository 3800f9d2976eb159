#include "ui/models/workload_mime.h"

#include <QMimeData>

namespace tidepool::ui {

QMimeData* encodeWorkloads(const std::vector<const WorkloadRow*>& rows)
{
    QByteArray lines;
    for (const WorkloadRow* w : rows)
        if (w)
            lines += QByteArray::number(w->id) + '\t' + QByteArray::fromStdString(w->tier) + '\t'
                + QByteArray::fromStdString(w->node) + '\t' + QByteArray::fromStdString(w->pool) + '\n';
    if (lines.isEmpty())
        return nullptr;
    auto* data = new QMimeData;
    data->setData(kWorkloadMimeType, lines);
    return data;
}

std::vector<DraggedWorkload> decodeWorkloads(const QMimeData* data)
{
    std::vector<DraggedWorkload> dragged;
    if (!data || !data->hasFormat(kWorkloadMimeType))
        return dragged;
    for (const QByteArray& line : data->data(kWorkloadMimeType).split('\n')) {
        const QList<QByteArray> fields = line.split('\t');
        bool ok = false;
        const qint64 id = fields.value(0).toLongLong(&ok);
        if (ok && fields.size() == 4)
            dragged.push_back(
                DraggedWorkload { id, fields[1].toStdString(), fields[2].toStdString(), fields[3].toStdString() });
    }
    return dragged;
}

} // namespace tidepool::ui
