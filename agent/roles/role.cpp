#include "agent/roles/role.hpp"

namespace fed::agent {

std::string_view to_string(Role role) {
  switch (role) {
    case Role::Node:
      return "node";
    case Role::Manager:
      return "manager";
    case Role::EtcdProxy:
      return "etcd-proxy";
    case Role::Tenancy:
      return "tenancy";
    case Role::PodPreset:
      return "podpreset";
  }
  return "unknown";
}

}  // namespace fed::agent
