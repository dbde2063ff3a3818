#include "agent/manager/offload/virtual_kubelet/virtual_kubelet.hpp"

#include <spdlog/spdlog.h>

#include "agent/manager/offload/namespaces/accepted_replicas.hpp"
#include "agent/manager/offload/virtual_kubelet/kubelet_api.hpp"
#include "shared/kube/access_review.hpp"
#include "shared/util/strings.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;

const kube::ResourceRef kAccessReviews{
    {"authorization.k8s.io", "v1", "subjectaccessreviews"}, "", "", ""};

http::Response text(int status, const std::string& message) {
  return http::Response::text(status, message);
}

// The member's answer as the kubelet would give it: its status and message.
http::Response from_member(const kube::ApiError& error, const std::string& member) {
  const int status = error.http_status() > 0 ? error.http_status() : 502;
  return text(status, "member " + member + ": " + error.message());
}

}  // namespace

VirtualKubelet::VirtualKubelet(std::shared_ptr<kube::DynamicClient> host,
                               kube::Informer& namespace_maps, MemberClient member_client,
                               VirtualKubeletOptions options)
    : host_(host),
      namespace_maps_(namespace_maps),
      member_client_(std::move(member_client)),
      options_(std::move(options)),
      tls_(std::move(host), options_.advertise_address, options_.cert_dir) {}

VirtualKubelet::~VirtualKubelet() {
  stop();
}

Result<kube::Requeue> VirtualKubelet::reconcile(const kube::Request&) {
  FED_TRY(tls_.sync(std::chrono::system_clock::now()));
  std::lock_guard lock(mu_);
  if (server_ || stopping_.stop_requested()) return kube::Requeue{kKubeletTlsRecheck};
  http::ServerOptions server_options;
  server_options.bind_address = options_.bind_address;
  server_options.tls = tls_.files();
  server_options.name = "virtual-kubelet";
  FED_ASSIGN_OR_RETURN(auto server, http::Server::create(std::move(server_options)));
  server->handle_prefix(std::string(kContainerLogsPrefix),
                        [this](const http::Request& r) { return container_logs(r); });
  for (const auto prefix : kStreamingPrefixes) {
    server->handle_prefix(std::string(prefix), [this](const http::Request& r) { return stream(r); },
                          {"GET", "POST"});
  }
  server->handle_prefix(std::string(kRunPrefix),
                        [this](const http::Request& r) { return not_forwarded(r); }, {"POST"});
  FED_TRY(server->start());
  endpoint_ = KubeletEndpoint{options_.advertise_address, server->port()};
  spdlog::info("virtual kubelet: serving the kubelet API of the virtual nodes on https://{} as {}",
               server->local_address(), options_.advertise_address);
  server_ = std::move(server);
  return kube::Requeue{kKubeletTlsRecheck};
}

std::optional<KubeletEndpoint> VirtualKubelet::endpoint() const {
  std::lock_guard lock(mu_);
  return endpoint_;
}

void VirtualKubelet::stop() {
  stopping_.request_stop();
  std::unique_ptr<http::Server> server;
  {
    std::lock_guard lock(mu_);
    server = std::move(server_);
    endpoint_.reset();
  }
  if (server) server->stop();
}

std::optional<http::Response> VirtualKubelet::authorize(const http::Request& request,
                                                        const std::string& node,
                                                        std::string_view verb) {
  if (!request.peer) return text(401, "Unauthorized: no client certificate");
  auto answered = host_->create(
      kAccessReviews,
      node_proxy_review(request.peer->common_name, request.peer->organizations, node, verb));
  if (!answered) {
    spdlog::warn("virtual kubelet: access review for {} failed: {}", request.peer->common_name,
                 answered.error().message());
    return text(503, "the access review failed: " + answered.error().message());
  }
  std::string why;
  if (kube::review_allowed(*answered, why)) return std::nullopt;
  return text(403, "Forbidden (user=" + request.peer->common_name + ", verb=" + std::string(verb) +
                       ", resource=nodes, subresource=proxy, name=" + node + "): " + why);
}

