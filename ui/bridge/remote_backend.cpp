#include "ui/bridge/remote_backend.h"

#include "core/report/report_json.h"

#include "core/api/api_client.h"
#include "core/api/control_plane.h"
#include "core/api/node_rows.h"
#include "core/net/http_server.h"
#include "ui/bridge/node_executor.h"
#include "ui/bridge/remote_snapshot.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace tidepool::ui {

using api::HttpMethod;
using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

namespace {

constexpr std::uint16_t kDefaultApiPort = 7080; // tidepoold's --api-listen default
constexpr const char* kLivePhases[] = { "pending", "launching", "running", "stopping" };

// The daemon's `error`, or the status when the body says nothing.
std::string errorOf(const api::ApiResponse& response)
{
    const json body = json::parse(response.body, nullptr, false);
    if (body.is_object() && body.contains("error") && body["error"].is_string())
        return body["error"].get<std::string>();
    return "HTTP " + std::to_string(response.status);
}

// Fields of the daemon's answers, read without throwing: one that is missing or of another type (a daemon of another
// version, a proxy's page) reads as absent — empty, false, 0 — rather than ending the backend's thread.
std::string textOf(const json& j, const char* key)
{
    const auto it = j.is_object() ? j.find(key) : j.end();
    return j.is_object() && it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool flagOf(const json& j, const char* key)
{
    const auto it = j.is_object() ? j.find(key) : j.end();
    return j.is_object() && it != j.end() && it->is_boolean() && it->get<bool>();
}

std::int64_t wholeOf(const json& j, const char* key)
{
    const auto it = j.is_object() ? j.find(key) : j.end();
    return j.is_object() && it != j.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

} // namespace

std::string describeInEnglish(const RemoteProblem& p)
{
    std::string text;
    switch (p.kind) {
    case RemoteProblem::Kind::Unreachable: text = "cannot reach tidepoold at " + p.url + ": " + p.detail; break;
    case RemoteProblem::Kind::Unauthorised:
        text = "tidepoold at " + p.url
            + " refused the operator token (HTTP 401): check --token-file or TIDEPOOL_TOKEN_FILE";
        break;
    case RemoteProblem::Kind::Refused:
        text = "tidepoold at " + p.url + " answered HTTP " + std::to_string(p.status) + ": " + p.detail;
        break;
    case RemoteProblem::Kind::BadAnswer: text = "tidepoold at " + p.url + ": " + p.detail; break;
    case RemoteProblem::Kind::Invalid: text = p.detail; break;
    }
    if (p.retryInSeconds > 0)
        text += "; retrying in " + std::to_string(p.retryInSeconds) + " s";
    return text;
}

Expected<RemoteEndpoint> parseConnectUrl(const std::string& text)
{
    std::string rest = text;
    const bool tls = rest.rfind("https://", 0) == 0;
    if (tls)
        rest = rest.substr(8);
    else if (rest.rfind("http://", 0) == 0)
        rest = rest.substr(7);
    else if (rest.find("://") != std::string::npos)
        return makeError(ErrorCode::InvalidArgument, "\"" + text + "\" must be http://HOST:PORT or https://HOST:PORT");
    while (!rest.empty() && rest.back() == '/')
        rest.pop_back();
    if (rest.empty() || rest.find('/') != std::string::npos)
        return makeError(ErrorCode::InvalidArgument, "\"" + text + "\" must be http://HOST:PORT, without a path");
    // A port is optional: the last ':' outside an IPv6 literal's brackets starts it.
    const auto bracket = rest.rfind(']');
    const auto colon = rest.rfind(':');
    const bool hasPort = colon != std::string::npos && (bracket == std::string::npos || colon > bracket)
        && (bracket != std::string::npos || rest.find(':') == colon);
    if (!hasPort)
        rest += ":" + std::to_string(kDefaultApiPort);
    auto address = net::parseHostPort(rest);
    if (!address || address->first.empty() || address->second == 0)
        return makeError(
            ErrorCode::InvalidArgument, "\"" + text + "\" must be http://HOST:PORT with a port from 1 to 65535");
    RemoteEndpoint endpoint;
    endpoint.host = address->first;
    endpoint.port = address->second;
    endpoint.tls = tls;
    const bool v6 = endpoint.host.find(':') != std::string::npos;
    endpoint.url = (tls ? "https://" : "http://") + (v6 ? "[" + endpoint.host + "]" : endpoint.host) + ":" + std::to_string(endpoint.port);
    return endpoint;
}

RemoteBackend::RemoteBackend(RemoteConfig config, ConsoleEvents events)
    : m_config(std::move(config))
    , m_events(std::move(events))
{
    m_thread = std::thread([this] {
        // Nothing may escape the backend's thread: a throw here would terminate the console.
        try {
            run();
        } catch (const std::exception& e) {
            if (m_events.failure)
                m_events.failure(std::string("the connection to tidepoold stopped: ") + e.what());
        }
    });
    if (m_config.eventWait.count() <= 0)
        return;
    m_watchClient = std::make_unique<api::ApiClient>(
        m_config.endpoint.host, m_config.endpoint.port, m_config.token, m_config.eventWait + m_config.requestTimeout);
    // Without TLS where it is asked for, nothing is watched (the polls say why).
    if (m_config.endpoint.tls && !m_watchClient->useTls(m_config.caFile))
        return;
    m_watcher = std::thread([this] {
        try {
            watchEvents();
        } catch (const std::exception&) {
            // The polls go on without it.
        }
    });
}

RemoteBackend::~RemoteBackend()
{
    stop();
}

void RemoteBackend::enqueue(Command command)
{
    {
        const std::lock_guard lock(m_mutex);
        if (!m_stopping) {
            m_commands.emplace_back(std::move(command));
            m_wake.notify_one();
            return;
        }
    }
    refuse(command, "the console has stopped");
}

void RemoteBackend::submit(ProposalCommand command)
{
    enqueue(std::move(command));
}

void RemoteBackend::submit(MoveCommand command)
{
    enqueue(std::move(command));
}

void RemoteBackend::submit(ReportCommand command)
{
    enqueue(std::move(command));
}

void RemoteBackend::submit(PoolCommand command)
{
    enqueue(std::move(command));
}

void RemoteBackend::submit(LogsCommand command)
{
    if (command.waitMs <= 0 || command.from < 0)
        return enqueue(std::move(command));
    {
        const std::lock_guard lock(m_mutex);
        if (!m_stopping) {
            if (!m_follower.joinable()) {
                m_followClient = std::make_unique<api::ApiClient>(m_config.endpoint.host, m_config.endpoint.port,
                    m_config.token, m_config.requestTimeout + std::chrono::milliseconds(protocol::kMaxLogWaitMs));
                // The CA was checked when the console started; should it fail now, the read says so.
                if (m_config.endpoint.tls)
                    (void)m_followClient->useTls(m_config.caFile);
                m_follower = std::thread([this] {
                    try {
                        follow();
                    } catch (const std::exception&) {
                        // The dialog asks again; its reads then wait in the queue of the polls.
                    }
                });
            }
            m_follows.push_back(std::move(command));
            m_followWake.notify_one();
            return;
        }
    }
    refuse(command, "the console has stopped");
}

void RemoteBackend::submit(NodeCommand command)
{
    enqueue(std::move(command));
}

void RemoteBackend::submit(ResizeCommand command)
{
    enqueue(std::move(command));
}

void RemoteBackend::refresh()
{
    const std::lock_guard lock(m_mutex);
    m_refresh = true;
    m_wake.notify_one();
}

void RemoteBackend::stop()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_wake.notify_one();
        m_watchWake.notify_one();
        m_followWake.notify_one();
    }
    // Made only under the lock, and no more once stopping: read safely now.
    for (api::ApiClient* client : { m_watchClient.get(), m_followClient.get() })
        if (client)
            client->cancel();
    if (m_watcher.joinable())
        m_watcher.join();
    if (m_follower.joinable())
        m_follower.join();
    if (m_thread.joinable())
        m_thread.join();
}

