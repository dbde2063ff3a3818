#include "shared/util/edit_distance.hpp"

#include <algorithm>

#include "shared/util/strings.hpp"

namespace fed::util {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rolling rows: the transposition step looks two rows back.
  const std::size_t n = b.size();
  std::vector<std::size_t> before(n + 1), prev(n + 1), cur(n + 1);
  for (std::size_t j = 0; j <= n; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);
      }
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[n];
}

std::optional<std::string> closest_match(std::string_view input,
                                         const std::vector<std::string>& candidates,
                                         std::size_t max_distance) {
  const std::string needle = to_lower(input);
  std::optional<std::string> best;
  std::size_t best_distance = max_distance + 1;
  for (const std::string& candidate : candidates) {
    const std::string hay = to_lower(candidate);
    std::size_t d = edit_distance(needle, hay);
    // A prefix ("ver" for "version") is as good as a one-letter typo.
    if (needle.size() >= 2 && hay.starts_with(needle) && d > 1) d = 1;
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

}  // namespace fed::util
