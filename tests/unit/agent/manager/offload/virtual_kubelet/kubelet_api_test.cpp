#include "agent/manager/offload/virtual_kubelet/kubelet_api.hpp"

#include <doctest/doctest.h>

#include "agent/manager/offload/virtual_kubelet/kubelet_serving_csr.hpp"
#include "shared/util/base64.hpp"

using namespace fed::offload;
using namespace std::chrono_literals;

TEST_CASE("a container log path names namespace, pod and container; other shapes are refused") {
  auto target = parse_container_logs_path("/containerLogs/shop/web-7d9/web");
  REQUIRE(target);
  CHECK(*target == ContainerLogsTarget{"shop", "web-7d9", "web"});
  for (const char* bad : {"/containerLogs/shop/web", "/containerLogs/shop/web/c/extra",
                          "/containerLogs//web/c", "/containerLogs/shop/web/", "/logs/x/y/z"}) {
    CAPTURE(bad);
    auto refused = parse_container_logs_path(bad);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code() == fed::ErrorCode::Invalid);
  }
}

TEST_CASE("the member's log query keeps the log options and nothing else") {
  CHECK(member_log_query("", "web") == "container=web");
  CHECK(
      member_log_query("follow=true&tailLines=10&timestamps=true&sinceTime=2026-11-25T07%3A00%3A00Z"
                       "&limitBytes=500&previous=false&sinceSeconds=5",
                       "web") ==
      "container=web&follow=true&tailLines=10&timestamps=true&sinceTime=2026-11-25T07%3A00%3A00Z"
      "&limitBytes=500&previous=false&sinceSeconds=5");
  // Nothing the API server did not mean for the log reaches the member.
  CHECK(member_log_query("container=other&follow&x=1&followx=2", "web") == "container=web&follow");
}

TEST_CASE("upgraded kubelet paths name the subresource, pod and container; others are refused") {
  CHECK(*parse_stream_path("/exec/shop/web-1/web") == StreamTarget{"exec", "shop", "web-1", "web"});
  CHECK(*parse_stream_path("/exec/shop/web-1/7a1b-uid/web") ==
        StreamTarget{"exec", "shop", "web-1", "web"});
  CHECK(*parse_stream_path("/attach/shop/web-1/web") ==
        StreamTarget{"attach", "shop", "web-1", "web"});
  CHECK(*parse_stream_path("/portForward/shop/web-1") ==
        StreamTarget{"portforward", "shop", "web-1", ""});
  CHECK(*parse_stream_path("/portForward/shop/web-1/7a1b-uid") ==
        StreamTarget{"portforward", "shop", "web-1", ""});
  for (const char* bad : {"/exec/shop/web-1", "/exec/shop//web", "/exec/a/b/c/d/e",
                          "/portForward/shop", "/run/shop/web-1/web", "/exec/shop/web-1/"}) {
    CAPTURE(bad);
    auto refused = parse_stream_path(bad);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code() == fed::ErrorCode::Invalid);
  }
}

TEST_CASE("the member's exec query renames the kubelet's stream flags and keeps the command") {
  const StreamTarget exec{"exec", "shop", "web-1", "web"};
  CHECK(member_stream_query(exec,
                            "command=sh&command=-c&command=echo%20hi&input=1&output=1&"
                            "error=1&tty=1&container=other&x=y") ==
        "container=web&command=sh&command=-c&command=echo%20hi&stdin=1&stdout=1&stderr=1&tty=1");
  CHECK(member_stream_query({"portforward", "shop", "web-1", ""}, "ports=8080&ports=9090") ==
        "ports=8080&ports=9090");
}

