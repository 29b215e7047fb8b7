#include "base/native_file.h"

namespace winml::native {

bool is_stream(const fs::path& path) {
  const FileKind k = native::status(path).kind;
  return k == FileKind::kDevice || k == FileKind::kFifo;
}

std::string_view describe_kind(FileKind kind) {
  switch (kind) {
    case FileKind::kDirectory: return "a directory";
    case FileKind::kFifo: return "a FIFO";
    case FileKind::kDevice: return "a device";
    case FileKind::kSocket: return "a socket";
    default: return "not a regular file";
  }
}

}  // namespace winml::native
