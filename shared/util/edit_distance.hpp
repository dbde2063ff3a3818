#pragma once
// Edit distance for "did you mean" suggestions on mistyped commands, flags and values.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fed::util {

// Optimal-string-alignment distance (Damerau-Levenshtein where each substring is edited once):
// insertions, deletions, substitutions and adjacent transpositions each cost 1.
// "jion" -> "join" is 1 (one transposition), "version" -> "verison" is 1.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `input` (ASCII case ignored) if it is a plausible typo: distance at
// most `max_distance`, or `input` (at least 2 characters) is a prefix of it. Ties go to the
// earlier candidate, so list candidates in order of preference. Empty when nothing is close.
std::optional<std::string> closest_match(std::string_view input,
                                         const std::vector<std::string>& candidates,
                                         std::size_t max_distance = 2);

}  // namespace fed::util
