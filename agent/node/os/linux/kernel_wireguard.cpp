#include "agent/node/os/linux/kernel_wireguard.hpp"

#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "agent/node/os/linux/netlink_link_manager.hpp"
#include "agent/node/os/linux/nl_common.hpp"
#include "agent/node/os/linux/wireguard_genl.hpp"
#include "agent/node/tunnel/uapi_text.hpp"
#include "shared/raii/cleanup.hpp"

namespace fed::os {
namespace {

constexpr std::string_view kSetAnswer = "errno=0\n\n";

Status create_link(nl_sock* sock, const std::string& name) {
  nl::LinkHandle link(rtnl_link_alloc());
  if (!link) return fail(ErrorCode::Internal, "netlink: out of memory building a link");
  rtnl_link_set_name(link.get(), name.c_str());
  if (int err = rtnl_link_set_type(link.get(), "wireguard"); err < 0) {
    return nl::error("create WireGuard link " + name, err);
  }
  const int err = rtnl_link_add(sock, link.get(), NLM_F_CREATE | NLM_F_EXCL);
  if (err == -NLE_OPNOTSUPP) {
    return fail(ErrorCode::Unavailable,
                "create WireGuard link " + name +
                    ": the kernel has no WireGuard (no link kind \"wireguard\"); load its module "
                    "(modprobe wireguard) or use the wireguard-go back end");
  }
  if (err < 0) return nl::error("create WireGuard link " + name, err);
  return ok();
}

}  // namespace

Result<bool> KernelWireguard::running(std::string_view interface) {
  FED_ASSIGN_OR_RETURN(auto links, NetlinkLinkManager::create());
  FED_ASSIGN_OR_RETURN(auto link, links->link(interface));
  return link && link->kind == link_kind() && link->owned;
}

Status KernelWireguard::start(std::string_view interface) {
  const std::string name(interface);
  FED_ASSIGN_OR_RETURN(auto sock, nl::connect_route_socket());
  FED_TRY(create_link(sock.get(), name));
  // Unmarked, nothing would ever delete it: undo unless the marker is on.
  Cleanup undo([&] { nl::delete_link_quietly(sock.get(), name); });
  FED_ASSIGN_OR_RETURN(auto links, NetlinkLinkManager::create());
  LinkSettings mark;
  mark.mark_owned = true;
  FED_TRY(links->set_link(name, mark));
  undo.cancel();
  return ok();
}

Result<std::string> KernelWireguard::exchange(std::string_view interface,
                                              std::string_view request) {
  if (request == tunnel::kUapiGetRequest) {
    FED_ASSIGN_OR_RETURN(auto device, wg_genl::get_device(interface));
    return tunnel::format_get_response(device);
  }
  FED_ASSIGN_OR_RETURN(auto set, tunnel::parse_set_request(request));
  FED_TRY(wg_genl::set_device(interface, set));
  return std::string(kSetAnswer);
}

Status KernelWireguard::stop(std::string_view) {
  return ok();
}

bool kernel_wireguard_available() {
  return wg_genl::family_available();
}

}  // namespace fed::os
