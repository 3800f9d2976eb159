#pragma once
// Certificates for TLS between the core and its agents and on the HTTPS API, made with OpenSSL's own APIs (no shell,
// no `openssl` command): a private CA, the core's server certificate with its DNS names and IP addresses as
// subjectAltNames, and client certificates for agents when the core requires them. Keys are EC P-256, signatures
// SHA-256, serial numbers 128 random bits. `tidepoold certs` writes them to files; the tests also make certificates
// that are already expired (`notBeforeOffsetSeconds`).
//
// Thread affinity: none; every function is pure apart from OpenSSL's thread-safe RNG and the files it names.

#include "core/model/types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tidepool::net {

// PEM text: an unencrypted PKCS#8 private key and its certificate.
struct KeyAndCertificate {
    std::string keyPem;
    std::string certificatePem;
};

enum class CertificateUsage : std::uint8_t { Invalid = 0, Server, Client };

struct CertificateRequest {
    std::string commonName;
    std::vector<std::string> names; // subjectAltNames: DNS names and IP addresses (v4 or v6)
    CertificateUsage usage = CertificateUsage::Invalid;
    int days = 825;
    // Moves the validity window: notBefore = now + offset, notAfter = notBefore + days. Negative for a window in the
    // past (an expired certificate, for tests).
    std::int64_t notBeforeOffsetSeconds = 0;
};

// A self-signed CA certificate (basicConstraints CA:TRUE, keyCertSign) valid for `days`.
Expected<KeyAndCertificate> makeCertificateAuthority(const std::string& commonName, int days);
// A certificate signed by `ca`. The error names a subjectAltName that is neither a DNS name nor an IP address.
Expected<KeyAndCertificate> issueCertificate(const KeyAndCertificate& ca, const CertificateRequest& request);

// Whether `name` is an IP address literal (then it goes in an `IP:` subjectAltName, else in a `DNS:` one).
bool isIpAddressLiteral(const std::string& name);
// A DNS name a certificate may carry: labels of letters, digits and '-', separated by '.', a leading "*." allowed.
bool isDnsName(const std::string& name);

} // namespace tidepool::net
