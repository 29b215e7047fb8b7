// What a compiler outside winml-make (a vendor's tool, ONNX Runtime) wrote
// into a scratch directory, checked and made into the compile output:
//   - the model loads and holds EPContext nodes;
//   - every external ep_cache_context is a relative path without "..",
//     inside the directory, naming an existing non-empty file (embedded ones
//     are non-empty);
//   - blobs get content-addressed names "<stem>_<xxh3-128>.bin", so equal
//     compiled bytes always have the same name and a changed blob a new one;
//   - the model and the files it references move to the output; anything
//     else the compiler left is discarded (and listed).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "model/model.h"

namespace winml::compile {

// A fresh directory next to `out` for a compiler to write into, removed with
// whatever is left in it when this goes out of scope.
class ScratchDir {
 public:
  explicit ScratchDir(const std::filesystem::path& out);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

// The structural checks above on a compiled model at `path` (InputError or
// BuildError naming the file). Returns per-blob facts: file (or "embedded"),
// bytes, source, partition. Does not rename anything.
nlohmann::json verify_epcontext_model(const std::filesystem::path& path);
nlohmann::json verify_epcontext_model(const model::Model& m);

struct PlacedModel {
  nlohmann::json blobs = nlohmann::json::array();      // {file, digest, bytes} of each external blob
  nlohmann::json discarded = nlohmann::json::array();  // files the compiler left besides the model's
  nlohmann::json epcontext_nodes;                      // verify_epcontext_model's facts, blobs by their new names
};

// Renames the blobs of the model `staged` (inside `scratch`), verified as
// `verified` (verify_epcontext_model), to content-addressed names and moves it
// with its files to `out`, replacing an earlier model there and its sidecars.
PlacedModel place_compiled_model(const std::filesystem::path& scratch, const std::filesystem::path& staged,
                                 const std::filesystem::path& out, const nlohmann::json& verified);

}  // namespace winml::compile
