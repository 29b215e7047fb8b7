#include "config/model_name.h"

namespace winml::config {

namespace {
bool allowed_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
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
  return "";
}

std::string model_name_from(const std::string& stem) {
  std::string out = stem;
  for (char& c : out)
    if (!allowed_char(c)) c = '_';
  return out;
}

}  // namespace winml::config
