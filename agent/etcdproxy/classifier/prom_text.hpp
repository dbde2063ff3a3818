#pragma once
// A parser for the Prometheus text exposition format (version 0.0.4), as etcd's /metrics serves
// it: `# HELP` / `# TYPE` lines, other comments, and samples `name{l="v",...} value [ts]` with
// label values escaped (\\, \", \n) and values that may be NaN or ±Inf. Pure: text in, values out.
// Histograms stay as their plain samples (_bucket{le=..}, _sum, _count); histogram() regroups.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::etcdproxy::classifier {

enum class MetricType { Untyped, Counter, Gauge, Histogram, Summary };

struct Sample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // in the order written
  double value = 0;

  // The value of label `key`, or nullopt.
  std::optional<std::string_view> label(std::string_view key) const;
};

// A histogram summed over the series that matched: cumulative bucket counts by upper bound.
struct Histogram {
  std::vector<std::pair<double, double>> buckets;  // (le, cumulative count), sorted by le
  double sum = 0;
  double count = 0;
};

class Scrape final {
 public:
  // Parses a whole /metrics body. Invalid names the first malformed line: "line 7: ...: `text`".
  static Result<Scrape> parse(std::string_view text);

  const std::vector<Sample>& samples() const { return samples_; }
  // The type a `# TYPE` line declared for a family (Untyped when none did).
  MetricType type(std::string_view family) const;
  // The sum of every sample named `name` whose labels include all of `match` (an empty match
  // takes every series); nullopt when no sample matched.
  std::optional<double> sum(
      std::string_view name,
      const std::vector<std::pair<std::string, std::string>>& match = {}) const;
  // The histogram family `name` (without _bucket/_sum/_count), summed over the matching series;
  // nullopt when it has no _count sample.
  std::optional<Histogram> histogram(
      std::string_view name,
      const std::vector<std::pair<std::string, std::string>>& match = {}) const;
  // The distinct values of label `key` among the samples named `name`, sorted.
  std::vector<std::string> label_values(std::string_view name, std::string_view key) const;

 private:
  std::vector<Sample> samples_;
  std::map<std::string, MetricType, std::less<>> types_;
};

// Parses a sample value as the format writes it ("1.5e-3", "NaN", "+Inf", "-Inf").
std::optional<double> parse_prom_value(std::string_view text);

}  // namespace fed::etcdproxy::classifier
