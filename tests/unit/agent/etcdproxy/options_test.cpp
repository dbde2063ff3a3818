#include "agent/etcdproxy/options.hpp"

#include <doctest/doctest.h>

#include "agent/etcdproxy/socket_util.hpp"

using namespace fed::etcdproxy;

TEST_CASE("member URLs and listen addresses parse; DNS names are refused") {
  auto m = parse_member_url("https://10.0.0.1:2379");
  REQUIRE(m);
  CHECK(m->host == "10.0.0.1");
  CHECK(m->port == 2379);
  auto v6 = parse_host_port("[::1]:23790");
  REQUIRE(v6);
  CHECK(v6->host == "::1");
  CHECK_FALSE(parse_member_url("10.0.0.1:2379"));
  CHECK_FALSE(parse_member_url("https://etcd.example:2379"));
  CHECK_FALSE(parse_host_port("127.0.0.1:99999"));
}

TEST_CASE("validate names the flag at fault") {
  EtcdProxyOptions o;
  auto none = validate(o);
  REQUIRE_FALSE(none);
  CHECK(none.error().message().find("--members") == 0);
  o.members = {"https://10.0.0.1:2379", "http://10.0.0.2:2379"};
  CHECK(validate(o));
  o.listen_address = "localhost";
  CHECK_FALSE(validate(o));
}

TEST_CASE("policies: leader+classifier routes to the leader and needs a model file") {
  CHECK(parse_proxy_policy("leader")->routing == fed::etcd::RoutingPolicy::Leader);
  CHECK_FALSE(parse_proxy_policy("leader")->classifier);
  CHECK(parse_proxy_policy("round-robin")->routing == fed::etcd::RoutingPolicy::RoundRobin);
  auto c = parse_proxy_policy("leader+classifier");
  REQUIRE(c);
  CHECK(c->routing == fed::etcd::RoutingPolicy::Leader);
  CHECK(c->classifier);
  CHECK_FALSE(parse_proxy_policy("classifier"));

  EtcdProxyOptions o;
  o.members = {"https://10.0.0.1:2379"};
  o.classifier = true;
  auto no_model = validate(o);
  REQUIRE_FALSE(no_model);
  CHECK(no_model.error().message().find("--classifier-model") == 0);
  o.classifier_model = "/etc/fed/leader-health.json";
  CHECK(validate(o));
  o.move_hold_periods = 0;
  CHECK_FALSE(validate(o));
  o.move_hold_periods = 3;
  o.policy = fed::etcd::RoutingPolicy::RoundRobin;
  CHECK_FALSE(validate(o));
}

TEST_CASE("terminating TLS needs the serving key, a client CA and the proxy's client certificate") {
  EtcdProxyOptions o;
  o.members = {"https://10.0.0.1:2379"};
  o.serving_tls.cert_file = "/pki/proxy.crt";
  auto no_key = validate(o);
  REQUIRE_FALSE(no_key);
  CHECK(no_key.error().message().find("--serve-key") == 0);
  o.serving_tls.key_file = "/pki/proxy.key";
  auto no_ca = validate(o);
  REQUIRE_FALSE(no_ca);
  CHECK(no_ca.error().message().find("--serve-client-ca") == 0);
  o.status_tls.ca_file = "/pki/ca.crt";
  auto no_client_cert = validate(o);
  REQUIRE_FALSE(no_client_cert);
  CHECK(no_client_cert.error().message().find("--cert") == 0);
  o.status_tls.cert_file = "/pki/client.crt";
  o.status_tls.key_file = "/pki/client.key";
  CHECK(validate(o));
}