Result<VirtualKubelet::Placement> VirtualKubelet::placement(const std::string& ns,
                                                            const std::string& pod) const {
  auto object = host_->get(kube::kPods.in_namespace(ns).named(pod));
  if (!object) {
    return fail(object.error().is_not_found() ? ErrorCode::NotFound : ErrorCode::Unavailable,
                object.error().message());
  }
  Placement where;
  where.node = (*object).value("spec", json::object()).value("nodeName", std::string());
  if (!where.node.starts_with(kVirtualNodePrefix)) {
    return fail(ErrorCode::NotFound, "pod " + ns + "/" + pod + " is not on a virtual node");
  }
  where.member = where.node.substr(kVirtualNodePrefix.size());
  const auto map = namespace_maps_.store().get("", where.member);
  const auto replicas = map ? accepted_replicas(*map) : std::map<std::string, std::string>{};
  if (const auto replica = replicas.find(ns); replica != replicas.end()) {
    where.replica = replica->second;
  }
  return where;
}

http::Response VirtualKubelet::container_logs(const http::Request& request) {
  auto target = parse_container_logs_path(request.path);
  if (!target) return text(400, target.error().message());
  auto where = placement(target->ns, target->pod);
  if (!where) {
    return text(where.error().code() == ErrorCode::NotFound ? 404 : 503, where.error().message());
  }
  if (auto refused = authorize(request, where->node)) return *refused;
  const std::string& member = where->member;
  if (!where->replica) {
    return text(404, "namespace " + target->ns + " has no replica on member " + member);
  }
  auto client = member_client_(member);
  if (!client) return text(503, client.error().message());
  const std::string path =
      "/api/v1/namespaces/" + *where->replica + "/pods/" + target->pod + "/log";
  const std::string query = member_log_query(request.query, target->container);
  if (query.find("follow=true") == std::string::npos) {
    auto log = (*client)->get_raw(path + "?" + query);
    if (!log) return from_member(log.error(), member);
    return text(200, *log);
  }
  // Once the answer's head is out its status cannot change, so a follow stream starts only
  // after a plain read of one byte has shown the member would serve the log.
  auto first = (*client)->get_raw(path + "?" + member_log_query("limitBytes=1", target->container));
  if (!first) return from_member(first.error(), member);
  http::Response response;
  response.status = 200;
  response.content_type = "text/plain";
  response.stream = [rest = (*client)->rest_ptr(), path, query, member,
                     stop = stopping_.get_token()](const http::ChunkWriter& write) {
    kube::ApiRequest upstream;
    upstream.path = path;
    upstream.query = query;
    upstream.accept = "*/*";
    upstream.timeout = std::chrono::milliseconds(0);  // as long as the container runs
    upstream.stop = stop;
    auto ended = rest->stream(upstream, [&write](std::string_view data) { return write(data); });
    if (!ended) {
      spdlog::debug("virtual kubelet: log stream from member {} ended: {}", member,
                    ended.error().message());
    }
  };
  return response;
}

http::Response VirtualKubelet::not_forwarded(const http::Request& request) {
  // /run/<namespace>/<pod>/<container>, the legacy one-shot command the API server no longer
  // sends: say where the pod really runs, to whoever may ask.
  const auto parts = util::split(request.path, '/');
  const std::string what = parts.size() > 1 ? parts[1] : "this";
  std::string where;
  if (parts.size() >= 4) {
    if (auto found = placement(parts[2], parts[3])) {
      if (auto refused = authorize(request, found->node)) return *refused;
      if (found->replica) {
        where = ": the pod runs on member cluster " + found->member + " as " + *found->replica +
                "/" + parts[3] + "; run the command there";
      }
    }
  }
  // A Status object: what the API server hands back to kubectl for a refused upgrade.
  const std::string message = "kubectl-fed virtual nodes do not forward " + what + where;
  return http::Response::json(501, json{{"apiVersion", "v1"},
                                        {"kind", "Status"},
                                        {"status", "Failure"},
                                        {"message", message},
                                        {"reason", "NotImplemented"},
                                        {"code", 501}}
                                       .dump());
}

}  // namespace fed::offload
