// `winml-make graph --svg`: the DOT text drawn by Graphviz's `dot`, which is
// not a dependency of winml-make: found on PATH when asked for, and named
// with its package when it is missing.
#pragma once

#include <string>

namespace winml::cli {

// SVG of `dot_text`, from `dot -Tsvg`. InputError naming the graphviz package
// when no `dot` is on PATH; BuildError with dot's message when it fails.
// Nothing is printed: the caller writes the whole result, or nothing.
std::string render_svg(const std::string& dot_text);

}  // namespace winml::cli
