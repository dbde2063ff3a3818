#include "agent/manager/offload/virtual_kubelet/stream_relay.hpp"

#include <poll.h>

#include <chrono>
#include <string>

namespace fed::offload {
namespace {

// How long one write to the member may wait for its socket.
constexpr std::chrono::seconds kMemberWriteTimeout{30};

}  // namespace

RelayTotals relay(http::TakenConnection& caller, kube::UpgradeStream& member) {
  RelayTotals totals;
  std::string buf;
  while (true) {
    buf.clear();
    const auto from_caller = caller.read_available(buf);
    if (!buf.empty()) {
      if (!member.write(buf, kMemberWriteTimeout)) return totals;
      totals.to_member += buf.size();
    }
    if (from_caller == http::TakenConnection::Read::Closed) return totals;

    buf.clear();
    const auto from_member = member.read_available(buf);
    if (!buf.empty()) {
      if (!caller.write(buf)) return totals;
      totals.from_member += buf.size();
    }
    if (from_member == kube::UpgradeStream::Read::Closed) return totals;

    // Both drained: wait for either side (or the server's stop) without spinning.
    if (from_caller == http::TakenConnection::Read::Idle &&
        from_member == kube::UpgradeStream::Read::Idle) {
      pollfd fds[3] = {
          {caller.fd(), POLLIN, 0}, {member.fd(), POLLIN, 0}, {caller.stop_fd(), POLLIN, 0}};
      ::poll(fds, 3, 1000);
      if ((fds[2].revents & POLLIN) != 0) return totals;
    }
  }
}

}  // namespace fed::offload
