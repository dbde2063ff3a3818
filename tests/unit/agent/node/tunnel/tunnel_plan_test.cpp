#include "agent/node/tunnel/tunnel_plan.hpp"

#include <doctest/doctest.h>

#include "tests/unit/agent/node/tunnel/sample_tunnel.hpp"

using namespace fed::tunnel;
using namespace fed::tunnel::testing;
using fed::os::LinkAddress;
using fed::os::LinkState;

namespace {

WgKey pub(std::uint8_t fill) {
  return *public_key_of(private_key(fill));
}

// What the daemon reports once `d` has been applied.
UapiDevice device_of(const DesiredTunnel& d) {
  UapiDevice dev;
  dev.private_key = d.private_key;
  dev.listen_port = d.options.listen_port;
  for (const auto& p : d.peers) {
    UapiPeer u;
    u.public_key = *WgKey::from_base64(p.public_key, "test");
    u.endpoint = endpoint_text(p);
    u.keepalive_seconds = p.keepalive_seconds;
    // The daemon's own order, not ours: the planner compares sets.
    auto ips = allowed_ips_text(p);
    u.allowed_ips.assign(ips.rbegin(), ips.rend());
    u.last_handshake_sec = 1700000000;
    dev.peers.push_back(u);
  }
  return dev;
}

LinkState link_of(const DesiredTunnel& d) {
  LinkState l;
  l.kind = "tun";
  l.owned = true;
  l.up = true;
  l.mtu = d.options.mtu;
  l.addresses = {LinkAddress{d.options.address, d.options.prefix_length}};
  return l;
}

ObservedTunnel converged(const DesiredTunnel& d) {
  return ObservedTunnel{true, link_of(d), device_of(d)};
}

}  // namespace

TEST_CASE("no daemon and no link: start it, set up the link, configure everything") {
  auto d = sample_desired();
  auto plan = plan_tunnel(d, ObservedTunnel{});
  REQUIRE(plan);
  CHECK_FALSE(plan->delete_stale_link);
  CHECK(plan->start_daemon);
  CHECK(plan->link.mtu == 1420u);
  CHECK(plan->link.up == true);
  CHECK(plan->link.mark_owned);
  CHECK(plan->delete_addresses.empty());
  REQUIRE(plan->add_addresses.size() == 1);
  CHECK(plan->add_addresses[0] == LinkAddress{ip("169.254.64.1"), 18});
  REQUIRE(plan->uapi.private_key);
  CHECK(*plan->uapi.private_key == d.private_key);
  CHECK(plan->uapi.listen_port == 51820);
  REQUIRE(plan->uapi.peers.size() == 2);
  const auto& b = plan->uapi.peers[0];
  CHECK(b.public_key == pub(2));
  CHECK_FALSE(b.remove);
  CHECK(b.endpoint == "192.0.2.2:51820");
  CHECK(b.keepalive_seconds == 25u);
  CHECK(*b.allowed_ips ==
        std::vector<std::string>{"10.250.2.0/24", "10.61.2.0/24", "169.254.64.2/32"});
}

TEST_CASE("converged: the plan is empty (no-op)") {
  auto d = sample_desired();
  auto plan = plan_tunnel(d, converged(d));
  REQUIRE(plan);
  CHECK(plan->empty());
  CHECK(plan_uapi(d, device_of(d)).empty());
}

TEST_CASE("a peer we no longer want is removed, and removals come first") {
  auto d = sample_desired();
  auto observed = converged(d);
  d.peers.erase(d.peers.begin());                                                   // drop b
  d.peers.push_back(peer("e", 5, "192.0.2.5", "169.254.64.5", {"10.250.2.0/24"}));  // b's range
  auto set = plan_uapi(d, *observed.device);
  REQUIRE(set.peers.size() == 2);
  CHECK(set.peers[0].public_key == pub(2));
  CHECK(set.peers[0].remove);
  CHECK(set.peers[1].public_key == pub(5));
  CHECK(set.peers[1].allowed_ips == std::vector<std::string>{"10.250.2.0/24", "169.254.64.5/32"});
  CHECK_FALSE(set.private_key);
  CHECK_FALSE(set.listen_port);
}