void RemoteBackend::refuse(const Command& command, const std::string& why)
{
    if (const auto* decision = std::get_if<ProposalCommand>(&command)) {
        if (m_events.outcome)
            m_events.outcome(
                CommandOutcome { decision->requestId, decision->proposalId, decision->decision, false, {}, why });
        return;
    }
    if (const auto* report = std::get_if<ReportCommand>(&command)) {
        if (m_events.reported)
            m_events.reported(ReportResult { report->requestId, nullptr, why });
        return;
    }
    if (const auto* pool = std::get_if<PoolCommand>(&command)) {
        if (m_events.poolChanged)
            m_events.poolChanged(PoolResult { pool->requestId, pool->action, pool->name, false, why });
        return;
    }
    if (const auto* node = std::get_if<NodeCommand>(&command)) {
        if (m_events.nodeChanged)
            m_events.nodeChanged(stoppedResult(*node, why));
        return;
    }
    if (const auto* resize = std::get_if<ResizeCommand>(&command)) {
        if (m_events.resized)
            m_events.resized(stoppedResult(*resize, why));
        return;
    }
    if (const auto* logs = std::get_if<LogsCommand>(&command)) {
        if (m_events.logsRead) {
            LogsResult result = logsResultFor(*logs);
            result.message = why;
            m_events.logsRead(std::move(result));
        }
        return;
    }
    const auto& move = std::get<MoveCommand>(command);
    if (!m_events.moved)
        return;
    MoveResult result;
    result.requestId = move.requestId;
    result.workloadId = move.workloadId;
    result.refusal = "stopped";
    result.node = move.node;
    result.tier = move.tier;
    result.message = why;
    m_events.moved(std::move(result));
}

void RemoteBackend::fail(RemoteProblem problem)
{
    problem.url = m_config.endpoint.url;
    if (m_events.failure)
        m_events.failure(m_config.describe ? m_config.describe(problem) : describeInEnglish(problem));
}

