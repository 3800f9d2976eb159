#pragma once
// `tidepoold token add|remove|migrate|list`: the operator token file's administration (core/api/operator_tokens.h).

namespace tidepool {

// `argv[1]` is "token". Returns the exit status: 0 done, 1 the file could not be read or written, 2 a wrong command
// line.
int runTokenCommand(int argc, const char* const* argv);

} // namespace tidepool
