#pragma once
// NodeSelector evaluation exactly as Kubernetes does it (k8s.io/component-helpers nodeaffinity,
// labels.Requirement): terms are ORed, the requirements of a term ANDed; an empty term list
// and an empty term match nothing; a term with a malformed requirement is skipped, and its
// error surfaces only when no other term matches. Operators In, NotIn, Exists, DoesNotExist,
// Gt, Lt over labels (NotIn and DoesNotExist also match an absent key; Gt/Lt compare 64-bit
// integers and fail on an absent or non-integer label); matchFields In/NotIn over
// metadata.name. Pure.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/fedapi/node_selector.hpp"
#include "shared/kube/label_selector.hpp"
#include "shared/result/result.hpp"

namespace fed::offload {

// What a selector looks at: the node's name (matchFields) and labels (matchExpressions).
struct NodeFacts {
  std::string name;
  kube::Labels labels;
};

// The facts of a core/v1 Node object: its name and string labels.
NodeFacts facts_of(const nlohmann::json& node);

// Ok when every requirement of `selector` is well formed; otherwise Invalid listing each
// problem with its field path under `path` ("spec.clusterSelector.nodeSelectorTerms[0]...").
Status validate_node_selector(const fedapi::NodeSelector& selector, std::string_view path);

// Whether `term` selects `node`; Invalid (paths under `path`) when the term is malformed.
// An empty term matches nothing.
Result<bool> term_matches(const fedapi::NodeSelectorTerm& term, const NodeFacts& node,
                          std::string_view path = "nodeSelectorTerms[0]");

// Whether some term of `selector` selects `node`. When none does and some were malformed,
// Invalid naming them (as Kubernetes returns false with the parse errors).
Result<bool> matches(const fedapi::NodeSelector& selector, const NodeFacts& node,
                     std::string_view path = "nodeSelectorTerms");

// Go's strconv.ParseInt(s, 10, 64): optional sign, digits, no spaces, no overflow.
bool parse_int64(std::string_view s, long long& out);

}  // namespace fed::offload