void RemoteBackend::run()
{
    api::ApiClient client(m_config.endpoint.host, m_config.endpoint.port, m_config.token, m_config.requestTimeout);
    if (m_config.endpoint.tls) {
        // The composition root checks the CA file before starting; should it have gone since, nothing is sent in the
        // clear instead: say why, and answer every command until stopped.
        if (auto tls = client.useTls(m_config.caFile); !tls) {
            fail(RemoteProblem { RemoteProblem::Kind::Unreachable, {}, tls.error().message, 0, 0 });
            std::unique_lock lock(m_mutex);
            for (;;) {
                m_wake.wait(lock, [this] { return m_stopping || !m_commands.empty(); });
                std::deque<Command> commands;
                commands.swap(m_commands);
                const bool stopping = m_stopping;
                lock.unlock();
                for (const Command& command : commands)
                    refuse(command, tls.error().message);
                if (stopping)
                    return;
                lock.lock();
            }
        }
    }
    std::chrono::milliseconds backoff = m_config.minBackoff;
    SteadyClock::time_point nextPoll = SteadyClock::now();
    SteadyClock::time_point lastPoll = nextPoll - m_config.minChangeGap;
    for (;;) {
        std::deque<Command> commands;
        bool refresh = false, pollNow = false;
        {
            std::unique_lock lock(m_mutex);
            // Until the poll is due, or sooner: a command, a refresh, or a change the daemon recorded (`minChangeGap`
            // after the last poll at the soonest; not while failing, when the backoff rules).
            const auto due = [&] {
                return m_changed && backoff == m_config.minBackoff
                    ? std::min(nextPoll, lastPoll + m_config.minChangeGap)
                    : nextPoll;
            };
            while (!m_stopping && !m_refresh && m_commands.empty() && SteadyClock::now() < due())
                m_wake.wait_until(lock, due());
            if (m_stopping) {
                commands.swap(m_commands);
                lock.unlock();
                for (const Command& command : commands)
                    refuse(command, "the console has stopped");
                return;
            }
            commands.swap(m_commands);
            refresh = std::exchange(m_refresh, false);
            // After a command or a refresh at once, so that its effect is on screen; after a change the daemon
            // recorded; else when the poll is due. What changed before a poll is in it.
            pollNow = refresh || !commands.empty() || SteadyClock::now() >= due();
            if (pollNow)
                m_changed = false;
        }
        for (const Command& command : commands)
            std::visit([&](const auto& c) { execute(client, c); }, command);
        if (!pollNow)
            continue;
        lastPoll = SteadyClock::now();
        if (poll(client, backoff)) {
            backoff = m_config.minBackoff;
            nextPoll = SteadyClock::now() + m_config.pollInterval;
        } else {
            nextPoll = SteadyClock::now() + backoff;
            backoff = std::min(backoff * 2, m_config.maxBackoff);
        }
    }
}

void RemoteBackend::watchEvents()
{
    api::ApiClient& client = *m_watchClient;
    const std::string wait = "&limit=1&waitMs=" + std::to_string(m_config.eventWait.count());
    std::uint64_t latest = 0; // the newest event the daemon had, as last read, where `known`
    bool known = false;
    std::chrono::milliseconds pause { 0 }, backoff = m_config.minBackoff;
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_watchWake.wait_for(lock, pause, [this] { return m_stopping; });
            if (m_stopping)
                return;
        }
        // The first read only learns where the events are; each later one waits for the next.
        auto answer = client.request(api::HttpMethod::Get,
            known ? "/v1/events?after=" + std::to_string(latest) + wait : std::string("/v1/events?limit=1"));
        json body;
        if (answer && answer->status == 200)
            body = json::parse(answer->body, nullptr, false);
        if (!body.is_object() || !body.contains("latest") || !body["latest"].is_number_unsigned()) {
            // Unreachable, refused, or not an answer of events: the polls say why; asked again later.
            pause = backoff;
            backoff = std::min(backoff * 2, m_config.maxBackoff);
            known = false;
            continue;
        }
        backoff = m_config.minBackoff;
        const auto newest = body["latest"].get<std::uint64_t>();
        // A daemon that does not hold event reads (from before `waitMs`) answers at once: the polls alone follow it.
        if (known && !body.contains("waitedMs"))
            return;
        // Newer events, or fewer (a restarted daemon): the poller reads what changed.
        const bool changed = known && newest != latest;
        const bool heldNone = known && !changed && body.value("waitedMs", std::int64_t { 0 }) == 0;
        latest = newest;
        known = true;
        if (changed) {
            {
                const std::lock_guard lock(m_mutex);
                m_changed = true;
            }
            m_wake.notify_one();
        }
        // After a change, a burst's next events are taken together; a daemon whose event waiters are all taken
        // answers at once with nothing (`kMaxEventWaiters`): asked again at the poll's pace.
        pause = changed ? m_config.minChangeGap : heldNone ? m_config.pollInterval : std::chrono::milliseconds(0);
    }
}

void RemoteBackend::follow()
{
    for (;;) {
        LogsCommand command;
        {
            std::unique_lock lock(m_mutex);
            m_followWake.wait(lock, [this] { return m_stopping || !m_follows.empty(); });
            if (m_stopping) {
                std::deque<LogsCommand> left;
                left.swap(m_follows);
                lock.unlock();
                for (const LogsCommand& c : left)
                    refuse(c, "the console has stopped");
                return;
            }
            command = std::move(m_follows.front());
            m_follows.pop_front();
        }
        execute(*m_followClient, command);
    }
}

