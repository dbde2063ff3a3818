#pragma once
// What the render tests share: finding rendered objects, a role's rules as
// "group|resource|verb[|resourceNames]" strings, and the host and member identities.

#include <doctest/doctest.h>

#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/manifests/render.hpp"

namespace render_test {

using fed::plugin::ClusterIdentity;
using fed::plugin::FederationRole;
using nlohmann::json;

inline std::set<std::string> names_of_kind(const std::vector<json>& objects,
                                           const std::string& kind) {
  std::set<std::string> out;
  for (const auto& o : objects) {
    if (o["kind"] == kind) out.insert(o["metadata"]["name"].get<std::string>());
  }
  return out;
}

inline const json& find(const std::vector<json>& objects, const std::string& kind,
                        const std::string& name) {
  for (const auto& o : objects) {
    if (o["kind"] == kind && o["metadata"]["name"] == name) return o;
  }
  FAIL("no " << kind << " " << name);
  static const json kNone;
  return kNone;
}

// The rules of a role as "group|resource|verb" strings.
inline std::set<std::string> rules(const json& role) {
  std::set<std::string> out;
  for (const auto& r : role["rules"]) {
    for (const auto& g : r["apiGroups"]) {
      for (const auto& res : r["resources"]) {
        for (const auto& v : r["verbs"]) {
          std::string rule =
              g.get<std::string>() + "|" + res.get<std::string>() + "|" + v.get<std::string>();
          if (r.contains("resourceNames")) rule += "|" + r["resourceNames"].dump();
          out.insert(std::move(rule));
        }
      }
    }
  }
  return out;
}

inline std::set<std::string> expand(const std::string& group,
                                    std::initializer_list<const char*> resources,
                                    std::initializer_list<const char*> verbs) {
  std::set<std::string> out;
  for (auto r : resources) {
    for (auto v : verbs) out.insert(group + "|" + r + "|" + v);
  }
  return out;
}

inline std::set<std::string> join_sets(std::initializer_list<std::set<std::string>> sets) {
  std::set<std::string> out;
  for (const auto& s : sets) out.insert(s.begin(), s.end());
  return out;
}

inline const ClusterIdentity kHost{"c1", FederationRole::Host, "10.241.0.0/16", "10.101.0.0/16",
                                   "c1"};
inline const ClusterIdentity kMember{"c3", FederationRole::Member, "10.243.0.0/16", "10.103.0.0/16",
                                     "c1"};

}  // namespace render_test
