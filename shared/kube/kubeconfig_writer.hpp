#pragma once
// Writes kubeconfig YAML: for `kubectl fed join`/`status`, which hand out a kubeconfig for a
// ServiceAccount, and for tests.

#include <string>

#include "shared/kube/kubeconfig.hpp"

namespace fed::kube {

// Serialises `config` as a kubeconfig (apiVersion: v1, kind: Config) that kubectl and
// parse_kubeconfig() read back to the same model; *_data fields are base64-encoded, empty
// fields are left out. `origin` and `files` are not written.
std::string to_yaml(const Kubeconfig& config);

// A kubeconfig with one cluster, one user and one context, all called `name`, and
// current-context set to it; `namespace_name` may be empty.
Kubeconfig single_context_kubeconfig(const std::string& name, Cluster cluster, User user,
                                     const std::string& namespace_name);

}  // namespace fed::kube
