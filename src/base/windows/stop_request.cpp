#include "base/stop_request.h"

#include <windows.h>

namespace winml {

namespace {

void (*g_handler)() = nullptr;

BOOL WINAPI on_console_event(DWORD event) {
  switch (event) {
    case CTRL_C_EVENT:
    case CTRL_BREAK_EVENT:
      g_handler();
      return TRUE;
    case CTRL_CLOSE_EVENT:
    case CTRL_LOGOFF_EVENT:
    case CTRL_SHUTDOWN_EVENT:
      // The system ends the process when this returns: the handler is the
      // last chance to stop the children.
      g_handler();
      g_handler();
      return TRUE;
    default:
      return FALSE;
  }
}

}  // namespace

void on_stop_request(void (*handler)()) {
  g_handler = handler;
  SetConsoleCtrlHandler(on_console_event, TRUE);
}

void write_to_stderr_now(std::string_view text) {
  DWORD written = 0;
  WriteFile(GetStdHandle(STD_ERROR_HANDLE), text.data(), static_cast<DWORD>(text.size()), &written, nullptr);
}

void exit_now(int code) { ExitProcess(static_cast<UINT>(code)); }

}  // namespace winml
