#include "agent/etcdproxy/etcd_proxy.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>

#include "agent/etcdproxy/forwarded_connection.hpp"
#include "agent/etcdproxy/leader_health_monitor.hpp"
#include "agent/etcdproxy/status_socket.hpp"
#include "agent/etcdproxy/terminated_connection.hpp"

namespace fed::etcdproxy {

Result<std::unique_ptr<EtcdProxy>> EtcdProxy::create(const EtcdProxyOptions& options,
                                                     metrics::Registry& registry) {
  FED_TRY(validate(options));
  std::unique_ptr<EtcdProxy> proxy(new EtcdProxy(options, registry));
  for (const auto& m : options.members) {
    FED_ASSIGN_OR_RETURN(auto hp, parse_member_url(m));
    proxy->targets_.push_back(std::move(hp));
  }
  return proxy;
}

EtcdProxy::EtcdProxy(EtcdProxyOptions options, metrics::Registry& registry)
    : options_(std::move(options)), metrics_(registry, options_.members), registry_(registry) {}

EtcdProxy::~EtcdProxy() {
  stop();
}

Status EtcdProxy::start() {
  if (options_.serving_tls.enabled()) {
    FED_ASSIGN_OR_RETURN(termination_,
                         load_termination_contexts(options_.serving_tls, options_.status_tls));
  }
  FED_ASSIGN_OR_RETURN(auto address, parse_host_port(options_.listen_address));
  FED_ASSIGN_OR_RETURN(listener_, listen_tcp(address));
  FED_ASSIGN_OR_RETURN(port_, local_port(listener_));
  etcd::ClientOptions co;
  co.endpoints = options_.members;
  co.tls = options_.status_tls;
  co.policy = options_.policy;
  co.poll_period = options_.poll_period;
  co.status_timeout = options_.status_timeout;
  co.dial_timeout = options_.dial_timeout;
  co.on_leader_change = [this](std::optional<std::size_t>, std::optional<std::size_t> leader) {
    on_leader_change(leader);
  };
  FED_ASSIGN_OR_RETURN(client_, etcd::EtcdClient::create(std::move(co)));
  if (options_.classifier) {
    auto monitor = LeaderHealthMonitor::create(options_, *client_, registry_);
    if (!monitor) {
      stop();
      return std::move(monitor).error().with_context("leader+classifier");
    }
    monitor_ = std::move(*monitor);
    monitor_->start();
  }
  if (!options_.status_socket.empty()) {
    auto socket = StatusSocket::start(options_.status_socket,
                                      [this] { return etcd::to_json_text(status()); });
    if (!socket) {
      stop();
      return std::move(socket).error();
    }
    status_socket_ = std::move(*socket);
  }
  acceptor_ = std::jthread([this](std::stop_token stop) { accept_loop(stop); });
  serving_.store(true);
  spdlog::info("etcd-proxy: listening on {} (port {}), policy {}{}, {} members",
               options_.listen_address, port_, etcd::to_string(options_.policy),
               options_.classifier ? "+classifier" : "", options_.members.size());
  return ok();
}

void EtcdProxy::stop() {
  serving_.store(false);
  status_socket_.reset();  // first: it renders from everything below
  if (acceptor_.joinable()) {
    acceptor_.request_stop();
    acceptor_.join();
  }
  std::list<std::unique_ptr<ProxiedConnection>> closing;
  {
    std::lock_guard lock(mu_);
    closing.swap(connections_);
  }
  closing.clear();  // each destructor closes and joins
  // Stopped, not freed: view(), status() and leader_health() may run on other threads right now
  // (ready() too, until it sees serving_ cleared), so the monitor and the client live until the
  // destructor. The monitor stops first: its thread calls the client.
  if (monitor_) monitor_->stop();
  if (client_) client_->stop();  // joins the pollers; no leader callback runs after this
  listener_.reset();
}

bool EtcdProxy::ready() const {
  if (!serving_.load()) return false;
  if (options_.policy == etcd::RoutingPolicy::Leader) return client_->leader().has_value();
  for (const auto& m : client_->view().members) {
    if (m.healthy && m.id != 0) return true;
  }
  return false;
}

etcd::ClusterView EtcdProxy::view() const {
  return client_ ? client_->view() : etcd::ClusterView{};
}

std::vector<std::size_t> EtcdProxy::open_connections() const {
  std::vector<std::size_t> out(targets_.size(), 0);
  std::lock_guard lock(mu_);
  for (const auto& c : connections_) {
    const auto m = c->member();
    if (!c->done() && m < out.size()) ++out[m];
  }
  return out;
}

std::optional<LeaderHealth> EtcdProxy::leader_health() const {
  if (!monitor_) return std::nullopt;
  return monitor_->last();
}

bool EtcdProxy::dial(Fd& upstream, std::size_t& member) {
  const std::size_t n = targets_.size();
  const etcd::ClusterView v = client_->view();
  std::size_t first = 0;
  PickReason reason = PickReason::RoundRobin;
  {
    std::lock_guard lock(mu_);
    if (options_.policy == etcd::RoutingPolicy::Leader && v.leader) {
      first = *v.leader;
      reason = PickReason::Leader;
    } else {
      first = rr_next_ % n;
      for (std::size_t k = 0; k < n; ++k) {  // the next healthy member, like clientv3's picker
        if (v.members[(rr_next_ + k) % n].healthy) {
          first = (rr_next_ + k) % n;
          break;
        }
      }
      rr_next_ = first + 1;
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (first + k) % n;
    if (k > 0 && !v.members[i].healthy) continue;
    auto fd = dial_tcp(targets_[i], options_.dial_timeout);
    if (!fd) {
      metrics_.member(i).dial_failures->inc();
      spdlog::warn("etcd-proxy: {}", fd.error().message());
      continue;
    }
    upstream = std::move(*fd);
    member = i;
    metrics_.member(i).picks[static_cast<int>(k == 0 ? reason : PickReason::Fallback)]->inc();
    return true;
  }
  metrics_.failed_dials_all_members().inc();
  return false;
}

void EtcdProxy::on_leader_change(std::optional<std::size_t> leader) {
  if (!leader) return;  // unknown: keep connections; a dead leader's end by themselves
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    metrics_.member(i).is_leader->set(i == *leader ? 1.0 : 0.0);
  }
  std::lock_guard lock(mu_);
  if (last_leader_ && *last_leader_ != *leader) {
    metrics_.leader_changes().inc();
    last_move_ = etcd::ProxyLeaderMove{options_.members[*last_leader_], options_.members[*leader],
                                       std::chrono::system_clock::now()};
  }
  last_leader_ = leader;
  if (options_.policy != etcd::RoutingPolicy::Leader) return;
  const auto deadline = ProxiedConnection::Clock::now() + options_.drain_deadline;
  std::size_t drained = 0;
  for (auto& c : connections_) {
    const auto m = c->member();
    if (!c->done() && m < targets_.size() && m != *leader) {
      c->drain(options_.drain_quiet, deadline);
      ++drained;
    }
  }
  spdlog::info("etcd-proxy: leader is {}; draining {} connection(s) to other members",
               options_.members[*leader], drained);
}

void EtcdProxy::reap() {
  std::lock_guard lock(mu_);
  connections_.remove_if([](const auto& c) { return c->done(); });
}

void EtcdProxy::accept_loop(std::stop_token stop) {
  while (!stop.stop_requested()) {
    pollfd p{listener_.get(), POLLIN, 0};
    const int n = ::poll(&p, 1, 100);
    reap();
    if (n <= 0) continue;
    Fd client(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!client) {
      if (errno != EINTR && errno != EAGAIN) {
        spdlog::warn("etcd-proxy: accept: {}", std::strerror(errno));
      }
      continue;
    }
    const int one = 1;  // replies must not wait for Nagle: every etcd answer is latency-bound
    ::setsockopt(client.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    auto dialer = [this](Fd& up, std::size_t& m) { return dial(up, m); };
    std::unique_ptr<ProxiedConnection> conn;
    if (termination_) {
      conn = std::make_unique<TerminatedConnection>(
          std::move(client), dialer, metrics_,
          TerminationSettings{.contexts = &*termination_,
                              .members = &targets_,
                              .long_lived_after = options_.long_lived_after});
    } else {
      conn = std::make_unique<ForwardedConnection>(std::move(client), dialer, metrics_);
    }
    std::lock_guard lock(mu_);
    connections_.push_back(std::move(conn));
  }
}

Status run_etcd_proxy(const EtcdProxyOptions& options, metrics::Registry& registry,
                      std::stop_token stop) {
  FED_ASSIGN_OR_RETURN(auto proxy, EtcdProxy::create(options, registry));
  FED_TRY(proxy->start());
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  cv.wait(lock, stop, [] { return false; });
  proxy->stop();
  return ok();
}

}  // namespace fed::etcdproxy
