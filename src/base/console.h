// The terminal winml-make prints to (base/posix/console.cpp,
// base/windows/console.cpp).
#pragma once

namespace winml {

// Whether descriptor `fd` (0, 1 or 2) is a terminal (on Windows, a console).
bool is_terminal(int fd);

// Lets escape sequences colour what is written to `fd`: on Windows, turns on
// the console's virtual-terminal processing. False where the terminal cannot.
bool enable_terminal_colors(int fd);

}  // namespace winml
