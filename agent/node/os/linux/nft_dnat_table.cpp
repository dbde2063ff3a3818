#include "agent/node/os/linux/nft_dnat_table.hpp"

#include <arpa/inet.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <nftables/libnftables.h>

#include <nlohmann/json.hpp>

#include "agent/node/os/linux/nl_common.hpp"
#include "shared/raii/c_handle.hpp"

namespace fed::os {
namespace {

using NftContext = CHandle<nft_ctx, nft_ctx_free>;
using NlMsg = CHandle<nl_msg, nlmsg_free>;
using nlohmann::json;

std::string ip(std::uint32_t v) {
  return Ipv4{v}.str();
}

// Runs one script; the listing it prints, or the error nft reports.
Result<std::string> run(const std::string& script, bool json_output) {
  NftContext ctx(nft_ctx_new(NFT_CTX_DEFAULT));
  if (!ctx) return Unexpected(Error(ErrorCode::Internal, "libnftables: cannot allocate a context"));
  nft_ctx_buffer_output(ctx.get());
  nft_ctx_buffer_error(ctx.get());
  if (json_output) nft_ctx_output_set_flags(ctx.get(), NFT_CTX_OUTPUT_JSON);
  if (nft_run_cmd_from_buffer(ctx.get(), script.c_str()) != 0) {
    std::string err = nft_ctx_get_error_buffer(ctx.get());
    ErrorCode code = ErrorCode::Internal;
    if (err.find("No such file or directory") != std::string::npos) code = ErrorCode::NotFound;
    if (err.find("Operation not permitted") != std::string::npos) code = ErrorCode::Permission;
    if (err.size() > 400) err.resize(400);  // the first line names the failing command
    while (!err.empty() && err.back() == '\n') err.pop_back();
    std::string msg = "nftables: " + err;
    if (code == ErrorCode::Permission) msg += " (the agent needs CAP_NET_ADMIN)";
    return Unexpected(Error(code, msg));
  }
  return std::string(nft_ctx_get_output_buffer(ctx.get()));
}

std::optional<Cidr> match_prefix(const json& expr, std::string_view field) {
  const json* m = expr.contains("match") ? &expr["match"] : nullptr;
  if (m == nullptr || m->value("op", "") != "==") return std::nullopt;
  const json& left = (*m)["left"];
  if (!left.contains("payload") || left["payload"].value("protocol", "") != "ip" ||
      left["payload"].value("field", "") != field) {
    return std::nullopt;
  }
  const json& right = (*m)["right"];
  if (right.is_string()) {
    auto a = Ipv4::parse(right.get<std::string>());
    return a ? std::optional<Cidr>(Cidr::host(*a)) : std::nullopt;
  }
  if (!right.contains("prefix")) return std::nullopt;
  auto c = Cidr::parse(right["prefix"].value("addr", "") + "/" +
                       std::to_string(right["prefix"].value("len", -1)));
  return c ? std::optional<Cidr>(*c) : std::nullopt;
}

// "ip saddr S ip daddr D dnat to ip daddr map @M", or a rule with an empty map.
DnatRule parse_rule(const json& rule) {
  DnatRule out;
  const json& expr = rule.value("expr", json::array());
  if (!expr.is_array() || expr.size() != 3) return out;
  auto src = match_prefix(expr[0], "saddr");
  auto dst = match_prefix(expr[1], "daddr");
  if (!src || !dst || !expr[2].contains("dnat")) return out;
  const json& dnat = expr[2]["dnat"];
  if (dnat.size() != 1 || !dnat.contains("addr") || !dnat["addr"].contains("map")) return out;
  const json& map = dnat["addr"]["map"];
  const json want_key = {{"payload", {{"protocol", "ip"}, {"field", "daddr"}}}};
  std::string data = map.value("data", "");
  if (map.value("key", json()) != want_key || data.size() < 2 || data[0] != '@') return out;
  out.src = *src;
  out.dst = *dst;
  out.map = data.substr(1);
  return out;
}

bool parse_map(const json& map, DnatEntries& entries) {
  if (map.value("type", json()) != "ipv4_addr" || map.value("map", json()) != "ipv4_addr") {
    return false;
  }
  std::vector<DnatEntries::value_type> read;
  for (const auto& e : map.value("elem", json::array())) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_string()) return false;
    auto k = Ipv4::parse(e[0].get<std::string>());
    auto v = Ipv4::parse(e[1].get<std::string>());
    if (!k || !v) return false;
    read.emplace_back(k->value, v->value);
  }
  entries = DnatEntries::from(std::move(read));
  return true;
}

}  // namespace

