#include "base/error.h"

namespace winml {

std::string file_error(const std::string& path, const std::string& message) { return path + ": " + message; }

}  // namespace winml
