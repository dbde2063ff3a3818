#pragma once
// The labelled dataset as CSV: one row per scrape period,
//   episode,second,label,delay_ms,clients,<feature columns...>
// label is the class (0 idle, 1 network delay, 2 overload, 3 both); the feature columns are
// feature_names() in order (a file may hold any subset, named in its header). Empty cells and
// "nan" are missing values.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "agent/etcdproxy/classifier/leader_features.hpp"
#include "agent/etcdproxy/classifier/xgb_model.hpp"
#include "shared/result/result.hpp"

namespace fed::etcdproxy::classifier {

// The leader-health classes.
enum class LeaderState : int { Idle = 0, NetworkDelay = 1, Overload = 2, DelayAndOverload = 3 };
inline constexpr int kClassCount = 4;
std::string_view to_string(LeaderState s);

struct DatasetRow {
  int episode = 0;
  double second = 0;  // since the episode started
  int label = 0;
  int delay_ms = 0;
  int clients = 0;
  FeatureVector features{};
};

struct Dataset {
  std::vector<std::string> feature_columns;
  Matrix x;
  std::vector<int> labels;
  std::vector<int> episodes;

  // The same rows with only the first `n` feature columns.
  Dataset first_columns(std::size_t n) const;
};

// The header line (no newline) and one row, as the generator appends them.
std::string csv_header();
std::string csv_row(const DatasetRow& row);

// Reads a file written with csv_header()/csv_row(). Invalid names the bad line.
Result<Dataset> read_dataset(std::istream& in);

}  // namespace fed::etcdproxy::classifier
