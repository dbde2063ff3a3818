#include "plugin/membership/path_proof.hpp"

#include <thread>

#include "plugin/connect/cluster_facts.hpp"
#include "plugin/manifests/render.hpp"
#include "plugin/membership/join_diagnosis.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/peering.hpp"
#include "shared/fedapi/probe_answer.hpp"
#include "shared/net/net_types.hpp"
#include "shared/pki/random_token.hpp"
#include "shared/util/rfc3339.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;
using clock = std::chrono::steady_clock;

const kube::ResourceRef kPods{{"", "v1", "pods"}, std::string(fedapi::kNamespace), "", ""};

// The member's gateway node as join chose it, or "" when it cannot be read.
std::string member_gateway(kube::DynamicClient& member) {
  auto nodes = list_nodes(member);
  if (!nodes) return "";
  return pick_gateway_node(*nodes, "").value_or("");
}

std::string seconds_left(clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::seconds>(deadline - clock::now());
  return std::to_string(std::max<long>(left.count(), 1)) + "s";
}

// Why a pod is not running yet: its container's waiting reason and message, else its phase.
std::string pod_state(const json& pod) {
  const json status = pod.value("status", json::object());
  for (const auto& cs : status.value("containerStatuses", json::array())) {
    const json waiting = cs.value("state", json::object()).value("waiting", json::object());
    if (!waiting.empty()) {
      return waiting.value("reason", "Waiting") + ": " + waiting.value("message", "");
    }
  }
  for (const auto& c : status.value("conditions", json::array())) {
    if (c.value("status", "") == "False" && !c.value("message", "").empty()) {
      return c.value("reason", "") + ": " + c.value("message", "");
    }
  }
  return "phase " + status.value("phase", "Pending");
}

// Deletes the pods it was given when it goes out of scope, whatever happened.
class ProbePods final {
 public:
  ProbePods() = default;
  ProbePods(const ProbePods&) = delete;
  ProbePods& operator=(const ProbePods&) = delete;
  ~ProbePods() {
    for (auto& [client, name] : pods_) {
      kube::DeleteOptions now;
      now.grace_period_seconds = 0;
      (void)client->remove(kPods.named(name), now);
    }
  }
  // Creates `pod` (generateName) and remembers it; its server-given name.
  Result<std::string> create(kube::DynamicClient& client, const json& pod,
                             const std::string& where) {
    auto made = client.create(kPods, pod);
    if (!made) {
      return fail(made.error().code(),
                  "creating the probe pod on " + where + ": " + made.error().to_error().message());
    }
    std::string name = (*made)["metadata"].value("name", "");
    pods_.emplace_back(&client, name);
    return name;
  }

 private:
  std::vector<std::pair<kube::DynamicClient*, std::string>> pods_;
};

// Polls pod `name` until `done(pod)` or the deadline; the last pod read.
template <typename Done>
Result<json> watch_pod(kube::DynamicClient& client, const std::string& name,
                       clock::time_point deadline, Done done) {
  json last = json::object();
  while (true) {
    auto pod = client.get(kPods.named(name));
    if (pod) {
      last = std::move(*pod);
      if (done(last)) return last;
    } else if (!pod.error().is_not_found() && pod.error().code() != ErrorCode::Unavailable) {
      return fail(pod.error().code(), pod.error().to_error().message());
    }
    if (clock::now() >= deadline) return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

std::string phase_of(const json& pod) {
  return pod.value("status", json::object()).value("phase", "");
}

}  // namespace

Result<std::string> translate_address(const std::string& address, const std::string& from,
                                      const std::string& to) {
  if (to.empty() || to == fedapi::kNone) return address;
  FED_ASSIGN_OR_RETURN(auto ip, net::Ipv4::parse(address));
  FED_ASSIGN_OR_RETURN(auto src, net::Cidr::parse(from));
  FED_ASSIGN_OR_RETURN(auto dst, net::Cidr::parse(to));
  if (src.length != dst.length || !src.contains(ip)) {
    return fail(ErrorCode::Invalid, address + " cannot be moved from " + from + " to " + to);
  }
  return net::Ipv4{dst.network.value | (ip.value & ~src.mask())}.str();
}

json probe_pod(const std::string& name, const std::string& image,
               const std::vector<std::string>& args, const std::string& token) {
  json container{{"name", "probe"},
                 {"image", image},
                 {"imagePullPolicy", "IfNotPresent"},
                 {"command", json::array({"/usr/local/bin/fed-agent", "probe"})},
                 {"args", args},
                 {"env", json::array({{{"name", "FED_PROBE_TOKEN"}, {"value", token}}})},
                 {"securityContext",
                  {{"runAsNonRoot", true},
                   {"runAsUser", 65534},
                   {"allowPrivilegeEscalation", false},
                   {"readOnlyRootFilesystem", true},
                   {"capabilities", {{"drop", json::array({"ALL"})}}}}},
                 {"resources", {{"requests", {{"cpu", "10m"}, {"memory", "16Mi"}}}}}};
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"generateName", name + "-"},
                {"namespace", std::string(fedapi::kNamespace)},
                {"labels",
                 {{std::string(kPartOfLabel), std::string(kPartOfValue)},
                  {"app.kubernetes.io/component", "join-probe"}}}}},
              {"spec",
               {{"restartPolicy", "Never"},
                {"automountServiceAccountToken", false},
                {"terminationGracePeriodSeconds", 0},
                {"containers", json::array({container})}}}};
}

