// The virtual kubelet's upgraded streams (docs/OFFLOAD.md): `kubectl exec`, `attach` and
// `port-forward` on the host reach the twin through the member's API server, as the
// federation's identity (pods/exec, pods/attach and pods/portforward in replicas only).

#include <poll.h>
#include <spdlog/spdlog.h>

#include "agent/manager/offload/virtual_kubelet/kubelet_api.hpp"
#include "agent/manager/offload/virtual_kubelet/stream_relay.hpp"
#include "agent/manager/offload/virtual_kubelet/virtual_kubelet.hpp"
#include "shared/util/strings.hpp"

namespace fed::offload {
namespace {

// How long connecting to the member and its answer to the upgrade may take.
constexpr std::chrono::seconds kUpgradeTimeout{30};

// The value of header `name` (lower case) in a raw response head; empty when absent.
std::string head_field(const std::string& head, std::string_view name) {
  std::size_t at = head.find("\r\n");
  while (at != std::string::npos && at + 2 < head.size()) {
    const std::size_t start = at + 2;
    const std::size_t end = head.find("\r\n", start);
    const std::string line = head.substr(start, end - start);
    const auto colon = line.find(':');
    if (colon != std::string::npos && util::to_lower(line.substr(0, colon)) == name) {
      return std::string(util::trim(line.substr(colon + 1)));
    }
    at = end;
  }
  return "";
}

// The member's refusal (no 101), relayed as it came: its status, type and body.
http::Response refusal(kube::UpgradeStream& member) {
  http::Response r;
  r.status = member.status();
  const std::string type = head_field(member.head(), "content-type");
  if (!type.empty()) r.content_type = type;
  r.body = member.take_leftover();
  const std::string length = head_field(member.head(), "content-length");
  const std::size_t want = length.empty() ? 64 * 1024 : std::stoul(length);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (r.body.size() < want && std::chrono::steady_clock::now() < deadline) {
    if (member.read_available(r.body) == kube::UpgradeStream::Read::Closed) break;
    pollfd p{member.fd(), POLLIN, 0};
    ::poll(&p, 1, 100);
  }
  return r;
}

}  // namespace

http::Response VirtualKubelet::stream(const http::Request& request) {
  auto target = parse_stream_path(request.path);
  if (!target) return http::Response::text(400, target.error().message());
  auto where = placement(target->ns, target->pod);
  if (!where) {
    return http::Response::text(where.error().code() == ErrorCode::NotFound ? 404 : 503,
                                where.error().message());
  }
  if (auto refused = authorize(request, where->node, request.method == "POST" ? "create" : "get")) {
    return *refused;
  }
  if (!where->replica) {
    return http::Response::text(
        404, "namespace " + target->ns + " has no replica on member " + where->member);
  }
  auto client = member_client_(where->member);
  if (!client) return http::Response::text(503, client.error().message());
  kube::UpgradeRequest upgrade;
  upgrade.method = request.method;
  upgrade.path_and_query = "/api/v1/namespaces/" + *where->replica + "/pods/" + target->pod + "/" +
                           target->subresource + "?" + member_stream_query(*target, request.query);
  upgrade.headers = upgrade_headers(request.headers);
  auto opened = kube::UpgradeStream::open((*client)->rest().config(), upgrade, kUpgradeTimeout);
  if (!opened) {
    return http::Response::text(503, "member " + where->member + ": " + opened.error().message());
  }
  std::shared_ptr<kube::UpgradeStream> member = std::move(*opened);
  if (member->status() != 101) return refusal(*member);
  spdlog::info("virtual kubelet: {} of {}/{} relayed to {}/{} on {}", target->subresource,
               target->ns, target->pod, *where->replica, target->pod, where->member);
  http::Response response;
  response.take_over = [member, what = target->subresource + " " + target->ns + "/" +
                                       target->pod](http::TakenConnection& caller) {
    // The member's 101 head (its negotiated protocol) and what followed it, then the stream.
    if (!caller.write(member->head() + member->take_leftover())) return;
    const auto totals = relay(caller, *member);
    spdlog::debug("virtual kubelet: {} ended ({} bytes in, {} out)", what, totals.to_member,
                  totals.from_member);
  };
  return response;
}

}  // namespace fed::offload
