// A local cluster's ports come from outside the kernel's ephemeral range
// (where port-0 listeners and outgoing connections of other processes
// take theirs), and are free when given.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "apps/cluster/local_cluster.h"

namespace tact::apps {
namespace {

TEST(FreeLoopbackPortTest, PortsAreFreeAndOutsideTheEphemeralRange) {
  int lo = 32768, hi = 60999;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> lo >> hi;
  std::set<uint16_t> seen;
  for (int i = 0; i < 50; ++i) {
    StatusOr<uint16_t> port = FreeLoopbackPort();
    ASSERT_TRUE(port.ok()) << port.status().ToString();
    EXPECT_TRUE(*port < lo || *port > hi) << *port << " in " << lo << "-" << hi;
    seen.insert(*port);
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(*port);
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0) << *port;
    close(fd);
  }
  EXPECT_GT(seen.size(), 40u);  // random, not one port again and again
}

// A port is free until its task binds it: 2,000 drawn at random from
// about 22,768 would repeat about 88 times; none may repeat, or two tasks
// of a cluster get one address.
TEST(FreeLoopbackPortTest, NoPortIsGivenTwice) {
  std::set<uint16_t> seen;
  for (int i = 0; i < 2000; ++i) {
    StatusOr<uint16_t> port = FreeLoopbackPort();
    ASSERT_TRUE(port.ok()) << port.status().ToString();
    EXPECT_TRUE(seen.insert(*port).second) << "port " << *port << " given again at pick " << i;
  }
}

}  // namespace
}  // namespace tact::apps
