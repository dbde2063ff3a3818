#include "agent/manager/hosts/member_probe.hpp"

#include <algorithm>

namespace fed::hosts {
namespace {

using namespace std::chrono_literals;

// "https://172.31.0.3:2480" -> "172.31.0.3".
std::string_view url_host(std::string_view url) {
  if (const auto scheme = url.find("://"); scheme != std::string_view::npos) {
    url.remove_prefix(scheme + 3);
  }
  const auto end = url.starts_with('[') ? url.find(']') + 1 : url.rfind(':');
  return end == std::string_view::npos ? url : url.substr(0, end);
}

}  // namespace

std::string reachable_client_url(const etcd::MemberInfo& member) {
  if (member.client_urls.empty()) return "";
  if (!member.peer_urls.empty()) {
    const auto peer_host = url_host(member.peer_urls.front());
    for (const auto& url : member.client_urls) {
      if (url_host(url) == peer_host) return url;
    }
  }
  return member.client_urls.front();
}

MemberProbe::MemberProbe(etcd::TlsFiles tls) : tls_(std::move(tls)) {}

Status MemberProbe::connect(const std::vector<etcd::MemberInfo>& members) {
  std::vector<std::string> urls;
  std::vector<std::uint64_t> ids;
  for (const auto& m : members) {
    std::string url = reachable_client_url(m);
    if (url.empty()) continue;  // added, not started yet
    urls.push_back(std::move(url));
    ids.push_back(m.id);
  }
  if (client_ && urls == urls_) return ok();
  client_.reset();
  urls_ = urls;
  ids_ = ids;
  if (urls.empty()) return fail(ErrorCode::Unavailable, "no member has started yet");
  etcd::ClientOptions options;
  options.endpoints = std::move(urls);
  options.tls = tls_;
  // Its pollers only route the leadership move; the probe asks each member itself.
  options.poll_period = 10s;
  options.status_timeout = 800ms;
  options.dial_timeout = 800ms;
  options.request_timeout = 1s;
  options.max_attempts = 1;
  FED_ASSIGN_OR_RETURN(client_, etcd::EtcdClient::create(std::move(options)));
  return ok();
}

std::optional<std::size_t> MemberProbe::index_of(std::uint64_t id) const {
  const auto it = std::find(ids_.begin(), ids_.end(), id);
  if (it == ids_.end()) return std::nullopt;
  return static_cast<std::size_t>(it - ids_.begin());
}

MemberHealth MemberProbe::probe(const std::vector<etcd::MemberInfo>& members, std::uint64_t id) {
  if (auto connected = connect(members); !connected) {
    return {"unreachable", std::nullopt, connected.error().message()};
  }
  const auto index = index_of(id);
  if (!index) return {"unreachable", std::nullopt, "it has not started yet"};
  auto status = client_->status(*index);
  if (!status) return member_health(std::nullopt, status.error().message(), std::nullopt);
  std::optional<etcd::StatusResponse> leader;
  if (const auto l = index_of(status->leader); l && status->leader != id) {
    if (auto s = client_->status(*l)) leader = std::move(*s);
  }
  return member_health(*status, "", leader);
}

Status MemberProbe::make_leader(const std::vector<etcd::MemberInfo>& members, std::uint64_t id) {
  FED_TRY(connect(members));
  return client_->move_leader(id);
}

}  // namespace fed::hosts
