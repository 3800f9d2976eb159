#pragma once
// TLS contexts for the agent protocol. The core presents a certificate (and may require agents to present one
// signed by a CA it trusts); agents verify the core's certificate against a CA file and the host name they dial.
// TLS 1.2 at least. Errors name the file that could not be used; key material is never logged.
//
// Thread affinity: build the contexts before the io_context runs; they are then shared read-only by connections.

#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <string>

#include <tl/expected.hpp>

namespace tidepool::transport {

struct TlsServerFiles {
    std::string certificate; // PEM chain: the core's certificate first
    std::string privateKey; // PEM
    std::string clientCa; // optional: when set, agents must present a certificate signed by this CA
};

struct TlsClientFiles {
    std::string ca; // PEM: the CA that signed the core's certificate
    std::string certificate; // optional client certificate (when the core requires one)
    std::string privateKey;
};

tl::expected<std::shared_ptr<boost::asio::ssl::context>, std::string> makeServerContext(const TlsServerFiles& files);
tl::expected<std::shared_ptr<boost::asio::ssl::context>, std::string> makeClientContext(const TlsClientFiles& files);

} // namespace tidepool::transport
