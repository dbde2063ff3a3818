#include "shared/metrics/metric.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

namespace fed::metrics {

void Counter::inc(double v) {
  assert(v >= 0.0 && "counters only go up; use a Gauge");
  v_.fetch_add(v, std::memory_order_relaxed);
}

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double v) {
  // First bucket whose bound is >= v; NaN lands in +Inf.
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);
  const auto index =
      std::isnan(v) ? bounds_.size() : static_cast<std::size_t>(it - bounds_.begin());
  std::lock_guard lock(mu_);
  ++counts_[index];
  ++count_;
  sum_ += v;
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  std::lock_guard lock(mu_);
  s.cumulative.reserve(counts_.size());
  std::uint64_t running = 0;
  for (std::uint64_t c : counts_) {
    running += c;
    s.cumulative.push_back(running);
  }
  s.count = count_;
  s.sum = sum_;
  return s;
}

std::vector<double> default_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

std::vector<double> linear_buckets(double start, double width, int count) {
  assert(width > 0 && count > 0);
  std::vector<double> b;
  for (int i = 0; i < count; ++i) b.push_back(start + width * i);
  return b;
}

std::vector<double> exponential_buckets(double start, double factor, int count) {
  assert(start > 0 && factor > 1 && count > 0);
  std::vector<double> b;
  double v = start;
  for (int i = 0; i < count; ++i, v *= factor) b.push_back(v);
  return b;
}

}  // namespace fed::metrics
