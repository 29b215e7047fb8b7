#include "ort_ep/model_file_blob.h"

#include "base/error.h"
#include "base/mapped_file.h"
#include "model/mapped_blobs.h"

namespace winml::ort_ep {

std::optional<MappedBlob> map_blob_in_model_file(const std::filesystem::path& model, const std::string& node,
                                                 std::size_t size) {
  if (model.empty()) return std::nullopt;
  std::shared_ptr<const MappedFile> file;
  try {
    file = MappedFile::open(model);
  } catch (const InputError&) {
    return std::nullopt;
  }
  std::optional<MappedBlob> found;
  for (const model::LiftedString& s : model::find_context_blobs(file->view(), size)) {
    if (s.node_name != node) continue;
    if (found || s.size != size) return std::nullopt;  // (two nodes of that name, or not what ORT holds)
    found = MappedBlob{file->view().substr(static_cast<std::size_t>(s.offset), size), file};
  }
  return found;
}

}  // namespace winml::ort_ep
