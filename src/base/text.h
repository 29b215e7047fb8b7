// Small string helpers shared by error messages and reports.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace winml {

std::size_t edit_distance(std::string_view a, std::string_view b);
// The candidate closest to `word`, or "" when none is plausibly meant.
std::string nearest_match(std::string_view word, const std::vector<std::string>& candidates);
// " (did you mean 'x'?)" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

std::string human_bytes(std::uint64_t bytes);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// "1 node", "3 nodes"; `many` defaults to `one` + "s" ("1 entry", "2 entries" needs it).
std::string count_of(std::uint64_t n, std::string_view one, std::string_view many = {});

}  // namespace winml
