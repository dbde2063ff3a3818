#pragma once
// The three Prometheus metric kinds a component updates: monotonic counters, gauges and
// histograms. All are safe to update from any thread; a Registry (registry.hpp) owns them.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace fed::metrics {

// A value that only goes up (requests served, errors seen). Resets only with the process.
class Counter final {
 public:
  // Adds `v`, which must be non-negative (a negative increment is a bug and asserts).
  void inc(double v = 1.0);
  double value() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> v_{0.0};
};

// A value that goes up and down (queue depth, ready flag, last sync time).
class Gauge final {
 public:
  void set(double v) { v_.store(v, std::memory_order_relaxed); }
  void inc(double v = 1.0) { v_.fetch_add(v, std::memory_order_relaxed); }
  void dec(double v = 1.0) { v_.fetch_sub(v, std::memory_order_relaxed); }
  double value() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> v_{0.0};
};

// Counts observations into buckets by upper bound (Prometheus "le"), plus their sum and count.
class Histogram final {
 public:
  // A consistent view for rendering: cumulative[i] counts observations <= upper_bounds[i].
  struct Snapshot {
    std::vector<std::uint64_t> cumulative;
    std::uint64_t count = 0;
    double sum = 0.0;
  };

  // `upper_bounds` must be finite and strictly increasing (validated by the Registry);
  // the +Inf bucket is implicit.
  explicit Histogram(std::vector<double> upper_bounds);

  // Records one observation.
  void observe(double v);
  Snapshot snapshot() const;
  const std::vector<double>& upper_bounds() const { return bounds_; }

 private:
  const std::vector<double> bounds_;
  mutable std::mutex mu_;  // observations are rare next to the work they time; keeps sum/count
                           // and buckets consistent for a scrape
  std::vector<std::uint64_t> counts_;  // per bucket, not cumulative; last is +Inf
  std::uint64_t count_ = 0;
  double sum_ = 0.0;
};

// client_golang's DefBuckets: .005 .01 .025 .05 .1 .25 .5 1 2.5 5 10 (seconds).
std::vector<double> default_buckets();

// `count` buckets: start, start+width, ... (width > 0).
std::vector<double> linear_buckets(double start, double width, int count);

// `count` buckets: start, start*factor, ... (start > 0, factor > 1).
std::vector<double> exponential_buckets(double start, double factor, int count);

}  // namespace fed::metrics
