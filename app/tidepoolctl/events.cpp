// `events` and `alerts`: the cluster's timeline and the daemon machine's alerts, as the console's Events view and
// Overview show them (`GET /v1/events`, `GET /v1/alerts`, served by tidepoold's console feed).
#include "app/tidepoolctl/commands.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <thread>

namespace tidepool::ctl {

using api::HttpMethod;

namespace {

// What the daemon's timeline keeps and answers at most at once (ui/bridge/event_collector.h, kMaxEventRows).
constexpr std::int64_t kEventPage = 5000;
constexpr std::int64_t kMaxSequence = std::int64_t { 1 } << 53;

struct EventFilter {
    std::optional<std::string> category;
    std::optional<std::string> subject;
    std::optional<std::string> node;

    bool matches(const json& e) const
    {
        return (!category || text(e, "category") == *category) && (!subject || text(e, "subject") == *subject)
            && (!node || text(e, "node") == *node);
    }

    // The daemon filters too ("&category=...", percent-encoded): only the rows that match come back. (A daemon from
    // before ignores them and answers every row: `matches` is still applied to what comes.)
    std::string query() const
    {
        std::string out;
        for (const auto& [key, value] :
            { std::pair { "category", &category }, std::pair { "subject", &subject }, std::pair { "node", &node } })
            if (*value)
                out += std::string("&") + key + "=" + percentEncoded(**value);
        return out;
    }
};

std::vector<std::string> eventCells(const json& e)
{
    const std::string from = text(e, "from", "");
    const std::string to = text(e, "to", "");
    const std::string change = from.empty() && to.empty() ? "-" : (from.empty() ? "" : from + " -> ") + to;
    const std::string actor = text(e, "actor", "");
    const std::string node = text(e, "node", "");
    return { text(e, "sequence"), utcTime(integer(e, "atMs")), text(e, "category"), text(e, "subject"), change,
        node.empty() ? "-" : node, actor.empty() ? "-" : actor, clip(text(e, "detail", ""), 100) };
}

const std::vector<std::string> kEventHeaders { "SEQ", "TIME", "CATEGORY", "SUBJECT", "CHANGE", "NODE", "ACTOR",
    "DETAIL" };

void printEvents(const std::vector<json>& events)
{
    Table table(kEventHeaders);
    for (const json& e : events)
        table.add(eventCells(e));
    table.print();
}

// One page of the timeline: the oldest `limit` after `after` that match, the newest sequence the daemon has and the
// last it looked at (where the next page starts).
struct EventPage {
    std::vector<json> events;
    std::int64_t latest = 0;
    std::int64_t scanned = 0;
    // How long the daemon held the read waiting for a row (`waitMs`); nullopt: a daemon from before waiting reads.
    std::optional<std::int64_t> waitedMs;
};

// With `waitMs`, the daemon holds the read until a row that matches comes or that long has passed.
Result<EventPage> eventPage(
    Session& session, std::int64_t after, std::int64_t limit, const EventFilter& filter = {}, std::int64_t waitMs = 0)
{
    auto body = session.call(HttpMethod::Get,
        "/v1/events?after=" + std::to_string(after) + "&limit=" + std::to_string(limit) + filter.query()
            + (waitMs > 0 ? "&waitMs=" + std::to_string(waitMs) : std::string()));
    if (!body)
        return tl::unexpected(body.error());
    const json j = json::parse(*body, nullptr, false);
    if (!j.is_object() || !j.contains("events") || !j["events"].is_array() || !j.contains("latest")
        || !j["latest"].is_number_integer())
        return tl::unexpected(
            Failure { 1, "unexpected response from tidepoold's /v1/events: not {\"events\": [...], \"latest\": N}" });
    EventPage page;
    page.latest = j["latest"].get<std::int64_t>();
    for (const json& e : j["events"])
        if (e.is_object() && e.contains("sequence") && e["sequence"].is_number_integer()) {
            page.scanned = std::max(page.scanned, e["sequence"].get<std::int64_t>());
            page.events.push_back(e);
        }
    // A daemon from before says nothing of what it scanned: the last row it sent is.
    if (const auto scanned = j.find("scanned"); scanned != j.end() && scanned->is_number_integer())
        page.scanned = std::max(page.scanned, scanned->get<std::int64_t>());
    if (const auto waited = j.find("waitedMs"); waited != j.end() && waited->is_number_integer())
        page.waitedMs = waited->get<std::int64_t>();
    return page;
}

void printEvent(const json& e, Output output)
{
    if (output == Output::Json) {
        std::printf("%s\n", e.dump().c_str());
    } else {
        // One row at a time: columns apart by two spaces, not aligned with the rows before.
        std::string line;
        for (const std::string& cell : eventCells(e))
            line += (line.empty() ? "" : "  ") + terminalSafe(cell);
        std::printf("%s\n", line.c_str());
    }
    std::fflush(stdout);
}

} // namespace

Result<void> events(Session& session, const Words& words)
{
    const std::string cmd = "events";
    auto parsed = parseOptions(cmd, words,
        { { "--after" }, { "--limit" }, { "--category" }, { "--subject" }, { "--node" }, { "-f", false },
            { "--follow", false }, { "--interval-ms" } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (auto none = noPositionals(cmd, *parsed); !none)
        return tl::unexpected(none.error());
    std::optional<std::int64_t> after;
    if (const auto value = parsed->last("--after")) {
        auto n = integerValue(cmd, "--after", *value, 0, kMaxSequence);
        if (!n)
            return tl::unexpected(n.error());
        after = *n;
    }
    std::int64_t limit = 50;
    if (const auto value = parsed->last("--limit")) {
        auto n = integerValue(cmd, "--limit", *value, 1, kEventPage);
        if (!n)
            return tl::unexpected(n.error());
        limit = *n;
    }
    EventFilter filter;
    for (const auto& [option, field] : { std::pair { "--category", &filter.category },
             std::pair { "--subject", &filter.subject }, std::pair { "--node", &filter.node } })
        if (const auto value = parsed->last(option)) {
            if (value->empty() || value->size() > 253)
                return usageError(cmd + ": " + option + " must name something (1 to 253 bytes)");
            *field = *value;
        }
    const auto interval = followInterval(cmd, *parsed);
    if (!interval)
        return tl::unexpected(interval.error());
    const bool following = interval->has_value();

    // What to show first: the first `limit` matching after --after, or the newest `limit` matching among what the
    // daemon keeps (read forward from the oldest it keeps, in pages).
    std::int64_t position = 0;
    if (after) {
        position = *after;
    } else {
        auto newest = eventPage(session, 0, 1);
        if (!newest)
            return tl::unexpected(newest.error());
        position = std::max<std::int64_t>(0, newest->latest - kEventPage);
    }
    std::deque<json> shown;
    std::int64_t latest = 0;
    for (;;) {
        auto page = eventPage(session, position, kEventPage, filter);
        if (!page)
            return tl::unexpected(page.error());
        latest = page->latest;
        position = std::max(position, page->scanned);
        for (json& e : page->events) {
            if (!filter.matches(e))
                continue;
            if (after && static_cast<std::int64_t>(shown.size()) == limit)
                continue; // the first `limit` after --after are shown; the rest are read past
            shown.push_back(std::move(e));
            if (!after && static_cast<std::int64_t>(shown.size()) > limit)
                shown.pop_front();
        }
        if (page->events.empty() || position >= latest)
            break;
    }
    const std::vector<json> first(shown.begin(), shown.end());
    if (!following) {
        // The next page's command, when --after left some unshown.
        return session.show(json { { "events", first }, { "latest", latest } }.dump(), [&](const json&) {
            printEvents(first);
            if (after && !first.empty() && integer(first.back(), "sequence") < latest)
                std::printf("more: tidepoolctl events --after %lld\n",
                    static_cast<long long>(integer(first.back(), "sequence")));
        });
    }
    // Following: the rows so far, then each new one as it comes, until interrupted.
    const Output output = session.output();
    if (output == Output::Json) {
        for (const json& e : first)
            printEvent(e, output);
    } else {
        printEvents(first);
        std::fflush(stdout);
    }
    // Each read waits in the daemon for what comes next, within the request's time limit; a daemon that answers at
    // once with nothing (from before waiting reads, or with too many waiting) is asked again after `interval`.
    const std::int64_t waitMs = std::min<std::int64_t>(30'000, session.timeout().count() / 2);
    std::string waitingFor;
    bool askAtOnce = true; // the first read, and each after a read the daemon held
    for (;;) {
        if (!askAtOnce)
            std::this_thread::sleep_for(**interval);
        auto page = eventPage(session, position, kEventPage, filter, waitMs);
        askAtOnce = page && page->waitedMs && (!page->events.empty() || *page->waitedMs > 0);
        if (!page) {
            if (page.error().message != waitingFor)
                std::fprintf(stderr, "%s\n",
                    terminalSafe("tidepoolctl: " + page.error().message + "; trying again every "
                        + std::to_string((*interval)->count()) + " ms")
                        .c_str());
            waitingFor = page.error().message;
            continue;
        }
        waitingFor.clear();
        if (page->latest < position) {
            // The daemon started again: its timeline is numbered anew.
            std::fprintf(stderr, "tidepoolctl: tidepoold's timeline began again (it restarted): from its start\n");
            position = 0;
            continue;
        }
        position = std::max(position, page->scanned);
        for (const json& e : page->events)
            if (filter.matches(e))
                printEvent(e, output);
    }
}

Result<void> alerts(Session& session, const Words& words)
{
    const std::string cmd = "alerts";
    auto parsed = parseOptions(cmd, words, {});
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (auto none = noPositionals(cmd, *parsed); !none)
        return tl::unexpected(none.error());
    return session.callAndShow(HttpMethod::Get, "/v1/alerts", [](const json& j) {
        const json list = j.value("alerts", json::array());
        if (!list.is_array() || list.empty()) {
            std::printf("no alerts\n");
            return;
        }
        Table table({ "KIND", "SUBJECT", "DETAIL" });
        for (const json& a : list)
            table.add({ text(a, "kind"), text(a, "subject"), text(a, "detail") });
        table.print();
    });
}

} // namespace tidepool::ctl
