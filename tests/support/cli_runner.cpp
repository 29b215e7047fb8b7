#include "support/cli_runner.h"

#include <stdexcept>

#include "base/subprocess.h"
#include "base/this_process.h"
#include "support/temp_dir.h"

namespace winml::test {

std::string CliResult::first_error_line() const { return err.substr(0, err.find('\n')); }

CliResult run_program(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                      const std::map<std::string, std::string>& env) {
  CliResult r;
  ProcessSpec spec;
  spec.argv = argv;
  spec.cwd = cwd;
  spec.env = environment_variables();
  // scripts/sanitize.sh: the programs a sanitized test starts may run with
  // other sanitizer options than the test itself (see there why).
  if (auto child = spec.env.find("WINML_TEST_CHILD_ASAN_OPTIONS"); child != spec.env.end())
    spec.env["ASAN_OPTIONS"] = child->second;
  for (const auto& [k, v] : env) spec.env[k] = v;
  spec.output = &r.out;
  spec.errors = &r.err;
  const ProcessResult p = run_process(spec);
  if (!p.started) throw std::runtime_error("cannot start " + argv[0] + ": " + p.error);
  r.exit_code = p.exit_code;
  return r;
}

CliResult run_cli(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                  const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv{winml_make_binary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, cwd, env);
}

}  // namespace winml::test
