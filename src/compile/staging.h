// Writing a model (with sidecars) so that a failure leaves nothing behind:
// `write` fills a fresh directory next to `out`; only when it succeeds is the
// previous model at `out` removed (with its sidecars, which the new one may
// not have) and the new one moved into place.
#pragma once

#include <filesystem>
#include <functional>

namespace winml::compile {

void write_model_staged(const std::filesystem::path& out,
                        const std::function<void(const std::filesystem::path& staged)>& write);

}  // namespace winml::compile
