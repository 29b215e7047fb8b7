#include "ort_ep/compiled_partition.h"

#include <cstring>
#include <map>

#include "base/error.h"
#include "ort_ep/graph_reader.h"

namespace winml::ort_ep {

CompiledPartition::CompiledPartition(std::shared_ptr<const runtime::Plan> plan, std::vector<std::string> feeds,
                                     std::vector<std::string> fetches)
    : session_(std::move(plan)), feeds_(std::move(feeds)), fetches_(std::move(fetches)) {}

void CompiledPartition::compute(const Api& api, OrtKernelContext* context) const {
  GraphReader reader(api);
  std::size_t inputs = 0, outputs = 0;
  check(api, api.ort->KernelContext_GetInputCount(context, &inputs), "KernelContext_GetInputCount");
  check(api, api.ort->KernelContext_GetOutputCount(context, &outputs), "KernelContext_GetOutputCount");
  if (inputs != feeds_.size() || outputs != fetches_.size())
    throw BuildError("the fused node has " + std::to_string(inputs) + " inputs and " + std::to_string(outputs) +
                     " outputs; its plan takes " + std::to_string(feeds_.size()) + " and gives " +
                     std::to_string(fetches_.size()));
  std::map<std::string, runtime::Tensor> feeds;
  for (std::size_t i = 0; i < inputs; ++i) {
    const OrtValue* value = nullptr;
    check(api, api.ort->KernelContext_GetInput(context, i, &value), "KernelContext_GetInput");
    if (value) feeds[feeds_[i]] = reader.view(value);
  }
  std::map<std::string, runtime::Tensor> results = session_.run(feeds);
  for (std::size_t j = 0; j < outputs; ++j) {
    const runtime::Tensor& t = results.at(fetches_[j]);
    OrtValue* out = nullptr;
    const runtime::Shape& shape = t.shape();
    check(api, api.ort->KernelContext_GetOutput(context, j, shape.data(), shape.size(), &out),
          "KernelContext_GetOutput");
    std::size_t bytes = 0;
    check(api, api.ort->GetTensorSizeInBytes(out, &bytes), "GetTensorSizeInBytes");
    if (bytes != t.bytes())
      throw BuildError("output '" + fetches_[j] + "' is " + runtime::dtype_name(t.dtype()) + " (" +
                       std::to_string(t.bytes()) + " bytes), but ONNX Runtime holds " + std::to_string(bytes) +
                       " bytes for it");
    if (bytes == 0) continue;
    void* data = nullptr;
    check(api, api.ort->GetTensorMutableData(out, &data), "GetTensorMutableData");
    std::memcpy(data, t.raw(), t.bytes());
  }
}

}  // namespace winml::ort_ep
