#include "agent/node/api_state_source.hpp"

#include <algorithm>
#include <utility>

#include "shared/fedapi/group.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;

std::int64_t generation_of(const json& object) {
  return object.value("metadata", json::object()).value("generation", std::int64_t{0});
}

std::vector<json> objects(const kube::Informer& informer) {
  std::vector<json> out;
  for (const auto& o : informer.store().list()) out.push_back(*o);
  return out;
}

}  // namespace

ApiNodeStateSource::ApiNodeStateSource(std::shared_ptr<kube::DynamicClient> client,
                                       std::string node_name, std::string tunnel_interface)
    : node_name_(std::move(node_name)), tunnel_interface_(std::move(tunnel_interface)) {
  // A NatMapping's update that leaves metadata.generation alone (a status write, such as the
  // gateway's own report) changes nothing the datapath uses.
  auto add = [&](kube::ResourceRef collection, bool nat_mappings = false) {
    informers_.push_back(std::make_unique<kube::Informer>(client, std::move(collection)));
    auto* inf = informers_.back().get();
    inf->add_handlers(
        {[this, nat_mappings](const kube::ObjectPtr&) { changed(nat_mappings); },
         [this, nat_mappings](const kube::ObjectPtr& before, const kube::ObjectPtr& now) {
           if (nat_mappings && generation_of(*before) == generation_of(*now)) return;
           changed(nat_mappings);
         },
         [this, nat_mappings](const kube::ObjectPtr&) { changed(nat_mappings); }});
    return inf;
  };
  nodes_ = add(kube::ResourceRef{{"", "v1", "nodes"}, "", "", ""});
  peerings_ = add(fedapi::ref(fedapi::kPeering, ""));
  nat_mappings_ = add(fedapi::ref(fedapi::kNatMapping, ""), /*nat_mappings=*/true);
  // Every ConfigMap of our namespace (a handful): the federation one, and the gateway one the
  // gateway's agent republishes when it is deleted or stale.
  config_ = add(kube::ResourceRef{{"", "v1", "configmaps"}, std::string(kNamespace), "", ""});
}

ApiNodeStateSource::~ApiNodeStateSource() {
  stop();
}

Status ApiNodeStateSource::start(std::chrono::milliseconds timeout) {
  for (auto& inf : informers_) inf->start();
  for (auto& inf : informers_) {
    if (!inf->wait_for_sync(timeout)) {
      return fail(ErrorCode::Unavailable,
                  "the cache of " + inf->collection().to_string() + " did not sync within " +
                      std::to_string(timeout.count()) +
                      " ms: API server unreachable, or the agent's RBAC does not allow "
                      "list/watch");
    }
  }
  return ok();
}

void ApiNodeStateSource::stop() {
  for (auto& inf : informers_) inf->stop();
}

void ApiNodeStateSource::changed(bool nat_mapping) {
  {
    std::lock_guard lock(mu_);
    (nat_mapping ? changes_.nat_mappings : changes_.others) = true;
  }
  if (on_change_) on_change_();
}

InputChanges ApiNodeStateSource::take_changes() {
  std::lock_guard lock(mu_);
  return std::exchange(changes_, InputChanges{});
}

Result<NodeStateInputs> ApiNodeStateSource::inputs() const {
  auto cm = config_->store().get(kNamespace, kFederationConfigMap);
  if (!cm) {
    return fail(ErrorCode::NotFound, "ConfigMap " + std::string(kNamespace) +
                                         "/federation not found: this cluster is not part of a "
                                         "federation yet (kubectl fed init / join)");
  }
  NodeStateInputs in;
  FED_ASSIGN_OR_RETURN(in.self, parse_cluster_info(*cm));
  in.node_name = node_name_;
  in.tunnel_interface = tunnel_interface_;
  in.nodes = objects(*nodes_);
  in.peerings = objects(*peerings_);
  in.nat_mappings = parsed_nat_->entries(nat_mappings_->store().list());
  if (auto gw = config_->store().get(kNamespace, kGatewayConfigMap)) {
    if (auto info = parse_gateway_info(*gw)) in.published_gateway = std::move(*info);
  }
  // Our ExternalCIDR, as the manager recorded it in every Peering it wrote here.
  for (const auto& p : in.peerings) {
    const std::string ext = p.value("status", json::object()).value("localExternalCIDR", "");
    if (ext.empty()) continue;
    auto c = net::Cidr::parse(ext);
    if (!c) {
      return fail(ErrorCode::Invalid, "Peering " + p["metadata"].value("name", "") +
                                          " status.localExternalCIDR: " + c.error().message());
    }
    in.external_cidr = *c;
    break;
  }
  return in;
}

Result<fabric::NodeNetworkState> ApiNodeStateSource::load() {
  FED_ASSIGN_OR_RETURN(auto in, inputs());
  auto state = build_node_state(in);
  std::map<std::string, LoadedNatMapping> loaded;
  if (state && state->is_gateway()) {
    for (const auto& nm : in.nat_mappings) {
      // A peer not installed yet (its Peering pending) has none of its rules in the kernel.
      if (nm->peer.empty() ||
          std::none_of(state->peers.begin(), state->peers.end(),
                       [&](const fabric::Peer& p) { return p.cluster_id == nm->peer; })) {
        continue;
      }
      loaded[nm->name] = {nm->generation, static_cast<std::int64_t>(nm->entries.size())};
    }
  }
  std::lock_guard lock(mu_);
  loaded_nat_ = std::move(loaded);
  return state;
}

std::map<std::string, LoadedNatMapping> ApiNodeStateSource::loaded_nat_mappings() const {
  std::lock_guard lock(mu_);
  return loaded_nat_;
}

std::vector<std::string> ApiNodeStateSource::pending() const {
  auto in = inputs();
  if (!in) return {in.error().message()};
  return pending_peerings(*in);
}

}  // namespace fed::federation
