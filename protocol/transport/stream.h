#pragma once
// The byte stream under the agent protocol: plain TCP, or TLS over TCP (Boost.Asio SSL over OpenSSL) when
// certificates are configured. Both ends of the protocol (the core's sessions, the agent's client) read and write
// through it without caring which; `handshake` is a no-op for plain TCP.
//
// Thread affinity: one io_context thread per stream, like the socket it wraps. Header-only, in the
// `tidepool_transport` target (Asio and OpenSSL), kept apart from `tidepool_protocol`, which depends on neither.

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>

#include <utility>
#include <variant>

namespace tidepool::transport {

class Stream {
public:
    using Tcp = boost::asio::ip::tcp::socket;
    using Tls = boost::asio::ssl::stream<Tcp>;

    explicit Stream(Tcp socket)
        : m_stream(std::in_place_type<Tcp>, std::move(socket))
    {
    }
    Stream(Tcp socket, boost::asio::ssl::context& tls)
        : m_stream(std::in_place_type<Tls>, std::move(socket), tls)
    {
    }

    bool tls() const { return std::holds_alternative<Tls>(m_stream); }
    Tcp& socket() { return tls() ? std::get<Tls>(m_stream).next_layer() : std::get<Tcp>(m_stream); }
    const Tcp& socket() const { return tls() ? std::get<Tls>(m_stream).next_layer() : std::get<Tcp>(m_stream); }
    // The OpenSSL stream, for setting SNI and the peer-name check before a client handshake; null for plain TCP.
    Tls* tlsStream() { return std::get_if<Tls>(&m_stream); }

    // Completes at once (on the executor, never inline) for plain TCP.
    template <typename Handler> void asyncHandshake(Tls::handshake_type type, Handler&& handler)
    {
        if (Tls* s = tlsStream())
            s->async_handshake(type, std::forward<Handler>(handler));
        else
            boost::asio::post(socket().get_executor(),
                [h = std::forward<Handler>(handler)]() mutable { h(boost::system::error_code {}); });
    }
    template <typename Buffer, typename Handler> void asyncReadSome(const Buffer& buffer, Handler&& handler)
    {
        std::visit([&](auto& s) { s.async_read_some(buffer, std::forward<Handler>(handler)); }, m_stream);
    }
    template <typename Buffer, typename Handler> void asyncWrite(const Buffer& buffer, Handler&& handler)
    {
        std::visit([&](auto& s) { boost::asio::async_write(s, buffer, std::forward<Handler>(handler)); }, m_stream);
    }
    // Closes the TCP connection at once (no TLS close_notify: the protocol's own messages end sessions).
    void close()
    {
        boost::system::error_code ignored;
        socket().shutdown(Tcp::shutdown_both, ignored);
        socket().close(ignored);
    }

private:
    std::variant<Tcp, Tls> m_stream;
};

} // namespace tidepool::transport