Result<json> prove_data_path(const ProbeSides& s, const json& peering,
                             std::chrono::milliseconds timeout, Output& out) {
  const auto deadline = clock::now() + timeout;
  const std::string started = util::format_rfc3339(std::chrono::system_clock::now());
  FED_ASSIGN_OR_RETURN(auto spec, fedapi::decode<fedapi::PeeringSpec>(
                                      peering.value("spec", json::object()), "Peering spec"));
  FED_ASSIGN_OR_RETURN(auto status, fedapi::decode<fedapi::PeeringStatus>(
                                        peering.value("status", json::object()), "Peering status"));
  ProbePods pods;
  // The listener answers only the dialler made here (anything else reaching the pod learns
  // nothing); a fresh token per proof.
  FED_ASSIGN_OR_RETURN(const std::string token, pki::random_token());

  out.progress("Proving the data path: a probe listener on " + s.host_id + "...");
  FED_ASSIGN_OR_RETURN(auto listener,
                       pods.create(s.host,
                                   probe_pod("fed-probe-" + s.member_id, s.image,
                                             {"--listen", std::to_string(kProbePort), "--id",
                                              s.host_id, "--for", seconds_left(deadline)},
                                             token),
                                   s.host_id));
  FED_ASSIGN_OR_RETURN(auto lpod, watch_pod(s.host, listener, deadline, [](const json& p) {
                         return phase_of(p) != "Pending" && !p["status"].value("podIP", "").empty();
                       }));
  if (phase_of(lpod) != "Running") {
    return fail(ErrorCode::Unavailable, "the probe listener pod " + listener + " on " + s.host_id +
                                            " did not start: " + pod_state(lpod));
  }
  const std::string listener_ip = lpod["status"].value("podIP", "");
  const std::string listener_node = lpod["spec"].value("nodeName", "");
  FED_ASSIGN_OR_RETURN(auto target, translate_address(listener_ip, status.local_pod_cidr,
                                                      status.local_remapped_pod_cidr));

  out.progress("Proving the data path: " + s.member_id + " dials " + target + ":" +
               std::to_string(kProbePort) + " (" + s.host_id + "/" + listener_node + ")...");
  FED_ASSIGN_OR_RETURN(auto dialler,
                       pods.create(s.member,
                                   probe_pod("fed-probe-" + s.host_id, s.image,
                                             {"--dial", target + ":" + std::to_string(kProbePort),
                                              "--timeout", seconds_left(deadline)},
                                             token),
                                   s.member_id));
  FED_ASSIGN_OR_RETURN(auto dpod, watch_pod(s.member, dialler, deadline, [](const json& p) {
                         const auto phase = phase_of(p);
                         return phase == "Succeeded" || phase == "Failed";
                       }));
  const std::string dialler_ip = dpod["status"].value("podIP", "");
  const std::string dialler_node = dpod["spec"].value("nodeName", "");
  const std::string hop = s.member_id + "/" + dialler_node + " pod " + dialler_ip + " -> " +
                          s.host_id + "/" + listener_node + " pod " + listener_ip +
                          " (dialled as " + target + ")";
  std::string message;
  for (const auto& cs : dpod["status"].value("containerStatuses", json::array())) {
    message =
        cs.value("state", json::object()).value("terminated", json::object()).value("message", "");
  }
  while (!message.empty() && message.back() == '\n') message.pop_back();
  if (phase_of(dpod) != "Succeeded") {
    const std::string why = phase_of(dpod) == "Failed" ? message : pod_state(dpod);
    std::string where = "tunnel " + std::string(fedapi::to_string(status.tunnel.state)) +
                        (status.tunnel.message.empty() ? "" : " (" + status.tunnel.message + ")");
    if (status.tunnel.state == fedapi::TunnelState::Connected) {
      // The gateways handshake: the broken hop is inside a cluster, where the agents know more.
      auto agents = diagnose_path(s,
                                  {{s.member_id, dialler_node},
                                   {s.member_id, member_gateway(s.member)},
                                   {s.host_id, status.gateway_node},
                                   {s.host_id, listener_node}},
                                  started);
      where += "; " + (agents ? *agents
                              : "the node agents could not be read: " + agents.error().message());
    }
    return fail(ErrorCode::Unavailable,
                "data path broken: no TCP answer on " + hop + ": " + why + "; " + where);
  }
  auto seen = fedapi::parse_probe_answer(message);
  if (!seen) return fail(ErrorCode::Internal, "the dialler pod " + seen.error().message());
  FED_ASSIGN_OR_RETURN(auto expected,
                       translate_address(dialler_ip, spec.peer_pod_cidr, status.remote_pod_cidr));
  if (*seen != expected) {
    return fail(ErrorCode::Unavailable, "data path translates wrongly: on " + hop +
                                            " the host saw source " + *seen + ", expected " +
                                            expected);
  }
  return json{
      {"listener", {{"cluster", s.host_id}, {"node", listener_node}, {"podIP", listener_ip}}},
      {"dialler", {{"cluster", s.member_id}, {"node", dialler_node}, {"podIP", dialler_ip}}},
      {"dialledAddress", target},
      {"sourceSeen", *seen}};
}

}  // namespace fed::plugin
