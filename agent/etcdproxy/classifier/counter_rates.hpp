#pragma once
// Per-second rates of Prometheus counters between two scrapes, safe across counter resets: a
// value below the previous one means the process restarted and counted from zero, so the
// increase is the new value itself (as Prometheus' rate() does) and a rate is never negative.
// Pure state (no clock: the caller passes scrape times); not thread-safe.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace fed::etcdproxy::classifier {

class CounterRates final {
 public:
  using Clock = std::chrono::steady_clock;

  // What one observation gave.
  struct Delta {
    double increase = 0;  // >= 0
    double seconds = 0;   // > 0
    bool reset = false;   // the counter went down (restart)
    double rate() const { return increase / seconds; }
  };

  // Records counter `key` = `value` at `at`. nullopt on the first observation of `key`, or when
  // `at` is not after the previous one (the value is still recorded in the first case only).
  std::optional<Delta> observe(std::string_view key, double value, Clock::time_point at);
  // The per-second rate, as observe() then rate().
  std::optional<double> rate(std::string_view key, double value, Clock::time_point at);

  // Forgets every counter (another member is scraped from now on).
  void clear() { last_.clear(); }
  std::size_t size() const { return last_.size(); }

 private:
  struct Last {
    double value = 0;
    Clock::time_point at;
  };
  std::map<std::string, Last, std::less<>> last_;
};

}  // namespace fed::etcdproxy::classifier
