// Colour in the build's output: on a terminal only, never when NO_COLOR is
// set (no-color.org) or TERM is "dumb", whatever --color=always says about
// pipes. CI logs stay plain text.
#pragma once

#include <string>

namespace winml::cli {

enum class ColorMode { kAuto, kAlways, kNever };

// "auto", "always" or "never"; throws InputError naming --color otherwise.
ColorMode parse_color_mode(const std::string& text);

// Whether output written to file descriptor `fd` gets colour.
bool use_color(ColorMode mode, int fd);

// `text` in the colour of a status word ("completed", "FAILED", ...); plain
// when `color` is false or the word has no colour.
std::string colored_status(const std::string& text, bool color);

}  // namespace winml::cli
