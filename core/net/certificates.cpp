#include "core/net/certificates.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>

#include <memory>

namespace tidepool::net {

namespace {

struct Free {
    void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
    void operator()(X509* p) const { X509_free(p); }
    void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
    void operator()(BIO* p) const { BIO_free(p); }
    void operator()(BIGNUM* p) const { BN_free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Free>;
using Certificate = std::unique_ptr<X509, Free>;
using Extension = std::unique_ptr<X509_EXTENSION, Free>;
using Bio = std::unique_ptr<BIO, Free>;
using BigNumber = std::unique_ptr<BIGNUM, Free>;

tl::unexpected<Error> opensslFailure(const std::string& what)
{
    char text[256] = {};
    ERR_error_string_n(ERR_get_error(), text, sizeof text);
    ERR_clear_error();
    return makeError(ErrorCode::IoError, what + " failed: " + text);
}

Expected<Key> newKey()
{
    Key key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
    if (!key)
        return opensslFailure("making an EC P-256 key");
    return key;
}

Expected<std::string> keyPem(EVP_PKEY* key)
{
    Bio bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
        return opensslFailure("writing a private key");
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(size));
}

Expected<std::string> certificatePem(X509* certificate)
{
    Bio bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_X509(bio.get(), certificate) != 1)
        return opensslFailure("writing a certificate");
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(size));
}

Expected<Key> readKey(const std::string& pem)
{
    Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    Key key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!key)
        return opensslFailure("reading the CA's private key");
    return key;
}

Expected<Certificate> readCertificate(const std::string& pem)
{
    Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    Certificate certificate(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!certificate)
        return opensslFailure("reading the CA's certificate");
    return certificate;
}

// A certificate for `key` named `commonName`, valid from now + `offsetSeconds` for `days`, not yet signed.
Expected<Certificate> newCertificate(EVP_PKEY* key, const std::string& commonName, int days, std::int64_t offsetSeconds)
{
    Certificate certificate(X509_new());
    if (!certificate || X509_set_version(certificate.get(), 2) != 1)
        return opensslFailure("making a certificate");
    BigNumber serial(BN_new());
    if (!serial || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1
        || !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(certificate.get())))
        return opensslFailure("making a serial number");
    if (!X509_time_adj_ex(X509_getm_notBefore(certificate.get()), 0, static_cast<long>(offsetSeconds), nullptr)
        || !X509_time_adj_ex(X509_getm_notAfter(certificate.get()), days, static_cast<long>(offsetSeconds), nullptr))
        return opensslFailure("setting the validity");
    if (X509_set_pubkey(certificate.get(), key) != 1)
        return opensslFailure("setting the public key");
    X509_NAME* subject = X509_get_subject_name(certificate.get());
    if (X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8,
            reinterpret_cast<const unsigned char*>(commonName.c_str()), -1, -1, 0)
        != 1)
        return opensslFailure("setting the common name");
    return certificate;
}

Expected<void> addExtension(X509* certificate, X509* issuer, int nid, const std::string& value)
{
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
    Extension extension(X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str()));
    if (!extension || X509_add_ext(certificate, extension.get(), -1) != 1)
        return opensslFailure(std::string("adding the extension ") + OBJ_nid2sn(nid) + " " + value);
    return {};
}

Expected<KeyAndCertificate> finish(EVP_PKEY* key, X509* certificate, EVP_PKEY* signer)
{
    if (X509_sign(certificate, signer, EVP_sha256()) == 0)
        return opensslFailure("signing the certificate");
    auto keyText = keyPem(key);
    if (!keyText)
        return tl::unexpected(keyText.error());
    auto certificateText = certificatePem(certificate);
    if (!certificateText)
        return tl::unexpected(certificateText.error());
    return KeyAndCertificate { std::move(*keyText), std::move(*certificateText) };
}

} // namespace

bool isIpAddressLiteral(const std::string& name)
{
    unsigned char buffer[16];
    return inet_pton(AF_INET, name.c_str(), buffer) == 1 || inet_pton(AF_INET6, name.c_str(), buffer) == 1;
}

