#include "agent/node/reconfig/config_file.hpp"

#include <doctest/doctest.h>

#include <string>

using fed::ErrorCode;
using nlohmann::json;
using namespace fed::reconfig;

namespace {

// A kubeadm-style file: comments, quoted strings that look like numbers, maps, lists, and a
// field kubectl-fed has never heard of.
constexpr std::string_view kYaml = R"(# written by kubeadm
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous:
    enabled: false
  x509:
    clientCAFile: /etc/kubernetes/pki/ca.crt
cgroupDriver: systemd
clusterDNS:
  - 10.96.0.10
cpuManagerReconcilePeriod: 0s
evictionHard:
  memory.available: 100Mi
  nodefs.available: "10%"
maxPods: 110
reservedSystemCPUs: "0"   # a string; 0 unquoted would be a number
someFutureField:
  nested: [1, two]
)";

constexpr std::string_view kJson = R"(
  {
    "apiVersion": "kubelet.config.k8s.io/v1beta1",
    "kind": "KubeletConfiguration",
    "maxPods": 29,
    "featureGates": {"RotateKubeletServerCertificate": true},
    "kubeReserved": {"cpu": "70m", "memory": "442Mi"},
    "registerWithTaints": [],
    "providerID": "aws:///eu-west-1a/i-0123"
  })";

KubeletConfigText parse(std::string_view text) {
  auto parsed = parse_kubelet_config(text, "/var/lib/kubelet/config.yaml");
  REQUIRE_MESSAGE(parsed.has_value(), parsed.error().message());
  return *parsed;
}

std::string parse_error(std::string_view text) {
  auto parsed = parse_kubelet_config(text, "/etc/kubelet.yaml");
  REQUIRE_FALSE(parsed.has_value());
  CHECK(parsed.error().code() == ErrorCode::Invalid);
  CHECK(parsed.error().message().find("/etc/kubelet.yaml") != std::string::npos);
  return parsed.error().message();
}

}  // namespace

TEST_CASE("a YAML config is typed as the kubelet reads it") {
  const auto parsed = parse(kYaml);
  CHECK(parsed.format == ConfigFormat::Yaml);
  const json& c = parsed.config;
  CHECK(c["kind"] == "KubeletConfiguration");
  CHECK(c["maxPods"] == 110);
  CHECK(c["reservedSystemCPUs"] == "0");  // quoted: stays a string
  CHECK(c["authentication"]["anonymous"]["enabled"] == false);
  CHECK(c["evictionHard"] == json{{"memory.available", "100Mi"}, {"nodefs.available", "10%"}});
  CHECK(c["clusterDNS"] == json{"10.96.0.10"});
  CHECK(c["someFutureField"] == json{{"nested", {1, "two"}}});
}

TEST_CASE("a YAML config renders back as YAML with every field, without the comments") {
  const auto parsed = parse(kYaml);
  const std::string text = render_kubelet_config(parsed.config, parsed.format);
  CHECK(text.back() == '\n');
  CHECK(text.find('#') == std::string::npos);  // comments are not kept (as documented)
  CHECK(text.find("reservedSystemCPUs: \"0\"\n") != std::string::npos);
  CHECK(text.find("kind: KubeletConfiguration\n") != std::string::npos);
  CHECK(text.find("  memory.available: 100Mi\n") != std::string::npos);
  CHECK(text.find('{') == std::string::npos);  // block style, not JSON
  const auto again = parse(text);
  CHECK(again.format == ConfigFormat::Yaml);
  CHECK(again.config == parsed.config);  // unknown fields and every type survive
  CHECK(render_kubelet_config(again.config, again.format) == text);
}

TEST_CASE("a JSON config (EKS, AKS) stays JSON when written back") {
  const auto parsed = parse(kJson);  // leading whitespace before '{'
  CHECK(parsed.format == ConfigFormat::Json);
  CHECK(parsed.config["maxPods"] == 29);
  CHECK(parsed.config["registerWithTaints"] == json::array());
  const std::string text = render_kubelet_config(parsed.config, parsed.format);
  CHECK(text.rfind("{\n  \"apiVersion\"", 0) == 0);
  CHECK(text.back() == '\n');
  CHECK(json::parse(text) == parsed.config);
  const auto again = parse(text);
  CHECK(again.format == ConfigFormat::Json);
  CHECK(again.config == parsed.config);
}

TEST_CASE("anything but one KubeletConfiguration document is refused, naming the file") {
  CHECK(parse_error("").find("found 0") != std::string::npos);
  CHECK(parse_error("kind: KubeletConfiguration\n---\nkind: KubeletConfiguration\n")
            .find("found 2") != std::string::npos);
  CHECK(parse_error("apiVersion: v1\nkind: ConfigMap\n").find("not a KubeletConfiguration") !=
        std::string::npos);
  CHECK(parse_error("maxPods: 110\n").find("--kubelet-config") != std::string::npos);
  CHECK(parse_error("kind: [unclosed\n").find("not valid YAML") != std::string::npos);
  // Found by the manifests fuzz target: a kind that is no string was a json type_error.
  CHECK(parse_error("kind: &k\nmaxPods: 1\n").find("not a KubeletConfiguration") !=
        std::string::npos);
  CHECK(parse_error("kind: [KubeletConfiguration]\n").find("not a KubeletConfiguration") !=
        std::string::npos);
  parse_error("- kind: KubeletConfiguration\n");  // a list, not a mapping
}

TEST_CASE("the empty drop-in is a valid config that sets nothing") {
  const json empty = empty_kubelet_config();
  CHECK(empty ==
        json{{"apiVersion", "kubelet.config.k8s.io/v1beta1"}, {"kind", "KubeletConfiguration"}});
  const std::string text = render_kubelet_config(empty, ConfigFormat::Yaml);
  CHECK(text == "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n");
  CHECK(parse(text).config == empty);
}
