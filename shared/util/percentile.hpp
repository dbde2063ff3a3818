#pragma once
// The q-quantile (0 <= q <= 1) of a sample by nearest rank over [0, n-1], for benchmark
// reports: 0 for an empty sample. Takes the sample by value because it sorts it.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace fed::util {

inline double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::lround(q * static_cast<double>(v.size() - 1)));
  return v[std::min(i, v.size() - 1)];
}

}  // namespace fed::util
