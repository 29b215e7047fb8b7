// The TOML config loader: parse, limits, schema validation, defaults.
#include "config/project.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace winml;
  const auto dir = fuzz::scratch();
  fuzz::write(dir / "winml.toml", std::string_view(reinterpret_cast<const char*>(data), size));
  fuzz::expecting_only_our_errors([&] { config::load_project(dir, dir / "winml.toml"); });
  return 0;
}