TEST_CASE("updates send only what differs: endpoint, allowed IPs, keepalive") {
  auto d = sample_desired();
  auto observed = converged(d);

  auto moved = d;
  moved.peers[0].endpoint = ip("192.0.2.22");
  auto set = plan_uapi(moved, *observed.device);
  REQUIRE(set.peers.size() == 1);
  CHECK(set.peers[0].endpoint == "192.0.2.22:51820");
  CHECK_FALSE(set.peers[0].allowed_ips);
  CHECK_FALSE(set.peers[0].keepalive_seconds);

  auto ranges = d;
  ranges.peers[1].ranges = {cidr("10.250.4.0/24")};
  set = plan_uapi(ranges, *observed.device);
  REQUIRE(set.peers.size() == 1);
  CHECK(set.peers[0].public_key == pub(3));
  CHECK_FALSE(set.peers[0].endpoint);
  CHECK(set.peers[0].allowed_ips == std::vector<std::string>{"10.250.4.0/24", "169.254.64.3/32"});

  auto quiet = d;
  quiet.peers[1].keepalive_seconds = 0;
  set = plan_uapi(quiet, *observed.device);
  REQUIRE(set.peers.size() == 1);
  CHECK(set.peers[0].keepalive_seconds == 0u);
  CHECK_FALSE(set.peers[0].endpoint);
}

TEST_CASE("device settings: a changed key or port is set again") {
  auto d = sample_desired();
  auto observed = converged(d);
  observed.device->private_key.reset();
  observed.device->listen_port = 40000;
  auto set = plan_uapi(d, *observed.device);
  CHECK(set.private_key == d.private_key);
  CHECK(set.listen_port == 51820);
  CHECK(set.peers.empty());
}

TEST_CASE("link drift is repaired: MTU, down, missing marker, stale address") {
  auto d = sample_desired();
  auto observed = converged(d);
  observed.link->mtu = 1500;
  observed.link->up = false;
  observed.link->owned = false;
  observed.link->addresses = {LinkAddress{ip("169.254.64.9"), 18}};
  auto plan = plan_tunnel(d, observed);
  REQUIRE(plan);
  CHECK_FALSE(plan->start_daemon);
  CHECK(plan->link.mtu == 1420u);
  CHECK(plan->link.up == true);
  CHECK(plan->link.mark_owned);
  CHECK(plan->delete_addresses == std::vector<LinkAddress>{{ip("169.254.64.9"), 18}});
  CHECK(plan->add_addresses == std::vector<LinkAddress>{{ip("169.254.64.1"), 18}});
  CHECK(plan->uapi.empty());
}

TEST_CASE("foreign links are refused; a daemon without its link is retried") {
  auto d = sample_desired();
  ObservedTunnel foreign;
  foreign.link = LinkState{"veth", false, true, 1500, {}};
  auto plan = plan_tunnel(d, foreign);
  REQUIRE_FALSE(plan);
  CHECK(plan.error().code() == fed::ErrorCode::Conflict);
  CHECK(plan.error().message().find("ip link del fed.wg") != std::string::npos);

  auto served = converged(d);
  served.link->kind = "vxlan";
  plan = plan_tunnel(d, served);
  REQUIRE_FALSE(plan);
  CHECK(plan.error().code() == fed::ErrorCode::Conflict);

  auto dying = converged(d);
  dying.link.reset();
  plan = plan_tunnel(d, dying);
  REQUIRE_FALSE(plan);
  CHECK(plan.error().code() == fed::ErrorCode::Unavailable);
}

TEST_CASE("the kernel back end: its link kind is \"wireguard\"; wireguard-go's is replaced") {
  auto d = sample_desired();
  auto kernel = converged(d);
  kernel.link_kind = "wireguard";
  kernel.link->kind = "wireguard";
  auto plan = plan_tunnel(d, kernel);
  REQUIRE(plan);
  CHECK(plan->empty());

  // The node switched back ends: our marked TUN link is still there and no kernel device runs.
  // It is deleted, then the kernel's made and configured from scratch.
  ObservedTunnel switched;
  switched.link_kind = "wireguard";
  switched.link = link_of(d);  // kind "tun", marked
  plan = plan_tunnel(d, switched);
  REQUIRE(plan);
  CHECK(plan->delete_stale_link);
  CHECK(plan->start_daemon);
  CHECK(plan->link.mark_owned);
  CHECK(plan->add_addresses.size() == 1);
  CHECK(plan->uapi.private_key);
  CHECK_FALSE(plan->empty());

  // Unmarked, it is someone else's: named, not taken over.
  switched.link->owned = false;
  plan = plan_tunnel(d, switched);
  REQUIRE_FALSE(plan);
  CHECK(plan.error().code() == fed::ErrorCode::Conflict);
  CHECK(plan.error().message().find("kind \"tun\"") != std::string::npos);

  // Served, but of another kind: not this back end's device.
  kernel.link->kind = "tun";
  plan = plan_tunnel(d, kernel);
  REQUIRE_FALSE(plan);
  CHECK(plan.error().code() == fed::ErrorCode::Conflict);
  CHECK(plan.error().message().find("\"tun\" device, not the \"wireguard\" device") !=
        std::string::npos);
}
