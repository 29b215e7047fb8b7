#include "base/console.h"

#include <unistd.h>

namespace winml {

bool is_terminal(int fd) { return ::isatty(fd) != 0; }

bool enable_terminal_colors(int) { return true; }

}  // namespace winml
