// Error kinds and the documented process exit codes they map to.
#pragma once

#include <stdexcept>
#include <string>

namespace winml {

// Documented exit codes (docs/exit-codes.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitBuildFailure = 1,   // a stage or the build failed
  kExitInputError = 2,     // usage error, bad config, bad model
  kExitInterrupted = 130,  // SIGINT
};

// Bad input from the user: a config, a model, a path. The message starts with
// the offending file (and line/column where known). Exit code 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A stage or build step failed on valid input. Exit code 1.
class BuildError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Formats "<path>: <message>" the one way every module names a file in errors.
std::string file_error(const std::string& path, const std::string& message);

}  // namespace winml
