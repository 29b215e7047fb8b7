// The manual page (troff, section 1) generated from the command line's own
// definition, like the completion scripts: `winml-make man`, installed as
// share/man/man1/winml-make.1.gz.
#pragma once

#include <string>

#include "tools/completion_script.h"

namespace winml::tools {

std::string man_page(const CompletionModel& model, const std::string& version);

}  // namespace winml::tools
