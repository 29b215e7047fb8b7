#include "cli/render_dot.h"

#include "base/error.h"
#include "base/subprocess.h"
#include "base/this_process.h"
#include "base/path_text.h"

namespace winml::cli {

std::string render_svg(const std::string& dot_text) {
  const std::filesystem::path dot = find_program("dot");
  if (dot.empty())
    throw InputError(
        "winml-make graph --svg draws through Graphviz's dot, which is not on PATH: install the graphviz package "
        "(Debian: apt install graphviz), or write the DOT text with 'winml-make graph' and render it elsewhere");
  // Fed and drained at once: a big graph fills both pipes. dot may stop
  // reading early; its message says why.
  std::string svg, messages;
  ProcessSpec spec;
  spec.argv = {to_utf8(dot), "-Tsvg"};
  spec.env = environment_variables();
  spec.input = &dot_text;
  spec.output = &svg;
  spec.errors = &messages;
  const ProcessResult r = run_process(spec);
  if (!r.started) throw BuildError("cannot run " + to_utf8(dot) + ": " + r.error);
  if (r.exit_code != 0) throw BuildError(to_utf8(dot) + " -Tsvg failed" + (messages.empty() ? std::string() : ": " + messages));
  return svg;
}

}  // namespace winml::cli
