#pragma once
// The console's modes beside the demo, as the composition root chooses and builds them:
//
//   tidepool                       the embedded single-box core (`EmbeddedBackend`): its database under the user's
//                                  data folder (--db), agents joining on --agent-port (7070) with the join token
//                                  (--join-token-file; made there on the first run), optionally the HTTP API on
//                                  127.0.0.1:--api-port with --operator-token-file, the daemon's JSON config
//                                  (--core-config)
//   tidepool --connect URL         a running tidepoold through its API (`RemoteBackend`), with the operator token of
//                                  --token-file or $TIDEPOOL_TOKEN_FILE (as tidepoolctl); the URL is remembered once
//                                  the first snapshot arrived
//   tidepool --reconnect           the remembered URL
//
// `tidepool` alone never attaches to the remembered URL by itself: starting a core (which opens the agent port and a
// database) and attaching to a remote cluster are different things an operator chooses, and a console that silently
// did the other one would act on the wrong cluster. It only says that `--reconnect` would attach again.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_backend.h"

#include <QString>

#include <tl/expected.hpp>

#include <cstdint>
#include <memory>

class QCommandLineParser;

namespace tidepool::ui {
class CoreBridge;
} // namespace tidepool::ui

namespace tidepool::app {

enum class Mode : std::uint8_t { Invalid = 0, Demo, Embedded, Remote };

struct ModeChoice {
    Mode mode = Mode::Invalid;
    QString url; // Remote: as given (or remembered)
    QString tokenFile; // Remote
    QString caFile; // Remote over https://: the CA the daemon's certificate must chain to (empty: the system's)
    QString db; // Embedded
    int agentPort = 7070;
    int apiPort = 0; // 0: no HTTP API
    QString joinTokenFile;
    QString operatorTokenFile;
    QString coreConfig;
};

// Adds the modes' options (--connect, --reconnect, --token-file, --ca, --db, --agent-port, --api-port, --join-token-file,
// --operator-token-file, --core-config) to `parser`.
void addModeOptions(QCommandLineParser& parser);
// The mode the processed `parser` asks for; an error names the option at fault.
tl::expected<ModeChoice, QString> readModeOptions(const QCommandLineParser& parser, bool demo);
// Builds and starts the backend of an Embedded or Remote choice (its core or its connection run on a thread of their
// own; a failure to start arrives as a `failure` event). An error names what could not be read (a token file, the
// data folder) before anything started.
tl::expected<std::unique_ptr<ui::ConsoleBackend>, QString> startBackend(
    const ModeChoice& choice, ui::ConsoleEvents events);
// Remote: keeps the URL (and the CA file) in the settings once the bridge has its first snapshot from it (the connection worked).
void rememberConnection(ui::CoreBridge& bridge, const ModeChoice& choice);

} // namespace tidepool::app