void RemoteBackend::keepNodes(const json& answer)
{
    m_nodeRows.clear();
    m_nodeCursor.clear();
    const json rows = answer.value("nodes", json::array());
    for (const json& row : rows) {
        // A daemon too old to fingerprint its rows, or a row the snapshot will name as wrong: read them all each time.
        if (!row.is_object() || !row.contains("id") || !row["id"].is_number_integer() || !row.contains("fingerprint")
            || !row["fingerprint"].is_string()) {
            m_nodeRows.clear();
            return;
        }
        m_nodeRows[row["id"].get<std::int64_t>()] = row;
    }
    if (answer.contains("usageCursor") && answer["usageCursor"].is_string())
        m_nodeCursor = answer["usageCursor"].get<std::string>();
}

std::optional<json> RemoteBackend::nodesSinceLastPoll(api::ApiClient& client)
{
    // More changed rows than this are read in full (their ids would make a long URL).
    constexpr std::size_t kMaxRowsRefreshed = 256;
    if (m_nodeCursor.empty())
        return std::nullopt;
    const auto readAll = [this]() -> std::optional<json> {
        m_nodeCursor.clear(); // a 410 (the daemon restarted), an error or anything unexpected
        m_nodeRows.clear();
        return std::nullopt;
    };
    const auto read = [&](const std::string& target) {
        const auto response = client.request(HttpMethod::Get, target);
        json page = response && response->status == 200 ? json::parse(response->body, nullptr, false) : json();
        return page.is_object() && page.contains("nodes") && page["nodes"].is_array() ? page : json();
    };
    const json page = read("/v1/nodes?usageSince=" + m_nodeCursor);
    if (page.is_null() || !page.contains("usageCursor") || !page["usageCursor"].is_string())
        return readAll();
    std::set<std::int64_t> stale;
    std::string ids;
    for (const json& entry : page["nodes"]) {
        if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_number_integer()
            || !entry.contains("fingerprint") || !entry["fingerprint"].is_string())
            return readAll();
        const auto id = entry["id"].get<std::int64_t>();
        const auto kept = m_nodeRows.find(id);
        if (kept == m_nodeRows.end() || textOf(kept->second, "fingerprint") != entry["fingerprint"]) {
            stale.insert(id);
            ids += (ids.empty() ? "" : ",") + std::to_string(id);
        }
    }
    if (stale.size() > kMaxRowsRefreshed)
        return readAll();
    std::map<std::int64_t, json> fetched;
    if (!stale.empty()) {
        const json rows = read("/v1/nodes?ids=" + ids);
        if (rows.is_null())
            return readAll();
        for (const json& row : rows["nodes"])
            if (row.is_object() && row.contains("id") && row["id"].is_number_integer())
                fetched[row["id"].get<std::int64_t>()] = row;
    }
    json out = json::array();
    std::map<std::int64_t, json> rows;
    for (const json& entry : page["nodes"]) {
        const auto id = entry["id"].get<std::int64_t>();
        json row;
        if (stale.count(id)) {
            const auto it = fetched.find(id);
            if (it == fetched.end())
                continue; // gone between the two reads
            row = std::move(it->second);
        } else {
            row = std::move(m_nodeRows[id]);
            if (entry.contains("usage") && !api::applyNodeUsage(row, entry["usage"]))
                return readAll();
        }
        out.push_back(row);
        rows.emplace(id, std::move(row));
    }
    m_nodeRows = std::move(rows);
    m_nodeCursor = page["usageCursor"].get<std::string>();
    return out;
}

