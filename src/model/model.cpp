#include "model/model.h"

#include "base/error.h"
#include "model/external_data.h"
#include "base/path_text.h"

namespace winml::model {

TensorBytes Model::tensor_bytes(const onnx::TensorProto& t) const {
  if (!is_external(t)) return inline_tensor_bytes(t);
  ExternalDataRef ref = read_external_ref(t, to_utf8(path));
  auto it = external_files.find(ref.location);
  if (it == external_files.end())
    throw InputError(file_error(to_utf8(path),
                                "external data file '" + ref.location + "' of tensor '" + t.name() + "' is not open"));
  std::uint64_t length = ref.length ? *ref.length : it->second->size() - ref.offset;
  TensorBytes r;
  r.bytes = std::span<const std::byte>(it->second->data() + ref.offset, static_cast<std::size_t>(length));
  return r;
}

std::string_view Model::string_bytes(const onnx::AttributeProto& a) const {
  auto it = mapped_strings.find(&a);
  return it != mapped_strings.end() ? it->second : std::string_view(a.s());
}

std::int64_t Model::opset(std::string_view domain) const {
  bool want_default = domain.empty() || domain == "ai.onnx";
  for (const auto& o : proto.opset_import()) {
    bool is_default = o.domain().empty() || o.domain() == "ai.onnx";
    if ((want_default && is_default) || (!want_default && o.domain() == domain)) return o.version();
  }
  return 0;
}

}  // namespace winml::model
