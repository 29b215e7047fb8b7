#include "model/path_safety.h"

#include "base/error.h"
#include "base/path_text.h"

namespace winml::model {

namespace fs = std::filesystem;

bool is_safe_relative(std::string_view reference) {
  if (reference.empty()) return false;
  if (reference.find('\0') != std::string_view::npos) return false;
  // Windows-style absolute paths and separators are refused too: the model
  // must load the same way on every OS.
  if (reference.front() == '/' || reference.front() == '\\') return false;
  if (reference.size() >= 2 && reference[1] == ':') return false;
  fs::path p = from_utf8(reference);
  for (const auto& part : p) {
    std::string s = to_utf8(part);
    if (s == "..") return false;
    if (s.find('\\') != std::string::npos) {
      // "a\..\b" is a parent reference on Windows.
      if (s.find("..") != std::string::npos) return false;
    }
  }
  return true;
}

fs::path resolve_inside(const fs::path& base_dir, std::string_view reference, std::string_view what,
                        const fs::path& model_path) {
  std::string ref(reference);
  if (!is_safe_relative(reference)) {
    throw InputError(file_error(to_utf8(model_path), std::string(what) + " '" + ref +
                                                         "' is refused: it must be a relative path inside the "
                                                         "model's directory (no absolute path, no '..')"));
  }
  fs::path candidate = base_dir / from_utf8(ref);
  std::error_code ec;
  // Absolute first: weakly_canonical leaves a relative path whose first
  // component is missing relative, which would never match the base.
  const fs::path base = fs::absolute(base_dir.empty() ? fs::path(".") : base_dir, ec);
  fs::path real_base = fs::weakly_canonical(base, ec);
  fs::path real = fs::weakly_canonical(base / from_utf8(ref), ec);
  if (!ec) {
    auto [b, r] = std::mismatch(real_base.begin(), real_base.end(), real.begin(), real.end());
    if (b != real_base.end()) {
      throw InputError(file_error(to_utf8(model_path), std::string(what) + " '" + ref +
                                                           "' is refused: it resolves (through a symbolic link) "
                                                           "outside the model's directory, to " +
                                                           to_utf8(real)));
    }
  }
  return candidate;
}

}  // namespace winml::model