bool RemoteBackend::poll(api::ApiClient& client, std::chrono::milliseconds backoff)
{
    const int retryIn = static_cast<int>((backoff.count() + 999) / 1000);
    // One GET; a failure is reported and ends the poll. With `gone`, a 410 (a cursor of another run) sets it instead.
    auto get = [&](const std::string& target, json& into, bool absentIsNull, bool* gone = nullptr) -> bool {
        auto response = client.request(HttpMethod::Get, target);
        if (!response) {
            // The client names the daemon by host:port first; the message names it by its URL already.
            std::string why = response.error().message;
            if (const std::string prefix = "tidepoold at " + client.address() + ": "; why.rfind(prefix, 0) == 0)
                why.erase(0, prefix.size());
            fail(RemoteProblem { RemoteProblem::Kind::Unreachable, {}, std::move(why), 0, retryIn });
            return false;
        }
        if (response->status == 404 && absentIsNull) {
            into = json(); // tidepoold runs without a database: no proposals
            return true;
        }
        if (response->status == 410 && gone) {
            *gone = true;
            return true;
        }
        if (response->status == 401) {
            fail(RemoteProblem { RemoteProblem::Kind::Unauthorised, {}, errorOf(*response), 401, retryIn });
            return false;
        }
        if (response->status < 200 || response->status >= 300) {
            fail(RemoteProblem { RemoteProblem::Kind::Refused, {}, "GET " + target + ": " + errorOf(*response),
                response->status, retryIn });
            return false;
        }
        into = json::parse(response->body, nullptr, false);
        if (into.is_discarded() || !into.is_object()) {
            fail(RemoteProblem { RemoteProblem::Kind::BadAnswer, {}, "GET " + target + " did not answer a JSON object",
                response->status, retryIn });
            return false;
        }
        return true;
    };
    ApiState state;
    json nodes, pools, pending, approved, recent, whoami;
    // Proposals: the open ones whatever their age, and the newest closed ones (a daemon keeps months of them), in
    // three pages that any tidepoold answers (one that knows no `limit` sends all, which is merged the same way).
    if (!get("/v1/summary", state.summary, false))
        return false;
    if (auto rows = nodesSinceLastPoll(client))
        nodes = json { { "nodes", *std::move(rows) } };
    else if (get("/v1/nodes", nodes, false))
        keepNodes(nodes);
    else
        return false;
    if (!get("/v1/pools", pools, false) || !get("/v1/proposals?state=pending", pending, true)
        || !get("/v1/proposals?state=approved", approved, true)
        || !get("/v1/proposals?limit=" + std::to_string(kConsoleClosedProposals), recent, true)
        || !get("/v1/whoami", whoami, true))
        return false;
    state.nodes = nodes.value("nodes", json::array());
    state.pools = pools.value("pools", json::array());
    if (!pending.is_null() && !approved.is_null() && !recent.is_null()) {
        std::map<std::int64_t, json> byId;
        state.proposals = json::array();
        for (json* page : { &pending, &approved, &recent })
            for (json& p : page->value("proposals", json::array()))
                if (p.is_object() && p.contains("id") && p["id"].is_number_integer())
                    byId.emplace(p["id"].get<std::int64_t>(), std::move(p));
                else
                    state.proposals.push_back(std::move(p)); // the snapshot names what is wrong with it
        for (auto it = byId.rbegin(); it != byId.rend(); ++it)
            state.proposals.push_back(std::move(it->second));
    }
    // The live workloads: what changed since the last poll where the daemon can say, else every one of them. A
    // console polls every second, and reading 10,000 workloads cost the daemon's core thread 200 ms each time.
    state.workloads = json::array();
    const auto live = [](const json& w) {
        const std::string phase = textOf(w, "phase");
        return std::find(std::begin(kLivePhases), std::end(kLivePhases), phase) != std::end(kLivePhases);
    };
    bool changesRead = false;
    while (!m_workloadCursor.empty()) {
        const auto response = client.request(
            HttpMethod::Get, "/v1/workloads?changedSince=" + m_workloadCursor + "&limit=10000000&usage=1");
        json page = response && response->status == 200 ? json::parse(response->body, nullptr, false) : json();
        if (!page.is_object() || !page.contains("cursor") || !page["cursor"].is_string() || !page.contains("workloads")
            || !page["workloads"].is_array()) {
            m_workloadCursor.clear(); // a 410 (the daemon restarted) or anything unexpected: read them all
            break;
        }
        for (json& w : page["workloads"]) {
            if (!w.is_object() || !w.contains("id") || !w["id"].is_number_integer()) {
                state.workloads.push_back(std::move(w)); // the snapshot names what is wrong with it
                continue;
            }
            const auto id = w["id"].get<std::int64_t>();
            if (live(w))
                m_liveWorkloads[id] = std::move(w);
            else
                m_liveWorkloads.erase(id);
        }
        m_workloadCursor = page["cursor"].get<std::string>();
        takeUsage(page);
        if (!flagOf(page, "more")) {
            changesRead = true;
            break;
        }
    }
    if (!changesRead) {
        std::map<std::int64_t, json> all;
        std::string cursor;
        m_workloadUsage.clear();
        for (const char* phase : kLivePhases) {
            json page;
            // Every workload of the phase: a limit far above what one daemon keeps.
            if (!get(std::string("/v1/workloads?phase=") + phase + "&limit=10000000&usage=1", page, false))
                return false;
            for (const json& u : page.value("usage", json::array()))
                addUsage(u);
            // The first page's cursor: whatever changed while the others were read comes with the next poll.
            if (cursor.empty() && page.contains("cursor") && page["cursor"].is_string())
                cursor = page["cursor"].get<std::string>();
            for (json& w : page["workloads"]) {
                if (w.is_object() && w.contains("id") && w["id"].is_number_integer()) {
                    // The id first: the right side of an assignment is evaluated first, and json's operator= takes
                    // its argument by value, so `all[w["id"]...] = std::move(w)` would read the moved-from `w`.
                    const auto id = w["id"].get<std::int64_t>();
                    all[id] = std::move(w);
                } else
                    state.workloads.push_back(std::move(w));
            }
        }
        m_liveWorkloads = std::move(all);
        m_workloadCursor = cursor;
    }
    // Each row with what it uses now where the daemon measures it ("usedNow"): its `measured` is as of its last change.
    for (const auto& [id, w] : m_liveWorkloads) {
        state.workloads.push_back(w);
        if (const auto used = m_workloadUsage.find(id); used != m_workloadUsage.end())
            state.workloads.back()["usedNow"] = json::array({ used->second.first, used->second.second });
    }
    auto snapshot = snapshotFromApi(state, ++m_sequence, m_config.endpoint.url);
    if (!snapshot) {
        fail(RemoteProblem { RemoteProblem::Kind::BadAnswer, {}, snapshot.error().message, 0, retryIn });
        return false;
    }
    // The Accelerators, Forecasts and Events views and the host alerts: only what is new since the last poll.
    json devices, events, forecasts, alerts;
    bool devicesGone = false; // the device cursor is of another run of the daemon: read them all
    if (!get(m_views.devicesTarget(), devices, true, &devicesGone))
        return false;
    if (devicesGone) {
        m_views.forgetDeviceCursor();
        if (!get(m_views.devicesTarget(), devices, true))
            return false;
    }
    if (!get(m_views.eventsTarget(), events, true) || !get(m_views.forecastsTarget(), forecasts, true)
        || !get(RemoteViews::alertsTarget(), alerts, true))
        return false;
    if (auto taken = m_views.take(devices, events, forecasts, alerts); !taken) {
        fail(RemoteProblem { RemoteProblem::Kind::BadAnswer, {}, taken.error().message, 0, retryIn });
        return false;
    }
    m_views.fill(**snapshot);
    // What the token may do (an older tidepoold has no /v1/whoami: not known, the core still decides).
    if (whoami.is_object()) {
        (*snapshot)->role = textOf(whoami, "role");
        (*snapshot)->actor = textOf(whoami, "actor");
    }
    if (m_events.snapshot)
        m_events.snapshot(std::move(*snapshot));
    return true;
}