Result<DnatState> parse_dnat_listing(std::string_view text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.contains("nftables") || !doc["nftables"].is_array()) {
    return Unexpected(Error(ErrorCode::Internal, "nftables: unreadable JSON listing"));
  }
  DnatState out;
  for (const auto& item : doc["nftables"]) {
    if (item.contains("metainfo")) continue;
    if (item.contains("table")) {
      out.table = true;
    } else if (item.contains("chain")) {
      const json& c = item["chain"];
      if (c.value("name", "") == kDnatChain && c.value("type", "") == "nat" &&
          c.value("hook", "") == "prerouting" && c.value("prio", 0) == kDnatChainPriority &&
          c.value("policy", "") == "accept") {
        out.chain_ok = true;
      } else {
        out.foreign = true;
      }
    } else if (item.contains("rule")) {
      if (item["rule"].value("chain", "") == kDnatChain) {
        out.rules.push_back(parse_rule(item["rule"]));
      } else {
        out.foreign = true;
      }
    } else if (item.contains("map")) {
      auto& entries = out.maps[item["map"].value("name", "")];
      if (!parse_map(item["map"], entries)) out.foreign = true;
    } else {
      out.foreign = true;  // sets, counters, flowtables: not the agent's
    }
  }
  return out;
}

std::string dnat_script(const DnatChanges& ch) {
  const std::string table = "ip " + std::string(kDnatTable);
  const std::string chain = table + " " + std::string(kDnatChain);
  std::string s;
  if (ch.delete_table) s += "delete table " + table + "\n";
  if (ch.ensure_table) {
    s += "add table " + table + "\n";
    s += "add chain " + chain + " { type nat hook prerouting priority " +
         std::to_string(kDnatChainPriority) + "; policy accept; }\n";
  }
  if (ch.rewrite_rules) s += "flush chain " + chain + "\n";
  for (const auto& m : ch.delete_maps) s += "delete map " + table + " " + m + "\n";
  for (const auto& m : ch.create_maps) {
    s += "add map " + table + " " + m + " { type ipv4_addr : ipv4_addr; }\n";
  }
  for (const auto& e : ch.elements) {
    if (!e.remove.empty()) {
      s += "delete element " + table + " " + e.map + " { ";
      for (std::size_t i = 0; i < e.remove.size(); ++i) s += (i ? ", " : "") + ip(e.remove[i]);
      s += " }\n";
    }
    if (!e.add.empty()) {
      s += "add element " + table + " " + e.map + " { ";
      for (std::size_t i = 0; i < e.add.size(); ++i) {
        s += (i ? ", " : "") + ip(e.add[i].first) + " : " + ip(e.add[i].second);
      }
      s += " }\n";
    }
  }
  if (ch.rewrite_rules) {
    for (const auto& r : ch.rules) {
      s += "add rule " + chain + " ip saddr " + r.src.str() + " ip daddr " + r.dst.str() +
           " dnat to ip daddr map @" + r.map + "\n";
    }
  }
  return s;
}

Result<std::uint32_t> NftDnatTable::generation() {
  nl::SocketHandle sock(nl_socket_alloc());
  if (!sock) return Unexpected(Error(ErrorCode::Internal, "netlink: cannot allocate a socket"));
  if (int err = nl_connect(sock.get(), NETLINK_NETFILTER); err < 0) {
    return Unexpected(nl::error("connect NETLINK_NETFILTER socket", err));
  }
  NlMsg msg(nlmsg_alloc_simple((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETGEN, NLM_F_REQUEST));
  nfgenmsg header{};
  header.nfgen_family = AF_UNSPEC;
  header.version = NFNETLINK_V0;
  if (!msg || nlmsg_append(msg.get(), &header, sizeof header, NLMSG_ALIGNTO) < 0) {
    return Unexpected(Error(ErrorCode::Internal, "netlink: cannot build NFT_MSG_GETGEN"));
  }
  if (int err = nl_send_auto(sock.get(), msg.get()); err < 0) {
    return Unexpected(nl::error("send NFT_MSG_GETGEN", err));
  }
  struct Reply {
    std::optional<std::uint32_t> id;
  } reply;
  auto on_message = [](nl_msg* m, void* arg) -> int {
    nlattr* attrs[NFTA_GEN_MAX + 1] = {};
    if (nlmsg_parse(nlmsg_hdr(m), sizeof(nfgenmsg), attrs, NFTA_GEN_MAX, nullptr) == 0 &&
        attrs[NFTA_GEN_ID] != nullptr) {
      static_cast<Reply*>(arg)->id = ntohl(nla_get_u32(attrs[NFTA_GEN_ID]));
    }
    return NL_OK;
  };
  nl_socket_modify_cb(sock.get(), NL_CB_VALID, NL_CB_CUSTOM, on_message, &reply);
  if (int err = nl_recvmsgs_default(sock.get()); err < 0) {
    return Unexpected(nl::error("read the nftables generation", err));
  }
  if (!reply.id) {
    return Unexpected(Error(ErrorCode::Internal, "netlink: NFT_MSG_GETGEN answered no id"));
  }
  return *reply.id;
}

Result<DnatState> NftDnatTable::read() {
  auto listing = run("list table ip " + std::string(kDnatTable), true);
  if (!listing) {
    if (listing.error().code() == ErrorCode::NotFound) return DnatState{};
    return Unexpected(listing.error());
  }
  return parse_dnat_listing(*listing);
}

Status NftDnatTable::apply(const DnatChanges& changes) {
  if (changes.empty()) return ok();
  auto r = run(dnat_script(changes), false);
  if (!r) return Unexpected(r.error());
  return ok();
}

}  // namespace fed::os
