#include "model/spill_file.h"

#include <atomic>

#include "base/error.h"
#include "base/mapped_file.h"
#include "base/native_file.h"
#include "model/external_data.h"
#include "model/tensor_data.h"
#include "base/path_text.h"

namespace winml::model {

namespace {

std::atomic<int> spill_count{0};

// As save_model aligns tensors in a sidecar: views of the mapping stay
// aligned for any vector load.
std::uint64_t aligned(std::uint64_t offset, std::uint64_t size) {
  const std::uint64_t a = size >= (1u << 20) ? 65536 : 64;
  return (offset + a - 1) / a * a;
}

}  // namespace

SpillFile::SpillFile(const std::filesystem::path& dir) : dir_(dir) {
  const int id = spill_count++;
  location_ = "<spill:" + std::to_string(id) + ">";
  fd_ = native::create_unnamed(dir);
  if (fd_ < 0) throw BuildError(file_error(to_utf8(dir), "cannot create a scratch file: " + native::last_error()));
}

SpillFile::~SpillFile() {
  native::close(fd_);
}

void SpillFile::put(onnx::TensorProto& t, std::span<const std::byte> bytes) {
  const std::uint64_t offset = aligned(size_, bytes.size());
  if (!native::write_all_at(fd_, bytes.data(), bytes.size(), offset))
    throw BuildError(file_error(to_utf8(dir_), "cannot write a scratch file: " + native::last_error()));
  size_ = offset + bytes.size();
  set_external_ref(t, location_, offset, bytes.size());
}

void SpillFile::attach(Model& m) const {
  if (size_ == 0) return;
  const int fd = native::duplicate(fd_);
  if (fd < 0) throw BuildError(file_error(to_utf8(dir_), "cannot map a scratch file: " + native::last_error()));
  m.external_files[location_] = MappedFile::adopt(fd, dir_ / from_utf8(location_));
}

void spill_if_large(SpillFile* spill, onnx::TensorProto& t) {
  if (!spill || is_external(t) || !t.has_raw_data() || t.raw_data().size() < kSpillFrom) return;
  std::string bytes = std::move(*t.mutable_raw_data());
  t.clear_raw_data();
  spill->put(t, std::as_bytes(std::span(bytes.data(), bytes.size())));
}

void release_tensor_pages(const Model& m, const onnx::TensorProto& t) {
  if (!is_external(t)) return;
  const TensorBytes b = m.tensor_bytes(t);
  release_mapped_pages(b.bytes.data(), b.bytes.size());
}

}  // namespace winml::model
