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

// What bash offers from the completion script `script_file` for the command
// line `words` (bash array syntax) with the cursor on word `cword`.
std::vector<std::string> bash_completions(const std::string& script_file, const std::string& words, int cword);

}  // namespace winml::test
