#include "agent/node/fabric/apply.hpp"

namespace fed::fabric {
namespace {

// A delete that finds nothing has reached its goal.
Status tolerate_missing(Status s) {
  if (!s && s.error().code() == ErrorCode::NotFound) return ok();
  return s;
}

}  // namespace

void Errors::add(const Status& s) {
  if (!s) errors_.push_back(s.error());
}

void Errors::add(const Error& e) {
  errors_.push_back(e);
}

Status Errors::result(std::string_view context) const {
  if (errors_.empty()) return ok();
  if (errors_.size() == 1) return Unexpected(errors_[0].with_context(context));
  std::string msg = std::to_string(errors_.size()) + " failures: ";
  for (std::size_t i = 0; i < errors_.size(); ++i) {
    msg += (i ? "; " : "") + errors_[i].message();
  }
  return Unexpected(Error(errors_[0].code(), std::string(context) + ": " + msg));
}

Status apply_links(os::LinkManager& links, const LinkChanges& ch, const std::string& device) {
  Errors errors;
  if (ch.delete_device) errors.add(tolerate_missing(links.delete_vxlan(*ch.delete_device)));
  if (ch.create_device) {
    auto s = links.create_vxlan(*ch.create_device);
    if (!s) return s;  // entries need the device
  }
  for (const auto& e : ch.delete_fdb) errors.add(tolerate_missing(links.delete_fdb(device, e)));
  for (const auto& e : ch.delete_neighbours) {
    errors.add(tolerate_missing(links.delete_neighbour(device, e)));
  }
  for (const auto& e : ch.add_fdb) errors.add(links.add_fdb(device, e));
  for (const auto& e : ch.add_neighbours) errors.add(links.add_neighbour(device, e));
  return errors.result("overlay " + device);
}

Status apply_routes(os::RouteTable& routes, const RouteChanges& ch) {
  Errors errors;
  for (const auto& r : ch.delete_rules) errors.add(tolerate_missing(routes.delete_rule(r)));
  for (const auto& r : ch.delete_routes) errors.add(tolerate_missing(routes.delete_route(r)));
  for (const auto& r : ch.replace_routes) errors.add(routes.replace_route(r));
  for (const auto& r : ch.add_rules) errors.add(routes.add_rule(r));
  return errors.result("routes");
}

}  // namespace fed::fabric
