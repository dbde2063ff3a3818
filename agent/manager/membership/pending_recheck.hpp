#pragma once
// When the membership controller looks again at a member whose tunnel is not connected yet.
// Part of what it waits for (a member gateway publishing its key, the member's side of the
// handshake) lives on the member and is only seen by looking. A join wants that seen within a
// second; a member whose gateway stays down must not cost the host and itself several writes a
// second for ever (50 such members were most of the host API server's load). So: every second
// for `fast` after the member's state last changed, then twice as long each time it stays as
// it was, up to `max`.

#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace fed::federation {

class PendingRecheck final {
 public:
  using Clock = std::chrono::steady_clock;
  PendingRecheck(std::chrono::seconds fast, std::chrono::seconds max,
                 std::chrono::seconds connected)
      : fast_(fast), max_(max), connected_(connected) {}

  // The delay after a pass that left member `id` in `state` (empty: connected, which is
  // rechecked every `connected` and starts the next pending spell afresh). `member_age`: how
  // long the member has been joined. It matters on this process's first pass over the member
  // only: after a restart, a state cannot be older than the member, and a member joined long
  // ago gets no fast spell (50 pending members rechecked each second for 30 s after every
  // manager restart kept the host's API server busy).
  std::chrono::seconds next(const std::string& id, const std::string& state,
                            Clock::time_point now = Clock::now(),
                            Clock::duration member_age = Clock::duration::zero());
  void forget(const std::string& id);

 private:
  struct Pending {
    std::string state;
    Clock::time_point since;
    std::chrono::seconds delay{0};
  };
  const std::chrono::seconds fast_, max_, connected_;
  std::mutex mu_;
  std::map<std::string, Pending> pending_;
};

}  // namespace fed::federation
