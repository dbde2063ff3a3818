#include <doctest/doctest.h>

#include "shared/offload/node_selector_match.hpp"

#include "shared/fedapi/offloading.hpp"

namespace fed::offload {
namespace {

using fedapi::NodeSelector;
using fedapi::NodeSelectorOperator;
using fedapi::NodeSelectorRequirement;
using fedapi::NodeSelectorTerm;
using Op = NodeSelectorOperator;

const NodeFacts kNode{"kubectl-fed-c2",
                      {{"kubectl-fed.io/type", "virtual-node"},
                       {"region", "eu-west"},
                       {"gpus", "4"},
                       {"flavour", "large"}}};

NodeSelectorTerm term(std::vector<NodeSelectorRequirement> expressions) {
  return NodeSelectorTerm{std::move(expressions), {}};
}

// Whether the single-requirement selector matches kNode; fails the test on an error.
bool one(NodeSelectorRequirement r) {
  auto m = matches(NodeSelector{{term({std::move(r)})}}, kNode);
  REQUIRE_MESSAGE(m.has_value(), (m ? "" : m.error().message()));
  return *m;
}

}  // namespace

TEST_CASE("each operator over a node's labels, as Kubernetes evaluates it") {
  CHECK(one({"region", Op::In, {"us-east", "eu-west"}}));
  CHECK_FALSE(one({"region", Op::In, {"us-east"}}));
  CHECK_FALSE(one({"zone", Op::In, {"a"}}));  // absent key: In fails
  CHECK(one({"region", Op::NotIn, {"us-east"}}));
  CHECK_FALSE(one({"region", Op::NotIn, {"eu-west"}}));
  CHECK(one({"zone", Op::NotIn, {"a"}}));  // absent key: NotIn matches
  CHECK(one({"gpus", Op::Exists, {}}));
  CHECK_FALSE(one({"zone", Op::Exists, {}}));
  CHECK(one({"zone", Op::DoesNotExist, {}}));
  CHECK_FALSE(one({"gpus", Op::DoesNotExist, {}}));
  CHECK(one({"gpus", Op::Gt, {"3"}}));
  CHECK_FALSE(one({"gpus", Op::Gt, {"4"}}));
  CHECK(one({"gpus", Op::Lt, {"+5"}}));
  CHECK(one({"gpus", Op::Gt, {"-1"}}));
  CHECK_FALSE(one({"zone", Op::Gt, {"1"}}));     // absent key: Gt fails
  CHECK_FALSE(one({"flavour", Op::Gt, {"1"}}));  // a non-integer label never compares
  CHECK_FALSE(one({"flavour", Op::Lt, {"1"}}));
}

TEST_CASE("expressions of a term are ANDed, terms ORed; empty terms and lists match nothing") {
  const auto eu = NodeSelectorRequirement{"region", Op::In, {"eu-west"}};
  const auto small = NodeSelectorRequirement{"flavour", Op::In, {"small"}};
  CHECK_FALSE(*matches(NodeSelector{{term({eu, small})}}, kNode));
  CHECK(*matches(NodeSelector{{term({small}), term({eu})}}, kNode));
  CHECK_FALSE(*matches(NodeSelector{}, kNode));
  CHECK_FALSE(*matches(NodeSelector{{NodeSelectorTerm{}}}, kNode));
  CHECK(*matches(NodeSelector{{NodeSelectorTerm{}, term({eu})}}, kNode));
  CHECK_FALSE(*term_matches(NodeSelectorTerm{}, kNode));
}

TEST_CASE("matchFields select the node by metadata.name with In and NotIn") {
  NodeSelectorTerm by_name{{}, {{"metadata.name", Op::In, {"kubectl-fed-c2"}}}};
  CHECK(*matches(NodeSelector{{by_name}}, kNode));
  by_name.match_fields[0].op = Op::NotIn;
  CHECK_FALSE(*matches(NodeSelector{{by_name}}, kNode));
  // Fields and labels of one term are ANDed.
  NodeSelectorTerm both{{{"region", Op::In, {"us-east"}}},
                        {{"metadata.name", Op::In, {"kubectl-fed-c2"}}}};
  CHECK_FALSE(*matches(NodeSelector{{both}}, kNode));
}

TEST_CASE("Gt and Lt values must be one 64-bit integer; the error names the field") {
  auto m = matches(NodeSelector{{term({{"gpus", Op::Gt, {"two"}}})}}, kNode);
  REQUIRE_FALSE(m);
  CHECK(m.error().code() == ErrorCode::Invalid);
  CHECK(m.error().message() ==
        "nodeSelectorTerms[0].matchExpressions[0].values[0]: \"two\" is not an integer (Gt and "
        "Lt compare label values as 64-bit integers)");
  m = matches(NodeSelector{{term({{"gpus", Op::Lt, {"1", "2"}}})}}, kNode);
  REQUIRE_FALSE(m);
  CHECK(m.error().message().find("Lt takes exactly one value, not 2") != std::string::npos);
  m = matches(NodeSelector{{term({{"gpus", Op::Gt, {"99999999999999999999"}}})}}, kNode);
  REQUIRE_FALSE(m);  // overflows int64, as strconv.ParseInt does
  long long v = 0;
  CHECK(parse_int64("-9223372036854775808", v));
  CHECK(v == INT64_MIN);
  CHECK_FALSE(parse_int64("9223372036854775808", v));
  CHECK_FALSE(parse_int64(" 1", v));
  CHECK_FALSE(parse_int64("+", v));
  CHECK_FALSE(parse_int64("1.5", v));
}

TEST_CASE("a malformed term is skipped: another term may still match; else its error") {
  const auto bad = term({{"gpus", Op::Gt, {"x"}}});
  CHECK(*matches(NodeSelector{{bad, term({{"region", Op::Exists, {}}})}}, kNode));
  auto m = matches(NodeSelector{{bad, term({{"region", Op::DoesNotExist, {}}})}}, kNode);
  REQUIRE_FALSE(m);
  CHECK(m.error().message().starts_with("nodeSelectorTerms[0].matchExpressions[0].values[0]"));
}

TEST_CASE("validate_node_selector lists every problem with its path") {
  NodeSelector s{{term({{"region", Op::In, {}}, {"bad key!", Op::Exists, {}}}),
                  term({{"gpus", Op::Exists, {"1"}}, {"x", Op::In, {"not valid!"}}}),
                  NodeSelectorTerm{{}, {{"spec.unschedulable", Op::Gt, {}}}}}};
  auto st = validate_node_selector(s, "spec.clusterSelector");
  REQUIRE_FALSE(st);
  const std::string msg = st.error().message();
  const std::string p = "spec.clusterSelector.nodeSelectorTerms";
  CHECK(msg.find(p + "[0].matchExpressions[0].values: In needs at least one value") !=
        std::string::npos);
  CHECK(msg.find(p + "[0].matchExpressions[1].key: \"bad key!\" is not a valid label key") !=
        std::string::npos);
  CHECK(msg.find(p + "[1].matchExpressions[0].values: Exists takes no values") !=
        std::string::npos);
  CHECK(msg.find(p + "[1].matchExpressions[1].values[0]: \"not valid!\" is not a valid label") !=
        std::string::npos);
  CHECK(msg.find(p + "[2].matchFields[0].key: \"spec.unschedulable\"") != std::string::npos);
  CHECK(msg.find(p + "[2].matchFields[0].operator: Gt is not supported on fields") !=
        std::string::npos);
  CHECK(validate_node_selector(fedapi::default_cluster_selector(), "spec.clusterSelector"));
}

}  // namespace fed::offload
