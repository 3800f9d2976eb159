#pragma once
// `tidepoold certs init|tokens|agent`: a private CA, the core's certificate and agent bootstrap tokens, made in C++
// with OpenSSL (core/net/certificates.h, protocol/join.h), so that a package's postinst needs no shell tooling.

namespace tidepool {

// `argv[1]` is "certs". Returns the exit status: 0 done, 1 a file could not be read or written or would be
// overwritten, 2 a wrong command line.
int runCertsCommand(int argc, const char* const* argv);

} // namespace tidepool