void RemoteBackend::execute(api::ApiClient& client, const ProposalCommand& command)
{
    CommandOutcome outcome { command.requestId, command.proposalId, command.decision, false, {}, {} };
    auto answer = [this, &outcome] {
        if (m_events.outcome)
            m_events.outcome(std::move(outcome));
    };
    if (command.decision == Decision::Invalid) {
        outcome.message = "no decision given";
        return answer();
    }
    const bool approve = command.decision == Decision::Approve;
    const std::string target
        = "/v1/proposals/" + std::to_string(command.proposalId) + (approve ? "/approve" : "/reject");
    // The comment is the rejection's reason, or the approval's note; tidepoold audits either.
    const json body = command.comment.empty() ? json::object() : json { { "comment", command.comment } };
    auto response = client.request(HttpMethod::Post, target, body.dump());
    if (!response) {
        outcome.message = response.error().message;
        return answer();
    }
    const json answered = json::parse(response->body, nullptr, false);
    if (response->status >= 200 && response->status < 300 && answered.is_object()) {
        outcome.ok = true;
        outcome.state = textOf(answered, "state");
        outcome.message = textOf(answered, "detail");
        // The snapshot that shows the decision first, then the outcome (as the embedded core answers): the console
        // never has the outcome while its view of the proposal is older. (A failed poll says so itself.)
        (void)poll(client, m_config.minBackoff);
        return answer();
    }
    outcome.message = errorOf(*response) + " (HTTP " + std::to_string(response->status) + ")";
    // The proposal's state as the daemon has it now, when it can say.
    if (response->status != 401) {
        auto current = client.request(HttpMethod::Get, "/v1/proposals/" + std::to_string(command.proposalId));
        if (current && current->status == 200) {
            const json p = json::parse(current->body, nullptr, false);
            if (p.is_object())
                outcome.state = textOf(p, "state");
        }
    }
    answer();
}

void RemoteBackend::execute(api::ApiClient& client, const MoveCommand& command)
{
    if (!m_events.moved)
        return;
    MoveResult result;
    result.requestId = command.requestId;
    result.workloadId = command.workloadId;
    result.node = command.node;
    result.tier = command.tier;
    result.pool = command.pool;
    // The target as `executeMove` gives it to an embedded core: the tier only when no node is named.
    json body = json::object();
    if (!command.node.empty())
        body["node"] = command.node;
    else if (!command.tier.empty())
        body["tier"] = command.tier;
    if (!command.pool.empty())
        body["pool"] = command.pool;
    auto response = client.request(
        HttpMethod::Post, "/v1/workloads/" + std::to_string(command.workloadId) + "/move", body.dump());
    if (!response) {
        result.refusal = "unreachable";
        result.message = "cannot reach tidepoold at " + m_config.endpoint.url + ": " + response.error().message;
        return m_events.moved(std::move(result));
    }
    // The answer of core/api/move_api.h: where it went, or the core's refusal with the scheduler's reasons.
    const json answer = json::parse(response->body, nullptr, false);
    const auto text = [&answer](const char* key) { return textOf(answer, key); };
    if (answer.is_object() && (answer.contains("moved") || answer.contains("refusal"))) {
        result.ok = response->status == 200 && flagOf(answer, "moved");
        result.workload = text("name");
        result.refusal = result.ok ? std::string() : text("refusal");
        result.node = text("node");
        if (const std::string tier = text("tier"); !tier.empty())
            result.tier = tier;
        result.poolTier = text("poolTier");
        result.message = result.ok ? text("message") : text("error");
        const auto considered = answer.find("nodesConsidered");
        if (considered != answer.end() && considered->is_number_integer())
            result.nodesConsidered = considered->get<int>();
        const auto reasons = answer.find("reasons");
        if (reasons != answer.end() && reasons->is_array())
            for (const json& r : *reasons)
                if (r.is_object() && r.value("reason", json()).is_string()
                    && r.value("nodes", json()).is_number_integer())
                    result.reasons.push_back(ReasonCount { r["reason"].get<std::string>(), r["nodes"].get<int>() });
        if (result.ok || !result.refusal.empty())
            return m_events.moved(std::move(result));
    }
    // The call itself was refused (a token without the operator role, a read-only daemon, one without the endpoint):
    // the daemon's own words.
    result.ok = false;
    result.refusal = response->status == 503 ? "read_only" : "refused";
    result.message = errorOf(*response) + " (HTTP " + std::to_string(response->status) + ")";
    m_events.moved(std::move(result));
}

