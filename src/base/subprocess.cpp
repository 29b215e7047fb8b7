#include "base/subprocess.h"

#include <deque>
#include <fstream>

#include "base/error.h"

namespace winml {

std::vector<std::string> substitute_placeholders(const std::vector<std::string>& argv,
                                                 const std::map<std::string, std::string>& values,
                                                 const std::string& what) {
  std::vector<std::string> out;
  for (const auto& arg : argv) {
    std::string s;
    for (std::size_t i = 0; i < arg.size();) {
      if (arg[i] == '{') {
        auto close = arg.find('}', i);
        if (close != std::string::npos) {
          std::string name = arg.substr(i + 1, close - i - 1);
          auto it = values.find(name);
          if (it == values.end()) {
            std::string known;
            for (const auto& [k, v] : values) known += (known.empty() ? "{" : ", {") + k + "}";
            throw InputError(what + ": unknown placeholder {" + name + "} in '" + arg + "' (known: " + known + ")");
          }
          s += it->second;
          i = close + 1;
          continue;
        }
      }
      s += arg[i++];
    }
    out.push_back(s);
  }
  return out;
}

std::string tail_lines(const std::filesystem::path& file, std::size_t n) {
  std::ifstream in(file);
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > n) lines.pop_front();
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string quote_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain =
        !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") ==
                          std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

}  // namespace winml
