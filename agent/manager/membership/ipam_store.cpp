#include "agent/manager/membership/ipam_store.hpp"

#include <spdlog/spdlog.h>

#include "agent/manager/ipam/address_blocks.hpp"
#include "agent/manager/ipam/api_convert.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/ipam_state.hpp"
#include "shared/fedapi/json_fields.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;

// `kind`'s object `name` with `spec`, created when `version` is "", else replaced if it is still
// at `version` (Conflict otherwise). Its new resourceVersion.
kube::ApiResult<std::string> write_object(kube::DynamicClient& client, const fedapi::Kind& kind,
                                          const std::string& name, json spec,
                                          const std::string& version) {
  json object{
      {"apiVersion", std::string(fedapi::kApiVersion)},
      {"kind", std::string(kind.kind)},
      {"metadata", {{"name", name}, {"labels", {{"app.kubernetes.io/part-of", "kubectl-fed"}}}}},
      {"spec", std::move(spec)}};
  const auto ref = fedapi::ref(kind, name);
  kube::ApiResult<json> written = [&] {
    if (version.empty()) return client.create(ref.collection(), object);
    object["metadata"]["resourceVersion"] = version;
    return client.update(ref, object);
  }();
  if (!written) return std::move(written).error();
  return (*written)["metadata"].value("resourceVersion", "");
}

// Adds `block`'s endpoints to `stored`; they replace what the legacy field said of them.
Status merge_block(StoredIpam& stored, const json& object) {
  const std::string name = object["metadata"].value("name", "");
  const std::string what = "IpamBlock " + name;
  FED_ASSIGN_OR_RETURN(auto spec, fedapi::decode<fedapi::IpamBlockSpec>(
                                      object.value("spec", json::object()), what + " spec"));
  auto endpoints = fabric::ipam::from_block_spec(spec);
  if (!endpoints) return std::move(endpoints).error().with_context(what + " spec");
  FED_ASSIGN_OR_RETURN(auto block, net::Cidr::parse(spec.cidr));
  if (fabric::ipam::block_name(block) != name) {
    return fail(ErrorCode::Invalid,
                what + " spec.cidr: " + spec.cidr + " is not the block its " +
                    "name says; delete the object, the manager writes it again");
  }
  for (const auto& [endpoint, es] : *endpoints) stored.state.endpoints[endpoint] = es;
  stored.blocks.emplace(block, std::move(*endpoints));
  stored.block_versions.emplace(block, object["metadata"].value("resourceVersion", ""));
  return ok();
}

// Drops references to peers the networks do not have, and endpoints left with none.
void drop_unknown_peers(StoredIpam& stored) {
  auto& endpoints = stored.state.endpoints;
  for (auto it = endpoints.begin(); it != endpoints.end();) {
    auto& clusters = it->second.clusters;
    std::erase_if(clusters, [&](const std::string& id) {
      const bool unknown = !stored.state.clusters.contains(id);
      stored.dropped_references += unknown ? 1 : 0;
      return unknown;
    });
    it = clusters.empty() ? endpoints.erase(it) : std::next(it);
  }
}

}  // namespace

Result<StoredIpam> read_stored_ipam(kube::DynamicClient& client) {
  StoredIpam stored;
  auto networks = client.get(fedapi::ref(fedapi::kIpamState, std::string(fedapi::kIpamStateName)));
  if (networks) {
    FED_ASSIGN_OR_RETURN(
        auto spec, fedapi::decode<fedapi::IpamStateSpec>((*networks).value("spec", json::object()),
                                                         "IpamState ipam spec"));
    auto state = fabric::ipam::from_spec(spec);
    if (!state) return std::move(state).error().with_context("IpamState ipam spec");
    stored.state = std::move(*state);
    stored.networks_version = (*networks)["metadata"].value("resourceVersion", "");
    stored.legacy_endpoints = !spec.endpoint_mappings.empty();
    if (spec.endpoint_block_length < 0 || spec.endpoint_block_length > 32) {
      return fail(ErrorCode::Invalid, "IpamState ipam spec.endpointBlockLength: " +
                                          std::to_string(spec.endpoint_block_length) +
                                          " is not a prefix length (1-32)");
    }
    stored.block_length = static_cast<std::uint8_t>(spec.endpoint_block_length);
  } else if (!networks.error().is_not_found()) {
    return networks.error().to_error();
  }
  auto blocks = client.list_all(fedapi::ref(fedapi::kIpamBlock, ""));
  // A member joined by an older release has no IpamBlock kind until it is joined again; a
  // member's IPAM maps no endpoints, so it has no blocks either way.
  if (!blocks && !blocks.error().is_not_found()) {
    return blocks.error().to_error().with_context("listing IpamBlocks");
  }
  for (const auto& object : blocks ? (*blocks).value("items", json::array()) : json::array()) {
    FED_TRY(merge_block(stored, object));
  }
  drop_unknown_peers(stored);
  if (stored.dropped_references > 0) {
    spdlog::warn(
        "IPAM: {} endpoint reference(s) to peers that are no longer peered dropped "
        "(a peer's removal was stored before its blocks)",
        stored.dropped_references);
  }
  return stored;
}

kube::ApiResult<std::string> write_stored_networks(kube::DynamicClient& client,
                                                   const fabric::ipam::IpamState& networks,
                                                   std::uint8_t block_length,
                                                   const std::string& version) {
  fabric::ipam::IpamState without_endpoints = networks;
  without_endpoints.endpoints.clear();
  fedapi::IpamStateSpec spec = fabric::ipam::to_spec(without_endpoints);
  spec.endpoint_block_length = block_length;
  return write_object(client, fedapi::kIpamState, std::string(fedapi::kIpamStateName), spec,
                      version);
}

kube::ApiResult<std::string> write_stored_block(kube::DynamicClient& client, const net::Cidr& block,
                                                const EndpointsByIp& endpoints,
                                                const std::string& version) {
  const std::string name = fabric::ipam::block_name(block);
  const auto ref = fedapi::ref(fedapi::kIpamBlock, name);
  if (endpoints.empty()) {
    if (version.empty()) return std::string();
    kube::DeleteOptions options;
    options.precondition_resource_version = version;
    auto removed = client.remove(ref, options);
    if (!removed && !removed.error().is_not_found()) return std::move(removed).error();
    return std::string();
  }
  return write_object(client, fedapi::kIpamBlock, name,
                      fabric::ipam::to_block_spec(block, endpoints), version);
}

}  // namespace fed::federation