void RemoteBackend::execute(api::ApiClient& client, const ReportCommand& command)
{
    if (!m_events.reported)
        return;
    const report::ReportRequest& r = command.request;
    std::string target = "/v1/report?from=" + std::to_string(r.fromMs) + "&to=" + std::to_string(r.toMs)
        + "&scope=" + std::string(report::toString(r.scope)) + "&language=" + std::string(report::toString(r.language));
    if (!r.name.empty()) {
        static const char kHex[] = "0123456789ABCDEF";
        target += "&name=";
        for (const unsigned char c : r.name) {
            if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
                target += static_cast<char>(c);
            } else {
                target += '%';
                target += kHex[c >> 4];
                target += kHex[c & 15];
            }
        }
    }
    ReportResult result { command.requestId, nullptr, {} };
    auto response = client.request(HttpMethod::Get, target);
    if (!response) {
        result.message = "cannot reach tidepoold at " + m_config.endpoint.url + ": " + response.error().message;
    } else {
        const json body = json::parse(response->body, nullptr, false);
        if (response->status != 200) {
            result.message = body.is_object() && body.contains("error") && body["error"].is_string()
                ? body["error"].get<std::string>()
                : "tidepoold answered HTTP " + std::to_string(response->status);
        } else if (auto data = report::reportFromJson(body); !data) {
            result.message = data.error().message;
        } else {
            result.data = std::make_shared<const report::ReportData>(std::move(*data));
        }
    }
    m_events.reported(std::move(result));
}

void RemoteBackend::execute(api::ApiClient& client, const PoolCommand& command)
{
    if (!m_events.poolChanged)
        return;
    PoolResult result { command.requestId, command.action, command.name, false, {} };
    // Pool names are [A-Za-z0-9._-] (the daemon refuses others), so the path needs no escaping; one that is not is
    // refused here rather than sent somewhere else.
    if (command.action != PoolAction::Create
        && (command.name.empty()
            || command.name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
                != std::string::npos)) {
        result.message = "no pool is named \"" + command.name + "\"";
        return m_events.poolChanged(std::move(result));
    }
    const std::string path = "/v1/pools" + (command.action == PoolAction::Create ? std::string() : "/" + command.name);
    const HttpMethod method = command.action == PoolAction::Create ? HttpMethod::Post
        : command.action == PoolAction::Update                     ? HttpMethod::Put
                                                                   : HttpMethod::Delete;
    auto response = command.action == PoolAction::Delete ? client.request(method, path)
                                                         : client.request(method, path, command.body.dump());
    if (!response) {
        result.message = "cannot reach tidepoold at " + m_config.endpoint.url + ": " + response.error().message;
        return m_events.poolChanged(std::move(result));
    }
    result.ok = response->status == 200 || response->status == 201;
    if (!result.ok)
        result.message = errorOf(*response) + " (HTTP " + std::to_string(response->status) + ")";
    m_events.poolChanged(std::move(result));
    // The pools as they are now, at once rather than at the next poll.
    const std::lock_guard lock(m_mutex);
    m_refresh = true;
}

void RemoteBackend::execute(api::ApiClient& client, const ResizeCommand& command)
{
    if (!m_events.resized)
        return;
    ResizeResult result = stoppedResult(command, {});
    const json body { { "cpuMillis", command.cpuMillis }, { "memoryMiB", command.memoryMiB },
        { "cpuLimitMillis", command.cpuLimitMillis }, { "memoryLimitMiB", command.memoryLimitMiB } };
    auto response = client.request(
        HttpMethod::Post, "/v1/workloads/" + std::to_string(command.workloadId) + "/resize", body.dump());
    if (!response) {
        result.message = "cannot reach tidepoold at " + m_config.endpoint.url + ": " + response.error().message;
        return m_events.resized(std::move(result));
    }
    const json answer = json::parse(response->body, nullptr, false);
    result.ok = response->status == 200 && answer.is_object();
    if (!result.ok) {
        result.message = errorOf(*response) + " (HTTP " + std::to_string(response->status) + ")";
    } else {
        result.message = textOf(answer, "message");
        result.node = textOf(answer, "node");
        result.sentToAgent = flagOf(answer, "sentToAgent");
    }
    m_events.resized(std::move(result));
    // The workload as it is now, at once rather than at the next poll.
    const std::lock_guard lock(m_mutex);
    m_refresh = true;
}

