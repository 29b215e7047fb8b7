// What a --help text lists: the independent witness the generated
// completion scripts and manual page are checked against.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace winml::test {

// Subcommand names listed under "Subcommands:".
std::vector<std::string> subcommands_in_help(const std::string& help);
// Every "--long" and "-s" option name.
std::set<std::string> options_in_help(const std::string& help);

}  // namespace winml::test
