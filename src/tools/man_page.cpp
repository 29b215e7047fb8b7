#include "tools/man_page.h"

#include <sstream>

#include "base/error.h"

namespace winml::tools {

namespace {

// Text for troff: backslashes and hyphens escaped, no line starting a request.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
    line_start = c == '\n';
  }
  return out;
}

void options_section(std::ostringstream& o, const std::vector<CompletionOption>& options) {
  for (const auto& opt : options) {
    o << ".TP\n";
    for (std::size_t i = 0; i < opt.names.size(); ++i) o << (i ? ", " : "") << "\\fB" << roff(opt.names[i]) << "\\fR";
    if (opt.takes_value) o << " \\fI" << roff(opt.value_name.empty() ? "VALUE" : opt.value_name) << "\\fR";
    o << "\n" << roff(opt.description) << "\n";
  }
}

struct Entry {
  const char* name;
  const char* text;
};

// What docs/cli.md's tables say; tests/tools/man_page_test.cpp keeps them in step.
const Entry kExitCodes[] = {
    {"0", "Success, including a build where everything was up to date and status with stale stages."},
    {"1",
     "A build or stage failed on valid input (an export command or compiler failed, validation failed, "
     "a write failed, the lock timed out)."},
    {"2",
     "Usage or input error: unknown option or subcommand, invalid config (file and line named), unknown "
     "target, missing or invalid model."},
    {"130", "Interrupted: finished stages are kept, nothing of an unfinished one is recorded."},
};
const Entry kEnvironment[] = {
    {"WINML_MAKE_CACHE_DIR", "Cache directory when --cache-dir is not given."},
    {"XDG_CACHE_HOME", "Otherwise the cache is $XDG_CACHE_HOME/winml-make (else ~/.cache/winml-make)."},
    {"WINML_MAKE_RULES_DIR",
     "A rules overlay: files here add to or replace the shipped rules (EP tables, presets, "
     "export recipe); the project's own rules/ overrides both."},
    {"NO_COLOR", "When set and not empty, no colour in the build's output, whatever --color says."},
    {"WINML_RUNTIME_ISA",
     "generic, avx2 or avx512: force a lower instruction set on the CPU runtime (avx2 and avx512 build the same "
     "bytes; generic enters the keys)."},
    {"WINML_MAKE_WORKER_REUSE",
     "0: every stage runs in a new worker process instead of the one its build thread already started. Not in any "
     "key: the bytes are the same either way."},
    {"WINML_RUNTIME_THREADS",
     "1 to 1024: the CPU runtime's threads where a command names none (a build's calibration, accuracy pass and "
     "validation); default one per core. Not in any key: the bytes are the same for every count."},
    {"WINML_ORT_CACHE",
     "Where scripts/fetch-ort.sh puts ONNX Runtime, and where the default [compile] ort_library is looked for "
     "(DIR/1.29.0/lib/libonnxruntime.so.1); else $XDG_CACHE_HOME/winml-make/ort, else ~/.cache/winml-make/ort."},
};
const Entry kFiles[] = {
    {"winml.toml", "The project's configuration (winml.toml.example in the documentation lists every key)."},
    {"build/<model>/",
     "Each model's artifacts: export.onnx, optimized.onnx, quantized.onnx, compiled.onnx, "
     "model.onnx, analyze_result.json, winml_build_config.json, build_manifest.json."},
    {"build/.winml-make/",
     "The build records: what each stage was built from and what it wrote. clean removes "
     "only files they list."},
};

void entries(std::ostringstream& o, const char* section, const Entry* begin, const Entry* end, bool bold) {
  o << ".SH " << section << "\n";
  for (const Entry* e = begin; e != end; ++e)
    o << ".TP\n" << (bold ? "\\fB" : "") << roff(e->name) << (bold ? "\\fR" : "") << "\n" << roff(e->text) << "\n";
}

// Which commands the global options reach (tools/completion_script.h:
// takes_global), from the command line's own definition.
std::string global_scope(const CompletionModel& m) {
  std::string after;
  for (const auto& s : m.subcommands)
    if (s.takes_global) after += (after.empty() ? "" : ", ") + s.name;
  return "These apply to the build, and to any command when they come before its name; after its name, only " +
         after + " take them.";
}

}  // namespace

std::string man_page(const CompletionModel& m, const std::string& version) {
  static_assert(kExitOk == 0 && kExitBuildFailure == 1 && kExitInputError == 2 && kExitInterrupted == 130);
  std::ostringstream o;
  // No date: the page is reproducible, like every other output.
  o << ".TH WINML\\-MAKE 1 \"\" \"winml-make " << roff(version) << "\" \"User Commands\"\n"
    << ".SH NAME\nwinml\\-make \\- incremental, content\\-hashed builds of ONNX model pipelines\n"
    << ".SH SYNOPSIS\n.B winml\\-make\n[\\fIOPTION\\fR...] [\\fIMODEL\\fR...]\n.br\n"
    << ".B winml\\-make\n\\fICOMMAND\\fR [\\fIOPTION\\fR...] [\\fIARGUMENT\\fR...]\n"
    << ".SH DESCRIPTION\n"
    << roff(
           "A project directory holds a declarative winml.toml; winml-make turns each configured model into a "
           "deployment artifact through a graph of content-hashed stages: export, optimize, analyze, quantize, "
           "compile and package. A stage reruns only when something it depends on really changed (content, its "
           "configuration, its code), and an incremental build leaves exactly the bytes a clean build would. "
           "Without a command, winml-make builds the named models (default: all).")
    << "\n.SH OPTIONS\n" << roff(global_scope(m)) << "\n";
  options_section(o, m.global);
  o << ".SH BUILD OPTIONS\nOptions of the build itself (winml-make without a command).\n";
  options_section(o, m.build);
  o << ".SH COMMANDS\n";
  for (const auto& s : m.subcommands) {
    o << ".SS " << roff(s.name) << "\n" << roff(s.description) << "\n";
    if (!s.subcommands.empty()) {
      std::string list;
      for (const auto& n : s.subcommands) list += (list.empty() ? "" : ", ") + n;
      o << ".PP\nCommands: " << roff(list) << ".\n";
    }
    options_section(o, s.options);
  }
  entries(o, "EXIT STATUS", std::begin(kExitCodes), std::end(kExitCodes), false);
  entries(o, "ENVIRONMENT", std::begin(kEnvironment), std::end(kEnvironment), true);
  entries(o, "FILES", std::begin(kFiles), std::end(kFiles), false);
  o << ".SH SEE ALSO\n"
    << roff(
           "The full documentation, with a reference of every command and configuration key, is in "
           "/usr/share/doc/winml-make/ (docs/ in the source tree).")
    << "\n";
  return o.str();
}

}  // namespace winml::tools