TEST_CASE("only the upgrade's own headers are relayed, never the caller's credentials") {
  const std::vector<std::pair<std::string, std::string>> in = {
      {"connection", "Upgrade"},
      {"upgrade", "SPDY/3.1"},
      {"x-stream-protocol-version", "v5.channel.k8s.io"},
      {"x-stream-protocol-version", "v4.channel.k8s.io"},
      {"authorization", "Bearer secret"},
      {"sec-websocket-protocol", "v5.channel.k8s.io"},
      {"x-remote-user", "admin"}};
  const std::vector<std::pair<std::string, std::string>> want = {
      {"connection", "Upgrade"},
      {"upgrade", "SPDY/3.1"},
      {"x-stream-protocol-version", "v5.channel.k8s.io"},
      {"x-stream-protocol-version", "v4.channel.k8s.io"},
      {"sec-websocket-protocol", "v5.channel.k8s.io"}};
  CHECK(upgrade_headers(in) == want);
}

TEST_CASE("the access review asks for the HTTP method's verb: create for a POST (exec)") {
  CHECK(node_proxy_review("u", {}, "n", "create")["spec"]["resourceAttributes"]["verb"] ==
        "create");
}

TEST_CASE("the access review asks for get nodes/proxy of the node, as a kubelet does") {
  const auto review =
      node_proxy_review("kube-apiserver-kubelet-client", {"a", "b"}, "kubectl-fed-c3");
  CHECK(review["spec"]["user"] == "kube-apiserver-kubelet-client");
  CHECK(review["spec"]["groups"] == nlohmann::json::array({"a", "b"}));
  const auto& attrs = review["spec"]["resourceAttributes"];
  CHECK(attrs["verb"] == "get");
  CHECK(attrs["resource"] == "nodes");
  CHECK(attrs["subresource"] == "proxy");
  CHECK(attrs["name"] == "kubectl-fed-c3");
}

TEST_CASE("the serving CSR is one the kubelet-serving signer takes for the virtual kubelet") {
  const auto subject = kubelet_serving_subject("10.244.1.9");
  CHECK(subject.common_name == "system:node:kubectl-fed-virtual-kubelet");
  CHECK(subject.organizations == std::vector<std::string>{"system:nodes"});
  CHECK(subject.ip_addresses == std::vector<std::string>{"10.244.1.9"});

  const auto csr = kubelet_serving_csr("-----BEGIN CERTIFICATE REQUEST-----\n", 3600s);
  CHECK(csr["spec"]["signerName"] == "kubernetes.io/kubelet-serving");
  CHECK(csr["spec"]["expirationSeconds"] == 3600);
  CHECK(csr["spec"]["usages"] == nlohmann::json::array({"digital signature", "server auth"}));
  CHECK(*fed::util::base64_decode(csr["spec"]["request"].get<std::string>()) ==
        "-----BEGIN CERTIFICATE REQUEST-----\n");
  CHECK(csr["metadata"]["generateName"] == "kubectl-fed-virtual-kubelet-");

  auto read = csr;
  read["metadata"]["name"] = "kubectl-fed-virtual-kubelet-x1";
  const auto approval = approved(read, "mine");
  REQUIRE(approval["status"]["conditions"].size() == 1);
  CHECK(approval["status"]["conditions"][0]["type"] == "Approved");
  CHECK(approval["status"]["conditions"][0]["status"] == "True");

  std::string why;
  CHECK_FALSE(refused(approval, why));
  auto denied = read;
  denied["status"]["conditions"] = {{{"type", "Denied"}, {"status", "True"}, {"reason", "Nope"}}};
  CHECK(refused(denied, why));
  CHECK(why.find("Denied: Nope") == 0);
}

TEST_CASE("renewal is due in the last third of the certificate's life, or outside it") {
  const auto start = std::chrono::system_clock::time_point{} + 1000h;
  const auto end = start + 30h;
  CHECK_FALSE(renewal_due(start, end, start));
  CHECK_FALSE(renewal_due(start, end, start + 19h));
  CHECK(renewal_due(start, end, start + 21h));
  CHECK(renewal_due(start, end, end));
  CHECK(renewal_due(start, end, start - 1h));
}
