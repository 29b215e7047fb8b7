#include "cli/color.h"

#include <cstdlib>
#include <string_view>

#include "base/console.h"
#include "base/error.h"
#include "base/this_process.h"

namespace winml::cli {

ColorMode parse_color_mode(const std::string& text) {
  if (text == "auto") return ColorMode::kAuto;
  if (text == "always") return ColorMode::kAlways;
  if (text == "never") return ColorMode::kNever;
  throw InputError("--color " + text + ": expected auto, always or never");
}

bool use_color(ColorMode mode, int fd) {
  if (mode == ColorMode::kNever) return false;
  // NO_COLOR, when present and not empty, wins over everything (no-color.org).
  if (auto no_color = environment_variable("NO_COLOR"); no_color && !no_color->empty()) return false;
  if (mode == ColorMode::kAlways) return true;
  if (environment_variable("TERM") == "dumb") return false;
  return is_terminal(fd) && enable_terminal_colors(fd);
}

std::string colored_status(const std::string& text, bool color) {
  if (!color) return text;
  // The status word may be padded: colour the word, keep the padding.
  const auto end = text.find_last_not_of(' ') + 1;
  const std::string_view word(text.data(), end);
  const char* code = word == "completed" || word == "cached" ? "32"  // green
                     : word == "FAILED"                      ? "1;31"
                     : word == "would fail"                  ? "31"
                     : word == "would run"                   ? "33"
                     : word == "not run"                     ? "2"
                                                             : nullptr;
  if (!code) return text;
  return "\033[" + std::string(code) + "m" + std::string(word) + "\033[0m" + text.substr(end);
}

}  // namespace winml::cli
