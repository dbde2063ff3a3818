#include "agent/etcdproxy/classifier/counter_rates.hpp"

namespace fed::etcdproxy::classifier {

std::optional<CounterRates::Delta> CounterRates::observe(std::string_view key, double value,
                                                         Clock::time_point at) {
  const auto it = last_.find(key);
  if (it == last_.end()) {
    last_.emplace(std::string(key), Last{value, at});
    return std::nullopt;
  }
  const double seconds = std::chrono::duration<double>(at - it->second.at).count();
  if (seconds <= 0) return std::nullopt;
  Delta d;
  d.seconds = seconds;
  if (value < it->second.value) {
    d.reset = true;
    d.increase = value < 0 ? 0 : value;  // counted from zero since the restart
  } else {
    d.increase = value - it->second.value;
  }
  it->second = Last{value, at};
  return d;
}

std::optional<double> CounterRates::rate(std::string_view key, double value, Clock::time_point at) {
  const auto d = observe(key, value, at);
  if (!d) return std::nullopt;
  return d->rate();
}

}  // namespace fed::etcdproxy::classifier
