#include "agent/etcdproxy/classifier/dataset_csv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <istream>
#include <limits>

namespace fed::etcdproxy::classifier {
namespace {

constexpr std::size_t kMetaColumns = 5;  // episode,second,label,delay_ms,clients

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto comma = line.find(',', start);
    out.push_back(
        line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string number(double v) {
  if (std::isnan(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

}  // namespace

std::string_view to_string(LeaderState s) {
  switch (s) {
    case LeaderState::Idle:
      return "idle";
    case LeaderState::NetworkDelay:
      return "network delay";
    case LeaderState::Overload:
      return "overload";
    case LeaderState::DelayAndOverload:
      return "delay+overload";
  }
  return "?";
}

Dataset Dataset::first_columns(std::size_t n) const {
  Dataset out;
  n = std::min(n, x.cols);
  out.feature_columns.assign(feature_columns.begin(),
                             feature_columns.begin() + static_cast<long>(n));
  out.x.cols = n;
  out.x.values.reserve(x.rows() * n);
  for (std::size_t r = 0; r < x.rows(); ++r) {
    const auto row = x.row(r);
    out.x.values.insert(out.x.values.end(), row.begin(), row.begin() + static_cast<long>(n));
  }
  out.labels = labels;
  out.episodes = episodes;
  return out;
}

std::string csv_header() {
  std::string h = "episode,second,label,delay_ms,clients";
  for (const auto name : feature_names()) {
    h += ',';
    h += name;
  }
  return h;
}

std::string csv_row(const DatasetRow& row) {
  std::string s = std::to_string(row.episode) + ',' + number(row.second) + ',' +
                  std::to_string(row.label) + ',' + std::to_string(row.delay_ms) + ',' +
                  std::to_string(row.clients);
  for (const float f : row.features) {
    s += ',';
    s += number(f);
  }
  return s;
}

Result<Dataset> read_dataset(std::istream& in) {
  Dataset d;
  std::string line;
  if (!std::getline(in, line)) return fail(ErrorCode::Invalid, "dataset: empty file");
  const auto header = split_commas(line);
  if (header.size() <= kMetaColumns || header[0] != "episode" || header[2] != "label") {
    return fail(ErrorCode::Invalid,
                "dataset: the header must start with episode,second,label,delay_ms,clients "
                "and name at least one feature");
  }
  d.feature_columns.assign(header.begin() + kMetaColumns, header.end());
  d.x.cols = d.feature_columns.size();
  for (int line_no = 2; std::getline(in, line); ++line_no) {
    if (line.empty()) continue;
    const auto cells = split_commas(line);
    auto bad = [&](const std::string& why) {
      return fail(ErrorCode::Invalid, "dataset line " + std::to_string(line_no) + ": " + why);
    };
    if (cells.size() != header.size()) {
      return bad(std::to_string(cells.size()) + " cells, the header has " +
                 std::to_string(header.size()));
    }
    char* end = nullptr;
    const long label = std::strtol(cells[2].c_str(), &end, 10);
    if (cells[2].empty() || *end != '\0' || label < 0 || label >= kClassCount) {
      return bad("label \"" + cells[2] + "\" is not 0..3");
    }
    const long episode = std::strtol(cells[0].c_str(), &end, 10);
    if (cells[0].empty() || *end != '\0')
      return bad("episode \"" + cells[0] + "\" is not a number");
    for (std::size_t c = kMetaColumns; c < cells.size(); ++c) {
      const auto& cell = cells[c];
      if (cell.empty() || cell == "nan") {
        d.x.values.push_back(std::numeric_limits<float>::quiet_NaN());
        continue;
      }
      const float v = std::strtof(cell.c_str(), &end);
      if (*end != '\0') return bad("\"" + cell + "\" in column " + header[c] + " is not a number");
      d.x.values.push_back(v);
    }
    d.labels.push_back(static_cast<int>(label));
    d.episodes.push_back(static_cast<int>(episode));
  }
  return d;
}

}  // namespace fed::etcdproxy::classifier
