#include "actors/tls_files.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <memory>

namespace tact {
namespace {

template <typename T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const { Free(p); }
};
using Bio = std::unique_ptr<BIO, Freer<BIO, BIO_free_all>>;
using Cert = std::unique_ptr<X509, Freer<X509, X509_free>>;
using Key = std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY, EVP_PKEY_free>>;
using Store = std::unique_ptr<X509_STORE, Freer<X509_STORE, X509_STORE_free>>;
using StoreContext = std::unique_ptr<X509_STORE_CTX, Freer<X509_STORE_CTX, X509_STORE_CTX_free>>;

// The oldest error OpenSSL queued on this thread (the cause), and the queue
// cleared.
std::string OpenSslReason() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "no reason given";
  char text[256];
  ERR_error_string_n(e, text, sizeof(text));
  return text;
}

// No passphrase: an encrypted key fails to load instead of prompting on
// the terminal.
int NoPassphrase(char*, int, int, void*) { return 0; }

}  // namespace

Status CheckTlsFiles(const std::string& certificate, const std::string& key, const std::string& cafile) {
  ERR_clear_error();
  Bio cert_file(BIO_new_file(certificate.c_str(), "r"));
  Cert cert(cert_file ? PEM_read_bio_X509(cert_file.get(), nullptr, NoPassphrase, nullptr) : nullptr);
  if (!cert) {
    return errors::InvalidArgument("TLS certificate ", certificate, ": no PEM certificate in it (",
                                   OpenSslReason(), ")");
  }
  Bio key_file(BIO_new_file(key.c_str(), "r"));
  Key pkey(key_file ? PEM_read_bio_PrivateKey(key_file.get(), nullptr, NoPassphrase, nullptr) : nullptr);
  if (!pkey) {
    return errors::InvalidArgument("TLS key ", key, ": no unencrypted PEM private key in it (",
                                   OpenSslReason(), ")");
  }
  if (X509_check_private_key(cert.get(), pkey.get()) != 1) {
    ERR_clear_error();
    return errors::InvalidArgument("TLS key ", key, " is not the key of certificate ", certificate);
  }
  Store store(X509_STORE_new());
  if (!store || X509_STORE_load_file(store.get(), cafile.c_str()) != 1) {
    return errors::InvalidArgument("TLS CA file ", cafile, ": no PEM certificate in it (", OpenSslReason(),
                                   ")");
  }
  StoreContext verify(X509_STORE_CTX_new());
  if (!verify || X509_STORE_CTX_init(verify.get(), store.get(), cert.get(), nullptr) != 1) {
    return errors::Internal("TLS: cannot set up the check of ", certificate, " (", OpenSslReason(), ")");
  }
  if (X509_verify_cert(verify.get()) != 1) {
    const int error = X509_STORE_CTX_get_error(verify.get());
    ERR_clear_error();
    return errors::InvalidArgument("TLS certificate ", certificate, " does not verify against CA file ",
                                   cafile, ": ", X509_verify_cert_error_string(error));
  }
  return Status::OK();
}

}  // namespace tact
