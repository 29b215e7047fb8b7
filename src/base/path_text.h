// Paths as text, the one way: UTF-8, with '/' between names. What the build
// state, keys, messages and requests to workers hold, the same on every
// system. (std::filesystem::path::string() is not it on Windows: it uses the
// ANSI code page and backslashes.) The definitions are per system, chosen by
// the include path CMake gives (base/posix/platform/, base/windows/platform/).
//
//   to_utf8(path)    the path's text (POSIX: a reference to its own string)
//   from_utf8(text)  the path a text names
#pragma once

#include "platform/path_text.h"
