// A task's TLS files, made with the openssl command as a user makes them,
// checked before any connection: each way they can be wrong is refused,
// naming the file (actors/tls_files.h).
#include "actors/tls_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "actors/cluster_spec.h"

namespace tact {
namespace {

class TlsFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/tact_tls_files_" + std::to_string(getpid()) + "/";
    std::filesystem::create_directories(dir_);
    // Two CAs, a node certificate of each, a node certificate of the first
    // that expired yesterday, and an encrypted key.
    const std::string cmd =
        "cd " + dir_ + " && for ca in ours theirs; do "
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout $ca-ca.key -out $ca-ca.pem -days 2 "
        "-subj /CN=$ca && "
        "openssl req -newkey rsa:2048 -nodes -keyout $ca.key -out $ca.csr -subj /CN=$ca-node && "
        "openssl x509 -req -in $ca.csr -CA $ca-ca.pem -CAkey $ca-ca.key -CAcreateserial -out $ca.pem -days 2 "
        "|| exit 1; done && "
        "openssl x509 -req -in ours.csr -CA ours-ca.pem -CAkey ours-ca.key -out expired.pem -days -1 && "
        "openssl rsa -in ours.key -aes256 -passout pass:secret -out encrypted.key && "
        "echo 'not PEM' > garbage.pem";
    ASSERT_EQ(std::system(("(" + cmd + ") > /dev/null 2>&1").c_str()), 0) << cmd;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Status Check(const std::string& cert, const std::string& key, const std::string& ca) {
    return CheckTlsFiles(dir_ + cert, dir_ + key, dir_ + ca);
  }
  // Expects an InvalidArgument holding `text` (which names `file`).
  void ExpectRefused(const Status& s, const std::string& file, const std::string& text) {
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
    EXPECT_NE(s.message().find(dir_ + file), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find(text), std::string::npos) << s.ToString();
  }

  std::string dir_;
};

TEST_F(TlsFilesTest, ACertificateItsKeyAndItsCaPass) {
  const Status ours = Check("ours.pem", "ours.key", "ours-ca.pem");
  EXPECT_TRUE(ours.ok()) << ours.ToString();
  EXPECT_TRUE(Check("theirs.pem", "theirs.key", "theirs-ca.pem").ok());
  // What a worker and a Session call.
  EXPECT_TRUE((ClusterTls{dir_ + "ours.pem", dir_ + "ours.key", dir_ + "ours-ca.pem"}.Check().ok()));
}

TEST_F(TlsFilesTest, EachWrongFileIsRefusedNamingIt) {
  ExpectRefused(Check("garbage.pem", "ours.key", "ours-ca.pem"), "garbage.pem", "no PEM certificate in it");
  ExpectRefused(Check("ours.key", "ours.key", "ours-ca.pem"), "ours.key", "no PEM certificate in it");
  ExpectRefused(Check("ours.pem", "garbage.pem", "ours-ca.pem"), "garbage.pem",
                "no unencrypted PEM private key in it");
  // Refused without asking for the passphrase on the terminal.
  ExpectRefused(Check("ours.pem", "encrypted.key", "ours-ca.pem"), "encrypted.key",
                "no unencrypted PEM private key in it");
  ExpectRefused(Check("ours.pem", "theirs.key", "ours-ca.pem"), "theirs.key",
                "is not the key of certificate " + dir_ + "ours.pem");
  ExpectRefused(Check("ours.pem", "ours.key", "garbage.pem"), "garbage.pem", "no PEM certificate in it");
  ExpectRefused(Check("ours.pem", "ours.key", "theirs-ca.pem"), "ours.pem",
                "does not verify against CA file " + dir_ +
                    "theirs-ca.pem: unable to get local issuer certificate");
  ExpectRefused(Check("expired.pem", "ours.key", "ours-ca.pem"), "expired.pem", "certificate has expired");
  // Through ClusterTls, as `tact worker --tls-cert ...` checks them.
  const Status s = ClusterTls{dir_ + "garbage.pem", dir_ + "ours.key", dir_ + "ours-ca.pem"}.Check();
  ExpectRefused(s, "garbage.pem", "no PEM certificate in it");
}

}  // namespace
}  // namespace tact
