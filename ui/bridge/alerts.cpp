#include "ui/bridge/alerts.h"

#include "core/api/daemon_config.h"

#include <openssl/asn1.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>

namespace tidepool::ui {

void addRowAlerts(ConsoleSnapshot& snapshot)
{
    if (!snapshot.readOnlyReason.empty())
        snapshot.alerts.push_back(AlertRow { "read-only", "", snapshot.readOnlyReason, 0, 0 });
    for (const NodeRow& node : snapshot.nodes)
        if (node.state == "lost" || node.state == "suspect")
            snapshot.alerts.push_back(AlertRow { node.state == "lost" ? "node-lost" : "node-suspect", node.name, {}, 0, 0 });
}

std::optional<AlertRow> diskAlert(const std::string& directory, std::uint64_t lowBytes, double lowShare)
{
    struct statvfs fs {};
    if (::statvfs(directory.c_str(), &fs) != 0)
        return AlertRow { "disk-unreadable", directory, std::strerror(errno), 0, 0 };
    const auto unit = static_cast<std::uint64_t>(fs.f_frsize ? fs.f_frsize : fs.f_bsize);
    const std::uint64_t free = static_cast<std::uint64_t>(fs.f_bavail) * unit;
    const std::uint64_t total = static_cast<std::uint64_t>(fs.f_blocks) * unit;
    const bool low = free < lowBytes || (total > 0 && static_cast<double>(free) < lowShare * static_cast<double>(total));
    if (!low)
        return std::nullopt;
    return AlertRow { "disk-low", directory, {}, static_cast<std::int64_t>(free), static_cast<std::int64_t>(total) };
}

std::optional<AlertRow> certificateAlert(const std::string& pemFile, std::int64_t nowMs, std::chrono::hours warning)
{
    std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(pemFile.c_str(), "r"), &std::fclose);
    if (!file)
        return AlertRow { "certificate-unreadable", pemFile, std::strerror(errno), 0, 0 };
    std::unique_ptr<X509, void (*)(X509*)> certificate(
        PEM_read_X509(file.get(), nullptr, nullptr, nullptr), &X509_free);
    if (!certificate)
        return AlertRow { "certificate-unreadable", pemFile, "not a PEM certificate", 0, 0 };
    // When it expires, in Unix milliseconds: its notAfter as a distance from the epoch.
    std::unique_ptr<ASN1_TIME, void (*)(ASN1_TIME*)> epoch(ASN1_TIME_set(nullptr, 0), &ASN1_TIME_free);
    int days = 0, seconds = 0;
    if (!epoch || ASN1_TIME_diff(&days, &seconds, epoch.get(), X509_get0_notAfter(certificate.get())) != 1)
        return AlertRow { "certificate-unreadable", pemFile, "its expiry date cannot be read", 0, 0 };
    const std::int64_t expiresMs = (static_cast<std::int64_t>(days) * 86'400 + seconds) * 1000;
    const std::int64_t warnMs = std::chrono::duration_cast<std::chrono::milliseconds>(warning).count();
    if (expiresMs <= nowMs)
        return AlertRow { "certificate-expired", pemFile, {}, expiresMs, 0 };
    if (expiresMs - nowMs <= warnMs)
        return AlertRow { "certificate-expiring", pemFile, {}, expiresMs, 0 };
    return std::nullopt;
}

HostAlertSources hostAlertSources(const api::DaemonConfig& config)
{
    HostAlertSources sources;
    if (!config.db.empty())
        sources.storeDirectory = std::filesystem::absolute(config.db).parent_path().string();
    for (const std::string& pem : { config.tlsCertificate, config.apiTlsCertificate })
        if (!pem.empty())
            sources.certificates.push_back(pem);
    return sources;
}

std::vector<AlertRow> hostAlerts(const HostAlertSources& sources, std::int64_t nowMs)
{
    std::vector<AlertRow> host;
    if (!sources.storeDirectory.empty())
        if (auto alert = diskAlert(sources.storeDirectory, sources.diskLowBytes, sources.diskLowShare))
            host.push_back(std::move(*alert));
    for (const std::string& pem : sources.certificates)
        if (auto alert = certificateAlert(pem, nowMs, sources.certificateWarning))
            host.push_back(std::move(*alert));
    return host;
}

void addHostAlerts(ConsoleSnapshot& snapshot, const HostAlertSources& sources)
{
    insertHostAlerts(snapshot, hostAlerts(sources, snapshot.nowMs));
}

void insertHostAlerts(ConsoleSnapshot& snapshot, std::vector<AlertRow> host)
{
    // Before the nodes' alerts, after the store's.
    const auto nodes = std::find_if(snapshot.alerts.begin(), snapshot.alerts.end(),
        [](const AlertRow& a) { return a.kind.starts_with("node-"); });
    snapshot.alerts.insert(nodes, std::make_move_iterator(host.begin()), std::make_move_iterator(host.end()));
}

} // namespace tidepool::ui
