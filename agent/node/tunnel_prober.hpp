#pragma once
// TunnelProber: the gateway's liveness probe of its tunnel peers (issue 29, docs/DATAPATH.md
// "A member lost"). A thread sends an ICMP echo to each peer gateway's tunnel address every
// interval, over the tunnel, and keeps a ProbeHistory per peer (probe_history.hpp says when a
// peer counts as Silent and why that cannot flap); when a verdict changes it calls `on_change`
// so the node's next pass reports the Peering's tunnel Lost — or Connected again.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/node/os/linux/icmp_socket.hpp"
#include "agent/node/tunnel/probe_history.hpp"
#include "shared/net/net_types.hpp"
#include "shared/result/result.hpp"

namespace fed::federation {

struct ProbeTarget {
  std::string name;   // the Peering's
  net::Ipv4 address;  // the peer gateway's tunnel address
  friend bool operator==(const ProbeTarget&, const ProbeTarget&) = default;
};

// What GatewayTunnel asks of a probe (none in tests that do not probe).
class PeerProbe {
 public:
  virtual ~PeerProbe() = default;
  // The peers to probe from now on; a peer whose address is unchanged keeps its history.
  virtual void set_targets(const std::vector<ProbeTarget>& targets) = 0;
  // Unknown for a peer that is not probed or never answered.
  virtual tunnel::PeerAnswer answer(const std::string& name) const = 0;
};

class TunnelProber final : public PeerProbe {
 public:
  TunnelProber(tunnel::ProbeTiming timing, std::function<void()> on_change);
  ~TunnelProber() override;
  TunnelProber(const TunnelProber&) = delete;
  TunnelProber& operator=(const TunnelProber&) = delete;

  // Opens the raw socket and starts the thread.
  Status start();
  void stop();

  void set_targets(const std::vector<ProbeTarget>& targets) override;
  tunnel::PeerAnswer answer(const std::string& name) const override;

 private:
  struct Peer {
    net::Ipv4 address;
    tunnel::ProbeHistory history;
    tunnel::PeerAnswer answer = tunnel::PeerAnswer::Unknown;
  };

  void run(const std::stop_token& stop);
  void send_round(tunnel::ProbeClock::time_point now);
  // Reads replies until `until`, then whatever else is queued.
  void read_replies(tunnel::ProbeClock::time_point until);
  // Updates every verdict; true when one changed.
  bool judge(tunnel::ProbeClock::time_point now);

  tunnel::ProbeTiming timing_;
  std::function<void()> on_change_;
  std::optional<os::IcmpSocket> socket_;
  std::uint16_t id_ = 0;
  std::uint16_t seq_ = 0;
  mutable std::mutex mu_;
  std::map<std::string, Peer> peers_;
  std::jthread thread_;
};

}  // namespace fed::federation
