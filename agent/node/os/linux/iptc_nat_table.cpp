#include "agent/node/os/linux/iptc_nat_table.hpp"

#include <fcntl.h>
#include <sys/file.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <thread>

#include "agent/node/os/linux/iptc_shim.h"
#include "shared/raii/c_handle.hpp"
#include "shared/raii/fd.hpp"

namespace fed::os {
namespace {

using IptcHandle = CHandle<fed_iptc, fed_iptc_close>;

constexpr const char* kTable = "nat";
constexpr std::string_view kCommentMarker = "fed:";

Error iptc_error(std::string_view what, std::string_view chain, int err) {
  ErrorCode code = ErrorCode::Internal;
  if (err == EPERM || err == EACCES) code = ErrorCode::Permission;
  if (err == EAGAIN) code = ErrorCode::Unavailable;
  if (err == ENOENT) code = ErrorCode::NotFound;
  std::string msg = "libiptc " + std::string(what);
  if (!chain.empty()) msg += " " + std::string(chain);
  msg += ": ";
  msg += fed_iptc_strerror(err);
  if (code == ErrorCode::Permission) msg += " (the agent needs CAP_NET_ADMIN)";
  return Error(code, msg);
}

// Prefix length of a contiguous mask, or -1.
int mask_length(std::uint32_t mask) {
  int ones = std::popcount(mask);
  std::uint32_t expect = ones == 0 ? 0 : ~std::uint32_t{0} << (32 - ones);
  return mask == expect ? ones : -1;
}

std::optional<Cidr> to_cidr(std::uint32_t addr, std::uint32_t mask, bool& ok) {
  int len = mask_length(mask);
  if (len < 0) {
    ok = false;
    return std::nullopt;
  }
  if (len == 0) return std::nullopt;
  return Cidr::containing(Ipv4{addr}, static_cast<std::uint8_t>(len));
}

NatRule from_shim(const fed_iptc_rule& r) {
  NatRule out;
  bool ok = r.unmodelled == 0 && r.dst_inverted == 0;
  out.src = to_cidr(r.src, r.src_mask, ok);
  out.src_negated = r.src_inverted != 0 ? Negation::Yes : Negation::No;
  out.dst = to_cidr(r.dst, r.dst_mask, ok);
  out.comment = r.comment;
  switch (r.action) {
    case FED_IPTC_JUMP:
      out.action = NatAction::Jump;
      out.jump = r.target;
      break;
    case FED_IPTC_RETURN:
      out.action = NatAction::Return;
      break;
    case FED_IPTC_DNAT:
    case FED_IPTC_SNAT:
      out.action = r.action == FED_IPTC_DNAT ? NatAction::Dnat : NatAction::Snat;
      out.to_ip = Ipv4{r.to_min};
      ok = ok && r.to_min == r.to_max;
      break;
    case FED_IPTC_NETMAP: {
      out.action = NatAction::Netmap;
      int len = mask_length(~(r.to_max ^ r.to_min));
      ok = ok && len >= 0 && (r.to_min & ~(r.to_max ^ r.to_min)) == r.to_min;
      if (len >= 0) out.to_net = Cidr::containing(Ipv4{r.to_min}, static_cast<std::uint8_t>(len));
      break;
    }
    default:
      ok = false;
  }
  if (!ok) {
    out.action = NatAction::Other;
    out.other =
        std::string("target ") + r.target + (r.unmodelled ? " with unmodelled matches" : "");
  }
  return out;
}

Result<fed_iptc_rule> to_shim(const NatRule& rule) {
  fed_iptc_rule r{};
  if (rule.src) {
    r.src = rule.src->network.value;
    r.src_mask = rule.src->mask();
  }
  r.src_inverted = rule.src_negated == Negation::Yes ? 1 : 0;
  if (rule.dst) {
    r.dst = rule.dst->network.value;
    r.dst_mask = rule.dst->mask();
  }
  if (rule.comment.size() >= sizeof r.comment) {
    return fail(ErrorCode::Invalid, "rule comment \"" + rule.comment + "\" is too long");
  }
  std::memcpy(r.comment, rule.comment.data(), rule.comment.size());
  switch (rule.action) {
    case NatAction::Jump:
      if (rule.jump.empty() || rule.jump.size() >= 29) {
        return fail(ErrorCode::Invalid, "jump target \"" + rule.jump + "\" must be 1-28 chars");
      }
      r.action = FED_IPTC_JUMP;
      std::memcpy(r.target, rule.jump.data(), rule.jump.size());
      break;
    case NatAction::Return:
      r.action = FED_IPTC_RETURN;
      break;
    case NatAction::Dnat:
    case NatAction::Snat:
      r.action = rule.action == NatAction::Dnat ? FED_IPTC_DNAT : FED_IPTC_SNAT;
      r.to_min = r.to_max = rule.to_ip.value;
      break;
    case NatAction::Netmap:
      r.action = FED_IPTC_NETMAP;
      r.to_min = rule.to_net.network.value;
      r.to_max = rule.to_net.last().value;
      break;
    case NatAction::Other:
      return fail(ErrorCode::Invalid, "cannot write an unmodelled rule (" + rule.other + ")");
  }
  return r;
}

bool owned_in_builtin(const NatRule& r) {
  return (r.action == NatAction::Jump && r.jump.starts_with(kOwnedChainPrefix)) ||
         r.comment.starts_with(kCommentMarker);
}

Result<NatSnapshot> snapshot(fed_iptc* h) {
  NatSnapshot snap;
  std::vector<std::string> names;
  for (const char* c = fed_iptc_first_chain(h); c != nullptr; c = fed_iptc_next_chain(h)) {
    names.emplace_back(c);
  }
  for (const auto& name : names) {
    std::vector<NatRule> rules;
    auto collect = [](void* ctx, const fed_iptc_rule* r) {
      static_cast<std::vector<NatRule>*>(ctx)->push_back(from_shim(*r));
    };
    if (fed_iptc_read_rules(h, name.c_str(), collect, &rules) == 0) {
      return iptc_error("read rules of", name, errno);
    }
    if (name.starts_with(kOwnedChainPrefix)) {
      snap.chains.emplace(name, std::move(rules));
    } else if (fed_iptc_is_builtin(h, name.c_str()) != 0) {
      HookRules hook;
      hook.total = rules.size();
      for (std::size_t i = 0; i < rules.size(); ++i) {
        if (owned_in_builtin(rules[i])) hook.owned.emplace_back(i, std::move(rules[i]));
      }
      snap.hooks.emplace(name, std::move(hook));
    }
  }
  return snap;
}

Status apply(fed_iptc* h, const NatChanges& changes) {
  for (const auto& chain : changes.create_chains) {
    if (fed_iptc_create_chain(h, chain.c_str()) == 0) return iptc_error("create", chain, errno);
  }
  for (const auto& edit : changes.edits) {
    auto positions = edit.delete_positions;
    std::sort(positions.rbegin(), positions.rend());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    for (auto pos : positions) {
      if (fed_iptc_delete_at(h, edit.chain.c_str(), static_cast<unsigned>(pos)) == 0) {
        return iptc_error("delete rule " + std::to_string(pos) + " of", edit.chain, errno);
      }
    }
    for (const auto& [pos, rule] : edit.insert) {
      FED_ASSIGN_OR_RETURN(auto r, to_shim(rule));
      if (fed_iptc_insert(h, edit.chain.c_str(), &r, static_cast<unsigned>(pos)) == 0) {
        return iptc_error("insert rule " + std::to_string(pos) + " into", edit.chain, errno);
      }
    }
  }
  // Flush all first: a chain being deleted may still be jumped to from another one.
  for (const auto& chain : changes.delete_chains) {
    if (fed_iptc_flush_chain(h, chain.c_str()) == 0) return iptc_error("flush", chain, errno);
  }
  for (const auto& chain : changes.delete_chains) {
    if (fed_iptc_delete_chain(h, chain.c_str()) == 0) return iptc_error("delete", chain, errno);
  }
  return ok();
}

Result<IptcHandle> open_nat() {
  IptcHandle h(fed_iptc_open(kTable));
  if (!h) return iptc_error("init table", kTable, errno);
  return h;
}

}  // namespace

IptcNatTable::IptcNatTable(std::string lock_path, std::chrono::milliseconds lock_timeout)
    : lock_path_(std::move(lock_path)), lock_timeout_(lock_timeout) {}

Result<NatSnapshot> IptcNatTable::read() {
  FED_ASSIGN_OR_RETURN(auto h, open_nat());
  return snapshot(h.get());
}

Result<NatChanges> IptcNatTable::transact(const NatPlanner& plan) {
  Fd lock;
  if (!lock_path_.empty()) {
    lock.reset(::open(lock_path_.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600));
    if (!lock) {
      return fail(ErrorCode::Internal,
                  "open xtables lock " + lock_path_ + ": " + std::strerror(errno));
    }
    auto deadline = std::chrono::steady_clock::now() + lock_timeout_;
    while (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK || std::chrono::steady_clock::now() > deadline) {
        return fail(ErrorCode::Unavailable,
                    "xtables lock " + lock_path_ + " is held by another process; retrying later");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  FED_ASSIGN_OR_RETURN(auto h, open_nat());
  FED_ASSIGN_OR_RETURN(auto snap, snapshot(h.get()));
  FED_ASSIGN_OR_RETURN(auto changes, plan(snap));
  if (changes.empty()) return changes;
  FED_TRY(apply(h.get(), changes));
  if (fed_iptc_commit(h.get()) == 0) return iptc_error("commit table", kTable, errno);
  return changes;
}

}  // namespace fed::os
