#include "protocol/transport/tls.h"

#include <openssl/err.h>

namespace tidepool::transport {

namespace ssl = boost::asio::ssl;

namespace {

std::string why(const boost::system::error_code& ec)
{
    return ec.message();
}

tl::expected<std::shared_ptr<ssl::context>, std::string> baseContext(ssl::context::method method)
{
    auto context = std::make_shared<ssl::context>(method);
    boost::system::error_code ec;
    context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3
            | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use,
        ec);
    if (ec)
        return tl::unexpected("cannot set the TLS options: " + why(ec));
    return context;
}

} // namespace

tl::expected<std::shared_ptr<ssl::context>, std::string> makeServerContext(const TlsServerFiles& files)
{
    auto context = baseContext(ssl::context::tls_server);
    if (!context)
        return context;
    boost::system::error_code ec;
    if ((*context)->use_certificate_chain_file(files.certificate, ec); ec)
        return tl::unexpected("TLS certificate " + files.certificate + ": " + why(ec));
    if ((*context)->use_private_key_file(files.privateKey, ssl::context::pem, ec); ec)
        return tl::unexpected("TLS private key " + files.privateKey + ": " + why(ec));
    if (SSL_CTX_check_private_key((*context)->native_handle()) != 1)
        return tl::unexpected("TLS private key " + files.privateKey + " does not match the certificate " + files.certificate);
    if (!files.clientCa.empty()) {
        if ((*context)->load_verify_file(files.clientCa, ec); ec)
            return tl::unexpected("TLS client CA " + files.clientCa + ": " + why(ec));
        (*context)->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
    }
    return context;
}

tl::expected<std::shared_ptr<ssl::context>, std::string> makeClientContext(const TlsClientFiles& files)
{
    auto context = baseContext(ssl::context::tls_client);
    if (!context)
        return context;
    boost::system::error_code ec;
    if ((*context)->load_verify_file(files.ca, ec); ec)
        return tl::unexpected("TLS CA " + files.ca + ": " + why(ec));
    (*context)->set_verify_mode(ssl::verify_peer);
    if (!files.certificate.empty()) {
        if ((*context)->use_certificate_chain_file(files.certificate, ec); ec)
            return tl::unexpected("TLS certificate " + files.certificate + ": " + why(ec));
        if ((*context)->use_private_key_file(files.privateKey, ssl::context::pem, ec); ec)
            return tl::unexpected("TLS private key " + files.privateKey + ": " + why(ec));
    }
    return context;
}

} // namespace tidepool::transport
