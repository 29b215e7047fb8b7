// Opening a file to read it, for anything a user or a shared cache can name:
// only regular files. A FIFO would block the open (or the read) forever, a
// device such as /dev/zero never ends, and a directory is not content.
#pragma once

#include <filesystem>

#include "base/native_file.h"

namespace winml {

// A read-only descriptor (close it with native::close), with the file's
// status in `st`. Throws InputError naming the file when it cannot be opened
// or is not a regular file; never blocks on a FIFO.
int open_regular_file(const std::filesystem::path& path, native::FileStatus* st = nullptr);

}  // namespace winml
