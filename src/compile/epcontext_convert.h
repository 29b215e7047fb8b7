// Converting a compiled model between its two EPContext forms:
//   embed   every blob goes into its node's ep_cache_context (embed_mode = 1)
//   extern  every embedded blob goes to a sidecar next to the model
//           ("<stem>_ref.bin" for `ref` blobs, "<stem>_ctx.bin" for others;
//           "_<k>" added for further ones) and the node stores its relative
//           path (embed_mode = 0)
// `ref` blobs are checked in full (version, checksums) before anything is
// written; a failure leaves the output untouched.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

namespace winml::compile {

nlohmann::json convert_epcontext(const std::filesystem::path& in, const std::filesystem::path& out, bool embed);

}  // namespace winml::compile
