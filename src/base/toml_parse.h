// TOML text to toml11's value tree, for every reader of TOML (winml.toml,
// the rules' tables). toml11's parser is a deep template made again in each
// translation unit that calls toml::parse (about 6 s of compile each): its
// readers share this one.
#pragma once

#include <string>
#include <toml.hpp>

namespace winml {

// Throws what toml::parse throws: toml::syntax_error (a toml::exception,
// with the location) for bad syntax. `origin` names the text in messages.
toml::value parse_toml(const std::string& text, const std::string& origin);

}  // namespace winml
