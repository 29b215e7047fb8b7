// What a session asks of the plugin EP, read from its session options when
// ORT creates the EP: ORT's EPContext options (ep.context_enable,
// ep.context_embed_mode, ep.context_file_path, ep.context_node_name_prefix,
// session.compile_only) and our provider options, which ORT stores as
// "ep.winmlmakerefexecutionprovider.<key>":
//   dims = "name=value,..."   values of symbolic input dimensions (others 1),
//                             as [model] dims does for the built-in backend.
#pragma once

#include <onnxruntime_c_api.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "ort_ep/api.h"

namespace winml::ort_ep {

struct Settings {
  bool write_contexts = false;          // ep.context_enable = 1: Compile returns EPContext nodes
  bool embed = false;                   // ep.context_embed_mode = 1: blobs inside the nodes
  std::filesystem::path context_model;  // ep.context_file_path: where ORT writes the compiled model
  std::string node_name_prefix;         // ep.context_node_name_prefix
  bool compile_only = false;            // session.compile_only = 1: the session never runs
  std::map<std::string, std::int64_t> dims;
};

// InputError for a malformed provider option or an unknown one.
Settings read_settings(const Api& api, const OrtSessionOptions* options);

// "N=1,S=128" -> {N: 1, S: 128}; InputError naming `what` otherwise.
std::map<std::string, std::int64_t> parse_dims(const std::string& text, const std::string& what);

}  // namespace winml::ort_ep
