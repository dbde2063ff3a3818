#include "agent/etcdproxy/etcd_proxy_runner.hpp"

#include <spdlog/spdlog.h>

namespace fed::etcdproxy {

Status EtcdProxyRunner::start(const agent::RoleContext& ctx) {
  FED_ASSIGN_OR_RETURN(proxy_, EtcdProxy::create(options_, ctx.metrics));
  FED_TRY(proxy_->start());
  started_ = true;
  spdlog::info("etcd proxy listening on port {} for {} members", proxy_->port(),
               options_.members.size());
  return ok();
}

bool EtcdProxyRunner::ready() const {
  return started_.load() && proxy_->ready();
}

void EtcdProxyRunner::stop() {
  started_ = false;
  if (proxy_) proxy_->stop();
}

}  // namespace fed::etcdproxy
