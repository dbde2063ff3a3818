#include "agent/node/reconfig/node_client.hpp"

#include <chrono>
#include <utility>

#include "shared/util/strings.hpp"

namespace fed::reconfig {
namespace {

const kube::GroupVersionResource kNodes{"", "v1", "nodes"};

}  // namespace

NodeClient::NodeClient(std::shared_ptr<kube::DynamicClient> client, std::string node)
    : client_(std::move(client)), node_(std::move(node)) {}

Result<nlohmann::json> NodeClient::get_node() {
  auto node = client_->get(kube::ResourceRef{kNodes, "", node_, ""});
  if (!node) return node.error().to_error().with_context("reading Node " + node_);
  return std::move(node).value();
}

Status NodeClient::save(const Progress& progress) {
  const auto patch = progress_patch(progress, std::chrono::system_clock::now());
  auto r = client_->patch(kube::ResourceRef{kNodes, "", node_, ""}, kube::PatchType::Merge,
                          patch.dump());
  if (!r) return r.error().to_error().with_context("recording progress on Node " + node_);
  return ok();
}

KubeletObservation NodeClient::observe() {
  KubeletObservation seen;
  const std::string proxy = "/api/v1/nodes/" + node_ + "/proxy/";
  if (auto healthz = client_->get_raw(proxy + "healthz"); !healthz) {
    seen.healthz_detail = healthz.error().to_error().message();
  } else if (util::trim(*healthz) != "ok") {
    seen.healthz_detail = "answered \"" + std::string(util::trim(*healthz)) + "\"";
  } else {
    seen.healthz_ok = true;
  }
  if (auto node = get_node()) seen.node = std::move(node).value();
  auto configz = client_->get_raw(proxy + "configz");
  if (!configz) {
    seen.configz_detail = configz.error().to_error().message();
    return seen;
  }
  auto parsed = nlohmann::json::parse(*configz, nullptr, false);
  if (parsed.is_discarded() || !parsed.contains("kubeletconfig")) {
    seen.configz_detail = "answer has no \"kubeletconfig\" object";
  } else {
    seen.configz = parsed["kubeletconfig"];
  }
  return seen;
}

}  // namespace fed::reconfig