bool isDnsName(const std::string& name)
{
    if (name.empty() || name.size() > 253)
        return false;
    std::string_view rest = name;
    if (rest.substr(0, 2) == "*.")
        rest.remove_prefix(2);
    std::size_t labelLength = 0;
    for (std::size_t i = 0; i <= rest.size(); ++i) {
        if (i == rest.size() || rest[i] == '.') {
            if (labelLength == 0 || labelLength > 63 || rest[i - 1] == '-' || rest[i - labelLength] == '-')
                return false;
            labelLength = 0;
            continue;
        }
        const char c = rest[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'))
            return false;
        ++labelLength;
    }
    return true;
}

Expected<KeyAndCertificate> makeCertificateAuthority(const std::string& commonName, int days)
{
    if (days < 1)
        return makeError(ErrorCode::InvalidArgument, "a CA must be valid for at least one day");
    auto key = newKey();
    if (!key)
        return tl::unexpected(key.error());
    auto certificate = newCertificate(key->get(), commonName, days, 0);
    if (!certificate)
        return tl::unexpected(certificate.error());
    X509* c = certificate->get();
    if (X509_set_issuer_name(c, X509_get_subject_name(c)) != 1)
        return opensslFailure("setting the issuer");
    for (const auto& [nid, value] : { std::pair { NID_basic_constraints, "critical,CA:TRUE,pathlen:0" },
             std::pair { NID_key_usage, "critical,keyCertSign,cRLSign" },
             std::pair { NID_subject_key_identifier, "hash" } })
        if (auto added = addExtension(c, c, nid, value); !added)
            return tl::unexpected(added.error());
    return finish(key->get(), c, key->get());
}

Expected<KeyAndCertificate> issueCertificate(const KeyAndCertificate& ca, const CertificateRequest& request)
{
    if (request.usage == CertificateUsage::Invalid)
        return makeError(ErrorCode::InvalidArgument, "a certificate needs a usage (server or client)");
    if (request.days < 1)
        return makeError(ErrorCode::InvalidArgument, "a certificate must be valid for at least one day");
    std::string altNames;
    for (const std::string& name : request.names) {
        std::string entry;
        if (isIpAddressLiteral(name))
            entry = "IP:" + name;
        else if (isDnsName(name))
            entry = "DNS:" + name;
        else
            return makeError(ErrorCode::InvalidArgument,
                "\"" + name + "\" is neither a DNS name nor an IP address; a certificate cannot name it");
        altNames += (altNames.empty() ? "" : ",") + entry;
    }
    auto caKey = readKey(ca.keyPem);
    if (!caKey)
        return tl::unexpected(caKey.error());
    auto caCertificate = readCertificate(ca.certificatePem);
    if (!caCertificate)
        return tl::unexpected(caCertificate.error());
    if (X509_check_private_key(caCertificate->get(), caKey->get()) != 1) {
        ERR_clear_error();
        return makeError(ErrorCode::InvalidArgument, "the CA's private key does not match its certificate");
    }
    auto key = newKey();
    if (!key)
        return tl::unexpected(key.error());
    auto certificate = newCertificate(key->get(), request.commonName, request.days, request.notBeforeOffsetSeconds);
    if (!certificate)
        return tl::unexpected(certificate.error());
    X509* c = certificate->get();
    X509* issuer = caCertificate->get();
    if (X509_set_issuer_name(c, X509_get_subject_name(issuer)) != 1)
        return opensslFailure("setting the issuer");
    const bool server = request.usage == CertificateUsage::Server;
    std::vector<std::pair<int, std::string>> extensions {
        { NID_basic_constraints, "critical,CA:FALSE" },
        { NID_key_usage, "critical,digitalSignature,keyAgreement" },
        { NID_ext_key_usage, server ? "serverAuth" : "clientAuth" },
        { NID_subject_key_identifier, "hash" },
        { NID_authority_key_identifier, "keyid" },
    };
    if (!altNames.empty())
        extensions.emplace_back(NID_subject_alt_name, altNames);
    for (const auto& [nid, value] : extensions)
        if (auto added = addExtension(c, issuer, nid, value); !added)
            return tl::unexpected(added.error());
    return finish(key->get(), c, caKey->get());
}

} // namespace tidepool::net
