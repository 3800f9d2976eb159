#include "ui/remote_text.h"

#include <QCoreApplication>
#include <QString>

namespace tidepool::ui {

std::string remoteProblemText(const RemoteProblem& p)
{
    const QString url = QString::fromStdString(p.url);
    const QString detail = QString::fromStdString(p.detail);
    QString text;
    switch (p.kind) {
    case RemoteProblem::Kind::Unreachable:
        text = QCoreApplication::translate("RemoteText", "Cannot reach tidepoold at %1: %2").arg(url, detail);
        break;
    case RemoteProblem::Kind::Unauthorised:
        text = QCoreApplication::translate("RemoteText",
            "tidepoold at %1 refused the operator token (HTTP 401): check --token-file or TIDEPOOL_TOKEN_FILE")
                   .arg(url);
        break;
    case RemoteProblem::Kind::Refused:
        text = QCoreApplication::translate("RemoteText", "tidepoold at %1 answered HTTP %2: %3")
                   .arg(url, QString::number(p.status), detail);
        break;
    case RemoteProblem::Kind::BadAnswer:
        text = QCoreApplication::translate("RemoteText", "tidepoold at %1 sent an answer the console cannot read: %2")
                   .arg(url, detail);
        break;
    case RemoteProblem::Kind::Invalid: text = detail; break;
    }
    if (p.retryInSeconds > 0)
        text = QCoreApplication::translate("RemoteText", "%1; retrying in %2 s")
                   .arg(text, QString::number(p.retryInSeconds));
    return text.toStdString();
}

} // namespace tidepool::ui
