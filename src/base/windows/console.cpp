#include "base/console.h"

#include <io.h>
#include <windows.h>

namespace winml {

namespace {

HANDLE console_of(int fd) {
  HANDLE h = reinterpret_cast<HANDLE>(_get_osfhandle(fd));
  DWORD mode = 0;
  return h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode) ? h : nullptr;
}

}  // namespace

// (_isatty is also true for the NUL device: a console is what has a mode.)
bool is_terminal(int fd) { return console_of(fd) != nullptr; }

bool enable_terminal_colors(int fd) {
  HANDLE h = console_of(fd);
  DWORD mode = 0;
  if (!h || !GetConsoleMode(h, &mode)) return false;
  return (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) ||
         SetConsoleMode(h, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING | ENABLE_PROCESSED_OUTPUT);
}

}  // namespace winml
