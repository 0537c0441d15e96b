// A task's TLS files checked as the handshake will use them, before any
// connection: its certificate, that certificate's private key, and the CA
// file that every peer's certificate (this one's included) must verify
// against.
//
// Why: CAF reads these files only at the first handshake. A worker given a
// file that was not a certificate listened as if all were well and then
// refused every peer, and its master saw only a task that never answered.
// Now the worker (and a Session with SessionOptions::cluster_tls) refuses
// to start, naming the file and what is wrong with it: not PEM, a key that
// belongs to another certificate, a certificate the CA did not sign or
// that has expired.
#pragma once

#include <string>

#include "graph/status.h"

namespace tact {

// InvalidArgument naming the file and OpenSSL's reason, or OK. An encrypted
// key is refused: nothing would give its passphrase.
Status CheckTlsFiles(const std::string& certificate, const std::string& key, const std::string& cafile);

}  // namespace tact
