#include "actors/wire_auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <atomic>
#include <caf/all.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "graph/hex.h"

namespace tact {
namespace {

constexpr const char* kKeyOption = "tact.cluster-key";
constexpr size_t kNonceBytes = 12;
constexpr size_t kTagBytes = 16;
constexpr size_t kKeyBytes = 16;

}  // namespace

// AES-128 key from the secret: the first half of SHA-256 over a label and
// the secret, so that the key is not the secret itself.
std::string ClusterKey(const std::string& secret) {
  const std::string input = "tact cluster key v1\n" + secret;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(input.data(), input.size(), digest, &n, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(digest), kKeyBytes);
}

namespace {

// A nonce never repeats within a process: a random prefix (per process)
// and a counter.
void NextNonce(unsigned char* nonce) {
  static const uint32_t prefix = [] {
    uint32_t p = 0;
    RAND_bytes(reinterpret_cast<unsigned char*>(&p), sizeof p);
    return p;
  }();
  static std::atomic<uint64_t> counter{0};
  const uint64_t c = counter.fetch_add(1, std::memory_order_relaxed);
  std::memcpy(nonce, &prefix, 4);
  std::memcpy(nonce + 4, &c, 8);
}

// GMAC: AES-GCM with everything as additional data and nothing to encrypt.
bool Tag(const std::string& key, const unsigned char* nonce, std::string_view type,
         std::string_view bytes, unsigned char* tag) {
  std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(),
                                                                      EVP_CIPHER_CTX_free);
  int len = 0;
  if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_aes_128_gcm(), nullptr,
                                 reinterpret_cast<const unsigned char*>(key.data()), nonce) != 1) {
    return false;
  }
  auto aad = [&](std::string_view s) {
    constexpr size_t kChunk = size_t{1} << 30;  // EVP takes int lengths
    for (size_t off = 0; off < s.size(); off += kChunk) {
      const int n = static_cast<int>(std::min(kChunk, s.size() - off));
      if (EVP_EncryptUpdate(ctx.get(), nullptr, &len,
                            reinterpret_cast<const unsigned char*>(s.data() + off), n) != 1) {
        return false;
      }
    }
    return true;
  };
  const uint64_t type_len = type.size();
  unsigned char out[16];
  return aad(std::string_view(reinterpret_cast<const char*>(&type_len), sizeof type_len)) &&
         aad(type) && aad(bytes) && EVP_EncryptFinal_ex(ctx.get(), out, &len) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagBytes, tag) == 1;
}

}  // namespace

std::string ClusterKeyOf(const caf::actor_system& system) {
  const std::string hex = caf::get_or(system.config(), kKeyOption, std::string());
  std::string key;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    key += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return key;
}

std::string NewClusterSecret() {
  unsigned char bytes[32];
  RAND_bytes(bytes, sizeof bytes);
  return HexEncode(bytes, sizeof bytes);
}

StatusOr<std::string> ReadClusterSecret(const std::string& path) {
  std::ifstream f(path);
  if (!f) return errors::NotFound("cluster secret file ", path, ": cannot open");
  std::stringstream s;
  s << f.rdbuf();
  std::string secret = s.str();
  const size_t begin = secret.find_first_not_of(" \t\r\n");
  const size_t end = secret.find_last_not_of(" \t\r\n");
  return begin == std::string::npos ? std::string() : secret.substr(begin, end - begin + 1);
}

StatusOr<std::string> FindClusterSecret(const std::string& file) {
  std::string secret;
  std::string origin;
  if (!file.empty()) {
    TACT_ASSIGN_OR_RETURN(secret, ReadClusterSecret(file));
    origin = "cluster secret file " + file;
  } else if (const char* env = std::getenv("TACT_CLUSTER_SECRET")) {
    secret = env;
    origin = "TACT_CLUSTER_SECRET";
  } else {
    return errors::InvalidArgument(
        "a cluster needs its secret: give a secret file or set TACT_CLUSTER_SECRET");
  }
  if (secret.size() < 16) {
    return errors::InvalidArgument(origin, ": a cluster secret needs at least 16 characters, got ",
                                   secret.size());
  }
  return secret;
}

void UseClusterSecret(caf::actor_system_config& cfg, const std::string& secret) {
  const std::string key = ClusterKey(secret);
  // Straight into the settings: set() takes only options CAF declared.
  caf::put(cfg.content, kKeyOption, HexEncode(key.data(), key.size()));
}

StatusOr<std::string> SignWireMessage(const caf::actor_system& system, std::string_view type,
                                      std::string_view bytes) {
  return SignWithKey(ClusterKeyOf(system), type, bytes);
}

Status VerifyWireMessage(const caf::actor_system& system, std::string_view type,
                         std::string_view bytes, std::string_view trailer) {
  return VerifyWithKey(ClusterKeyOf(system), type, bytes, trailer);
}

StatusOr<std::string> SignWithKey(const std::string& key, std::string_view type, std::string_view bytes) {
  if (key.size() != kKeyBytes) {
    return errors::FailedPrecondition("this process has no cluster secret to sign ", type, " with");
  }
  std::string trailer(kWireTrailerBytes, '\0');
  auto* p = reinterpret_cast<unsigned char*>(trailer.data());
  NextNonce(p);
  if (!Tag(key, p, type, bytes, p + kNonceBytes)) return errors::Internal("signing ", type, " failed");
  return trailer;
}

Status VerifyWithKey(const std::string& key, std::string_view type, std::string_view bytes,
                     std::string_view trailer) {
  if (key.size() != kKeyBytes) {
    return errors::Unauthenticated(type, " from another process, but this process has no cluster secret");
  }
  if (trailer.size() != kWireTrailerBytes) {
    return errors::Unauthenticated(type, " is not signed with a cluster secret");
  }
  const auto* p = reinterpret_cast<const unsigned char*>(trailer.data());
  unsigned char tag[kTagBytes];
  if (!Tag(key, p, type, bytes, tag) || CRYPTO_memcmp(tag, p + kNonceBytes, kTagBytes) != 0) {
    return errors::Unauthenticated(type, " is not signed with this cluster's secret");
  }
  return Status::OK();
}

}  // namespace tact
