#include "plugin/cli/cluster_selector_flag.hpp"

#include "shared/kube/label_selector.hpp"
#include "shared/offload/node_selector_match.hpp"

namespace fed::plugin {
namespace {

fedapi::NodeSelectorOperator operator_of(kube::SelectorOp op) {
  using Op = fedapi::NodeSelectorOperator;
  switch (op) {
    case kube::SelectorOp::Equals:
    case kube::SelectorOp::In:
      return Op::In;
    case kube::SelectorOp::NotEquals:
    case kube::SelectorOp::NotIn:
      return Op::NotIn;
    case kube::SelectorOp::Exists:
      return Op::Exists;
    case kube::SelectorOp::DoesNotExist:
      return Op::DoesNotExist;
    case kube::SelectorOp::GreaterThan:
      return Op::Gt;
    case kube::SelectorOp::LessThan:
      return Op::Lt;
  }
  return Op::In;
}

// One --selector term: label-selector syntax, the requirements ANDed.
Result<fedapi::NodeSelectorTerm> term_from(const std::string& text, std::size_t index) {
  const std::string flag = "--selector[" + std::to_string(index) + "] \"" + text + "\"";
  auto parsed = kube::LabelSelector::parse(text);
  if (!parsed) return fail(ErrorCode::Invalid, flag + ": " + parsed.error().message());
  if (parsed->empty()) {
    return fail(ErrorCode::Invalid, flag + ": empty; give requirements such as 'region in (eu)'");
  }
  fedapi::NodeSelectorTerm term;
  for (const auto& r : parsed->requirements()) {
    term.match_expressions.push_back({r.key, operator_of(r.op), r.values});
  }
  return term;
}

}  // namespace

Result<fedapi::NodeSelector> node_selector_from_flags(const std::vector<std::string>& selectors) {
  fedapi::NodeSelector selector;
  for (std::size_t i = 0; i < selectors.size(); ++i) {
    FED_ASSIGN_OR_RETURN(auto term, term_from(selectors[i], i));
    selector.node_selector_terms.push_back(std::move(term));
  }
  // What the parser lets through but the manager refuses (Gt with a non-integer value).
  auto valid = offload::validate_node_selector(selector, "--selector");
  if (!valid) return fail(ErrorCode::Invalid, valid.error().message());
  return selector;
}

}  // namespace fed::plugin
