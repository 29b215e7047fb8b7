#include "support/platform.h"

#include "base/this_process.h"

namespace winml::test {

ScopedEnvironment::~ScopedEnvironment() {
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    if (it->second) set_environment_variable(it->first, *it->second);
    else unset_environment_variable(it->first);
  }
}

void ScopedEnvironment::save(const std::string& name) { saved_.emplace_back(name, environment_variable(name)); }

ScopedEnvironment& ScopedEnvironment::set(const std::string& name, const std::string& value) {
  save(name);
  set_environment_variable(name, value);
  return *this;
}

ScopedEnvironment& ScopedEnvironment::unset(const std::string& name) {
  save(name);
  unset_environment_variable(name);
  return *this;
}

}  // namespace winml::test
