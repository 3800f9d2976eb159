// tidepoolctl: the operator's command line over tidepoold's HTTP/JSON API (core/api/http_api.h). This file is the
// composition root: it takes out the global options, builds the session and hands the rest to one command
// (commands.h). Each command checks every option before anything is sent, makes one or two requests over one
// connection and prints aligned tables for people or, with `-o json`, the daemon's JSON unchanged for scripts.
//
// Exit status: 0 done; 1 the daemon refused the request (its `error` on stderr) or could not be reached (the address
// on stderr); 2 the command line is wrong (the message names the option). The operator token is read from a file
// and never printed.
#include "app/tidepoolctl/commands.h"

#include "core/net/http_server.h"

#include <cstdio>
#include <cstdlib>

namespace {

using namespace tidepool;
using namespace tidepool::ctl;

constexpr const char* kUsage
    = R"(usage: tidepoolctl [--server [https://]HOST:PORT] [--ca FILE] [--token-file FILE] [-o table|json] COMMAND ...

Global options (anywhere before `--`):
  --server URL         tidepoold's API: HOST:PORT or http://HOST:PORT, or https://HOST:PORT for a daemon started
                       with --api-tls-cert (default $TIDEPOOL_SERVER, else 127.0.0.1:7080)
  --ca FILE            with https://: the CA (PEM) the daemon's certificate must chain to, e.g. the ca.pem of
                       `tidepoold certs init` (default $TIDEPOOL_CA, else the system's trust store); the
                       certificate must also name the host in --server
  --token-file FILE    the operator token (as `tidepoold token add` printed it), first line of FILE
                       (default $TIDEPOOL_TOKEN_FILE)
  -o, --output FORMAT  table (default) or json: the daemon's JSON unchanged, for scripts
  --timeout-ms N       time limit of each request (default 10000)

Commands:
  submit --name N --cpu MILLIS --memory MIB [options] [-- COMMAND ARGS...]
      --memory-limit MIB (its own limit, at least --memory; default: only its pool's)  --cpu-limit MILLIS
      --pool P  --priority N  --latency real-time|latency-sensitive|batch  --tier hot|warm|cold
      --isa ISA (repeatable, or comma-separated: x86_64, aarch64, riscv64)  --allow-translation
      --no-right-size (the evaluation never proposes new requests for it from its measured use)
      --gpu COUNT | --gpu-share MILLI  --gpu-model M (repeatable)  --gpu-memory MIB
      --env K=V (repeatable)
      --restart never|on-failure|always (start it again when it ends: on-failure, after a non-zero exit, a
                     signal, the OOM killer or a launch that could not start; always, also after exit 0; an
                     operator's cancel never does; after 1 s, doubling in a crash loop up to 5 min; default never)
      --max-restarts N (with --restart: at most N restarts in all; default no limit)
      --max-runtime DURATION (each launch stopped and failed once it has run this long, not restarted: 90s,
                     30m, 2h, 7d; a bare number is seconds; 1 s to 366 days)
      --stop-grace DURATION (between SIGTERM and SIGKILL when it is stopped: 0s to 1h; default the
                     daemon's, 10 s)
      -f FILE.json   a submission object (options override its fields) or {"workloads": [...]}
  get ID                       one workload
  list [--phase P] [--node N] [--limit K] [--after ID]
  why ID                       why a workload is pending, or why it runs where it does
  logs ID [--stderr] [--bytes N] [-f|--follow [--interval-ms N] | --previous]
                               the end of a workload's output (the last 64 KiB of stdout by default, at most
                               262144 bytes), read from the agent of its node, running or ended (operator role);
                               with --follow, then what it writes as it writes it (an agent from before waiting
                               reads: every second, --interval-ms), until it has ended and all it wrote is shown
  cancel ID
  move ID (--node N | --tier hot|warm|cold | --pool P)
                               moves a waiting or running workload: onto node N, onto the best node of a tier,
                               or into pool P (the core picks one of its nodes; with --node or --tier, that one);
                               the scheduler's rules and the pool's quota decide, and a refusal says why, with how
                               many nodes each reason refused (exit status 1)
  resize ID [--cpu MILLIS] [--memory MIB] [--cpu-limit MILLIS|none] [--memory-limit MIB|none]
                               changes what a workload asks for (and its own limits): a waiting one is placed at
                               its new size; a running one is resized where it runs, without a restart, when its
                               node has room and its pool quota (its agent applies the new weight and limits to
                               its cgroup; a memory limit below what it uses is refused); exit status 1 when
                               refused, with why (operator role)
  nodes [NAME]                 the nodes (STATE ends ",cordoned" where no new work lands), or one
  nodes cordon NAME [--reason TEXT]
                               no new work lands on it; what runs there stays (operator role)
  nodes uncordon NAME          lifts its cordon, whoever set it (a powered-down node's: it powers up)
  nodes drain NAME [--reason TEXT] [--max-parallel N [--deadline DUR]] [--wait [--interval-ms N]]
                               cordons it and moves each workload placed there onto the best other node that
                               takes it (stopped there, launched again); exit status 1 when some stay, each with
                               the reason no other node took it. --max-parallel N: at most N moving at once, the
                               next as a moved one runs, until the node is empty; --deadline 30m|2h: then what is
                               left moves at once and what no node takes is queued again; --wait: prints its
                               progress until the node is empty (exit status 1 if uncordoned first)
  pools
  pools create NAME [--cpu MILLIS] [--memory MIB] [--tier T] [--business-line B] [--io-weight W]
                 [--mem-bandwidth MBPS] [--net-bandwidth MBITPS] [--gpu SHARE] [--npu SHARE] [--fpga SHARE]
                 [--max-disrupted N|P%]
  pools set NAME [--cpu MILLIS|unlimited] [--memory MIB|unlimited] [--tier T|any] [--business-line B|""]
                 [--io-weight W] [--mem-bandwidth MBPS|unlimited] [--net-bandwidth MBITPS|unlimited]
                 [--gpu|--npu|--fpga SHARE|unlimited] [--max-disrupted N|P%|none]
                               (fields not given keep their values; "" clears the business line)
                               accelerator quotas are in the share units workloads ask for: 1000 a whole GPU,
                               NPU cores, FPGA time-slice slots; 0 keeps the pool off that kind;
                               --max-disrupted: the pool's disruption budget, how many of its workloads drains and
                               approved migrations may have moved and not running again at once, as a number or
                               a percentage of its workloads, rounded up (0: none moves until a drain's deadline;
                               none: no budget)
  pools delete NAME            refused for the default pool and while the pool holds workloads that have not ended
                               (cancel or move them first); its nodes' agents remove its cgroups
  summary
  events [--limit K] [--after SEQ] [--category C] [--subject NAME] [--node NAME] [-f|--follow [--interval-ms N]]
                               the cluster's timeline, oldest first: placements, migrations, requeues, restarts,
                               stops, finishes, node state, cordon and drain changes, proposals and audited actions
                               (C: placement, migration, requeue, restart, stop, finish, node, cordon, drain, proposal,
                               approval, audit); the newest K that match (default 50) of what tidepoold keeps (5000), or the
                               first K after SEQ; with --follow, then each new one as soon as it happens (the daemon
                               holds each read until one comes; --interval-ms paces a daemon that cannot), until
                               interrupted
  alerts                       the daemon machine's disk and certificate alerts

Rebalancing (needs tidepoold started with --db):
  proposals [--state pending|approved|rejected|expired|applied|failed] [--limit K] [--before ID]
                               newest first, K at a time (default 1000); the last line says how to get the next
                               page. Closed proposals are kept 90 days by default (tidepoold's proposalDays)
  proposal show ID             one proposal: its effect, plan, decision and steps
  proposal approve ID          applies it if the state it was planned on still holds
  proposal reject ID [--reason TEXT]
  evaluate                     evaluates the cluster now; prints the proposals it made
  whatif [--profile P] [--pool NAME=MILLIS|unlimited]... [--pool-memory NAME=MIB|unlimited]...
         [--pool-gpu|--pool-npu|--pool-fpga NAME=SHARE|unlimited]... [--remove-node NAME]...
                               re-simulates the whole cluster with the change and prints the difference (moves,
                               work started or stopped, GPUs freed, latency-sensitive work at risk); changes nothing.
                               The quotas are checked as `pools set` checks them

History and audit (needs tidepoold started with --db):
  series                       the stored history series
  history --scope pool|node|tier --name NAME --resource RES [--from T] [--to T] [--resolution raw|5m]
                               one series' points (default: the last 24 hours, raw), CPU in cores, memory in
                               binary units, accelerators in devices, utilisation in percent
  audit [--after ID] [--limit K] [--from T] [--to T]
                               the audit log, oldest first (default at most 1000 entries)
                               T: Unix epoch ms, 2026-12-06T10:00:00Z (RFC 3339 / ISO 8601; an offset such as
                               +01:00 or none, which is UTC), a date 2026-12-06 (UTC), a time before now (-90s,
                               -30m, -1h, -7d, -2w) or now

Reports (needs tidepoold started with --db):
  report [--day DATE | --from T --to T] [--scope cluster|business-line|pool|tier] [--name N]
         [--language en|zh_CN] [--format pdf|html|csv|json] -o FILE
                               utilisation, tier occupancy, pending time, forecast accuracy, proposals, energy,
                               carbon and cost for the period (default: the last 24 hours); T is Unix epoch ms,
                               YYYY-MM-DD or YYYY-MM-DDTHH:MMZ (UTC); the format defaults to FILE's extension;
                               -o - writes html, csv or json to standard output. PDF works without a display

The token's role decides what the daemon accepts: viewer reads (all but `audit`); operator also submits, cancels,
moves, approves and rejects proposals, evaluates and runs what-if, and reads the audit log; admin also creates,
sets and deletes pools. A call the role may not make is refused with the role it needs (exit status 1).

Exit status: 0 done, 1 refused by the daemon or not reachable, 2 a wrong command line.
)";

struct CommandLine {
    GlobalOptions global;
    std::vector<std::string> words; // the command and its arguments
    bool help = false;
};

// Takes the global options out wherever they stand before `--`; the rest is the command's.
Result<CommandLine> parseCommandLine(int argc, char** argv)
{
    CommandLine line;
    const char* server = std::getenv("TIDEPOOL_SERVER");
    line.global.server = server && *server ? server : "127.0.0.1:7080";
    line.global.serverSource = server && *server ? "TIDEPOOL_SERVER" : "the default server";
    if (const char* tokenFile = std::getenv("TIDEPOOL_TOKEN_FILE"))
        line.global.tokenFile = tokenFile;
    if (const char* ca = std::getenv("TIDEPOOL_CA"); ca && *ca) {
        line.global.caFile = ca;
        line.global.caSource = "TIDEPOOL_CA";
    }
    bool afterDashes = false;
    for (int i = 1; i < argc; ++i) {
        std::string word = argv[i];
        if (afterDashes || word == "--") {
            afterDashes = true;
            line.words.push_back(std::move(word));
            continue;
        }
        if (word == "--help" || word == "-h" || (word == "help" && line.words.empty())) {
            line.help = true;
            continue;
        }
        std::string name = word;
        std::optional<std::string> value;
        if (const auto eq = word.find('='); word.rfind("--", 0) == 0 && eq != std::string::npos) {
            name = word.substr(0, eq);
            value = word.substr(eq + 1);
        }
        // After `report`, -o and --output name its file (`report ... -o FILE`); elsewhere they switch table/json.
        const bool reportFile
            = (name == "-o" || name == "--output") && !line.words.empty() && line.words.front() == "report";
        const bool global = !reportFile
            && (name == "--server" || name == "--token-file" || name == "-o" || name == "--output"
                || name == "--timeout-ms" || name == "--ca");
        if (!global) {
            line.words.push_back(std::move(word));
            continue;
        }
        if (!value) {
            if (i + 1 >= argc)
                return usageError(name + " needs a value");
            value = argv[++i];
        }
        if (name == "--server") {
            line.global.server = *value;
            line.global.serverSource = "--server";
        } else if (name == "--token-file") {
            line.global.tokenFile = *value;
        } else if (name == "--ca") {
            line.global.caFile = *value;
            line.global.caSource = "--ca";
        } else if (name == "-o" || name == "--output") {
            if (*value == "table")
                line.global.output = Output::Table;
            else if (*value == "json")
                line.global.output = Output::Json;
            else
                return usageError(name + ": \"" + *value + "\" must be table or json");
        } else {
            auto ms = integerValue("tidepoolctl", name, *value, 1, 3'600'000);
            if (!ms) // said without the command's name, which the error line begins with already
                return usageError(name + ": \"" + *value + "\" must be a whole number from 1 to 3600000");
            line.global.timeout = std::chrono::milliseconds(*ms);
        }
    }
    return line;
}

using Command = Result<void> (*)(Session&, const Words&);

// Every command by name. `get`, `why` and `cancel` share one function that is told which it is.
constexpr std::pair<std::string_view, Command> kCommands[] = {
    { "submit", submit },
    { "list", list },
    { "get", [](Session& s, const Words& w) { return workloadCommand(s, "get", w); } },
    { "why", [](Session& s, const Words& w) { return workloadCommand(s, "why", w); } },
    { "cancel", [](Session& s, const Words& w) { return workloadCommand(s, "cancel", w); } },
    { "logs", logs },
    { "move", move },
    { "resize", resize },
    { "nodes", nodes },
    { "pools", pools },
    { "summary", summary },
    { "proposals", proposals },
    { "proposal", proposal },
    { "evaluate", evaluate },
    { "whatif", whatIf },
    { "series", series },
    { "history", history },
    { "audit", audit },
    { "events", events },
    { "alerts", alerts },
    { "report", report },
};

Result<void> run(int argc, char** argv)
{
    auto line = parseCommandLine(argc, argv);
    if (!line)
        return tl::unexpected(line.error());
    if (line->help) {
        std::fputs(kUsage, stdout);
        return {};
    }
    if (line->words.empty())
        return usageError("no command given (see tidepoolctl --help)");
    auto address = api::parseApiUrl(line->global.server);
    if (!address)
        return usageError(line->global.serverSource + ": " + address.error().message);
    // An explicit --ca with a plain http:// server is a mistake worth saying; $TIDEPOOL_CA set for other daemons is not.
    if (!address->tls && line->global.caSource == "--ca")
        return usageError("--ca is for an https:// server; " + line->global.serverSource + " names \""
            + line->global.server + "\", which is plain HTTP");
    line->global.tls = address->tls;
    Session session(line->global, address->host, address->port);
    const std::string command = line->words.front();
    const Words rest(line->words.begin() + 1, line->words.end());
    for (const auto& [name, function] : kCommands)
        if (name == command)
            return function(session, rest);
    return usageError("unknown command \"" + command + "\" (see tidepoolctl --help)");
}

} // namespace

int main(int argc, char** argv)
{
    const auto done = run(argc, argv);
    std::fflush(stdout);
    if (done)
        return 0;
    std::fprintf(stderr, "tidepoolctl: %s\n", done.error().message.c_str());
    return done.error().exitCode;
}
