// Tensors a stage makes, kept out of memory: their bytes go to an unnamed
// scratch file as they are made, and the tensors refer to it as external data
// (a location of the form "<spill:N>" that never reaches a saved model:
// save_model copies the bytes into the model's own sidecar, in the kernel,
// or inline for a small model). A model of many gigabytes is then never
// held in protobuf, which could not hold more than 2 GiB anyway.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "model/model.h"

namespace winml::model {

class SpillFile {
 public:
  // An unnamed file in `dir` (O_TMPFILE: nothing is left behind however the
  // process ends); `dir` must be on a file system that has room for it.
  explicit SpillFile(const std::filesystem::path& dir);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends `bytes` and makes `t` (its type and dims already set) refer to
  // them. Readable through `m` once attach(m) has run.
  void put(onnx::TensorProto& t, std::span<const std::byte> bytes);
  // Maps what was written so far into m.external_files (again after more puts).
  void attach(Model& m) const;
  std::uint64_t size() const { return size_; }
  const std::string& location() const { return location_; }

 private:
  std::filesystem::path dir_;
  std::string location_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// Tensors smaller than this stay in protobuf.
inline constexpr std::uint64_t kSpillFrom = 64 * 1024;

// Puts `t`'s inline bytes into `spill` when there is one and `t` is large,
// else leaves it as it is.
void spill_if_large(SpillFile* spill, onnx::TensorProto& t);

// Drops the pages of an external tensor's mapping that `m` read (they are
// read from the file again if touched): a weight processed once need not
// stay in memory.
void release_tensor_pages(const Model& m, const onnx::TensorProto& t);

}  // namespace winml::model
