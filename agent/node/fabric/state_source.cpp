#include "agent/node/fabric/state_source.hpp"

#include <fstream>
#include <sstream>

#include "agent/node/fabric/node_state_parse.hpp"

namespace fed::fabric {

Result<NodeNetworkState> FileNodeStateSource::load() {
  std::ifstream in(path_, std::ios::binary);
  if (!in) {
    return fail(ErrorCode::NotFound,
                "state file " + path_.string() + " cannot be read; check --state-file");
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto st = parse_node_state(text.str());
  if (!st) return Unexpected(std::move(st).error().with_context("state file " + path_.string()));
  return st;
}

}  // namespace fed::fabric