void RemoteBackend::execute(api::ApiClient& client, const NodeCommand& command)
{
    if (!m_events.nodeChanged)
        return;
    NodeResult result = stoppedResult(command, {});
    // Node names are what agents may be called ([A-Za-z0-9._-]); one that is not is refused here rather than sent
    // somewhere else.
    if (command.node.empty()
        || command.node.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
            != std::string::npos) {
        result.message = "no node is named \"" + command.node + "\"";
        return m_events.nodeChanged(std::move(result));
    }
    const char* operation = command.action == NodeAction::Cordon ? "cordon"
        : command.action == NodeAction::Uncordon                 ? "uncordon"
                                                                 : "drain";
    json body = json::object();
    if (command.action != NodeAction::Uncordon && !command.reason.empty())
        body["reason"] = command.reason;
    if (command.action == NodeAction::Drain && command.maxParallel > 0)
        body["maxParallel"] = command.maxParallel;
    auto response = client.request(HttpMethod::Post, "/v1/nodes/" + command.node + "/" + operation, body.dump());
    if (!response) {
        result.message = "cannot reach tidepoold at " + m_config.endpoint.url + ": " + response.error().message;
        return m_events.nodeChanged(std::move(result));
    }
    const json answer = json::parse(response->body, nullptr, false);
    result.ok = response->status == 200 && answer.is_object();
    if (!result.ok) {
        result.message = errorOf(*response) + " (HTTP " + std::to_string(response->status) + ")";
    } else {
        result.cordon = textOf(answer, "cordon");
        result.lifted = textOf(answer, "lifted");
        result.moved = static_cast<std::size_t>(std::max<std::int64_t>(0, wholeOf(answer, "moved")));
        result.paced = answer.contains("waiting");
        result.waiting = std::max<std::int64_t>(0, wholeOf(answer, "waiting"));
        if (const auto list = answer.find("workloads"); list != answer.end() && list->is_array())
            for (const json& w : *list)
                if (w.is_object() && !flagOf(w, "moved"))
                    result.stayed.push_back(stayedText(textOf(w, "name"), wholeOf(w, "workload"), textOf(w, "error")));
    }
    m_events.nodeChanged(std::move(result));
    // The nodes as they are now, at once rather than at the next poll.
    const std::lock_guard lock(m_mutex);
    m_refresh = true;
}

void RemoteBackend::execute(api::ApiClient& client, const LogsCommand& command)
{
    if (!m_events.logsRead)
        return;
    LogsResult result = logsResultFor(command);
    std::string target = "/v1/workloads/" + std::to_string(command.workloadId)
        + "/logs?stream=" + (command.stderrStream ? "stderr" : "stdout") + "&bytes=" + std::to_string(command.maxBytes);
    if (command.from >= 0) {
        target += "&from=" + std::to_string(command.from);
        if (command.incarnation >= 0)
            target += "&incarnation=" + std::to_string(command.incarnation);
        if (command.waitMs > 0)
            target += "&waitMs=" + std::to_string(command.waitMs);
    }
    if (command.previous)
        target += "&previous=1";
    auto response = client.request(HttpMethod::Get, target);
    if (!response) {
        result.message = "cannot reach tidepoold at " + m_config.endpoint.url + ": " + response.error().message;
        return m_events.logsRead(std::move(result));
    }
    if (response->status != 200) {
        result.message = errorOf(*response) + " (HTTP " + std::to_string(response->status) + ")";
        return m_events.logsRead(std::move(result));
    }
    const nlohmann::json j = nlohmann::json::parse(response->body, nullptr, false);
    if (!j.is_object() || !j.value("data", nlohmann::json()).is_string()
        || !j.value("sizeBytes", nlohmann::json()).is_number_integer()) {
        result.message = "tidepoold answered the output of workload " + std::to_string(command.workloadId)
            + " in a form this console does not read";
        return m_events.logsRead(std::move(result));
    }
    result.ok = true;
    result.node = textOf(j, "node");
    result.data = j["data"].get<std::string>();
    result.sizeBytes = j["sizeBytes"].get<std::int64_t>();
    result.truncated = flagOf(j, "truncated");
    // Positions from a daemon and an agent that can be followed; whole numbers, the end not before the start.
    const auto position = [&](const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_number_integer() && it->get<std::int64_t>() >= 0 ? it->get<std::int64_t>() : -1;
    };
    if (position("start") >= 0 && position("end") >= position("start")) {
        result.start = position("start");
        result.end = position("end");
    }
    if (const auto it = j.find("incarnation"); it != j.end() && it->is_number_integer())
        result.incarnation = static_cast<std::int32_t>(
            std::clamp<std::int64_t>(it->get<std::int64_t>(), 0, protocol::kMaxIncarnation));
    result.phase = textOf(j, "phase");
    const auto phase = api::parseWorkloadPhase(result.phase);
    result.ended = phase && api::isFinal(*phase);
    m_events.logsRead(std::move(result));
}

void RemoteBackend::addUsage(const json& u)
{
    // [id, cpuMillis, memoryMiB]; anything else is left out (the row keeps its share of its pool's use).
    if (u.is_array() && u.size() == 3 && u[0].is_number_integer() && u[1].is_number_integer()
        && u[2].is_number_integer())
        m_workloadUsage[u[0].get<std::int64_t>()] = { u[1].get<std::int64_t>(), u[2].get<std::int64_t>() };
}

void RemoteBackend::takeUsage(const json& page)
{
    m_workloadUsage.clear(); // every workload measured now, or none from a daemon that does not say
    for (const json& u : page.value("usage", json::array()))
        addUsage(u);
}

} // namespace tidepool::ui
