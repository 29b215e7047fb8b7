#include "config/model_name.h"

namespace winml::config {

namespace {
bool allowed_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

// Windows opens these as devices whatever follows them after a dot ("nul",
// "CON.onnx"): a model's folder could not be made there, so no system takes
// them (one project builds on every system).
bool names_a_windows_device(const std::string& name) {
  std::string base = name.substr(0, name.find('.'));
  for (char& c : base) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  if (base == "CON" || base == "PRN" || base == "AUX" || base == "NUL") return true;
  return base.size() == 4 && (base.starts_with("COM") || base.starts_with("LPT")) && base[3] >= '1' && base[3] <= '9';
}
}  // namespace

std::string model_name_problem(const std::string& name) {
  if (name.empty()) return "is empty";
  if (name.size() > kMaxModelNameLength)
    return "is " + std::to_string(name.size()) + " characters long (at most " + std::to_string(kMaxModelNameLength) +
           ")";
  for (char c : name)
    if (!allowed_char(c)) return "may only contain letters, digits, '_', '-' and '.'";
  if (name.front() == '.') return "may not start with '.'";
  if (name.front() == '-') return "may not start with '-'";
  // (Windows drops a trailing dot: "net." and "net" would be one folder.)
  if (name.back() == '.') return "may not end with '.'";
  if (names_a_windows_device(name))
    return "is a name Windows keeps for a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9), so its folder cannot be "
           "made there";
  return "";
}

std::string model_name_from(const std::string& stem) {
  std::string out = stem;
  for (char& c : out)
    if (!allowed_char(c)) c = '_';
  return out;
}

}  // namespace winml::config
