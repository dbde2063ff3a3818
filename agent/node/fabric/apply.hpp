#pragma once
// Applying planned changes through the agent/node/os interfaces. Each apply is best-effort: it goes
// on past a failed step (the next pass retries it) and returns every failure in one error.

#include <string>
#include <string_view>
#include <vector>

#include "agent/node/fabric/link_plan.hpp"
#include "agent/node/fabric/route_plan.hpp"
#include "agent/node/os/link_manager.hpp"
#include "agent/node/os/route_table.hpp"
#include "shared/result/result.hpp"

namespace fed::fabric {

// Gathers failures; the combined error takes the first failure's code (so a retryable first
// failure keeps the key retrying) and lists every message.
class Errors final {
 public:
  void add(const Status& s);
  void add(const Error& e);
  bool empty() const { return errors_.empty(); }
  // ok() when nothing failed, else "<context>: <n> failures: a; b".
  Status result(std::string_view context) const;

 private:
  std::vector<Error> errors_;
};

Status apply_links(os::LinkManager& links, const LinkChanges& changes, const std::string& device);
// Missing objects on delete are not failures: someone removed them already.
Status apply_routes(os::RouteTable& routes, const RouteChanges& changes);

}  // namespace fed::fabric
