#include "support/decoder_models.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "support/ort_oracle.h"
#include "support/temp_dir.h"

namespace winml::test {

namespace fs = std::filesystem;

fs::path decoder_model(const std::string& name) {
  fs::path p = test_models_dir() / "decoder" / (name + ".onnx");
  if (!fs::exists(p)) ADD_FAILURE() << "missing decoder " << p << " (the fixture.decoder_models test makes it)";
  return p;
}

std::map<std::string, std::int64_t> decoder_dims(const DecoderDims& d) {
  return {{"batch_size", d.batch}, {"sequence_length", d.sequence}, {"past_sequence_length", d.past}};
}

std::map<std::string, model::TensorFile> decoder_feeds(bool with_cache, const DecoderDims& d, std::uint32_t seed) {
  std::map<std::string, model::TensorFile> feeds;
  model::TensorFile ids;
  ids.dtype = onnx::TensorProto::INT64;
  ids.shape = {d.batch, d.sequence};
  std::mt19937 rng(seed);
  std::vector<std::int64_t> values(static_cast<std::size_t>(d.batch * d.sequence));
  for (auto& v : values) v = static_cast<std::int64_t>(rng() % kDecoderVocab);
  ids.data.resize(values.size() * 8);
  std::memcpy(ids.data.data(), values.data(), ids.data.size());
  feeds.emplace("input_ids", ids);
  if (with_cache)
    for (std::int64_t i = 0; i < kDecoderLayers; ++i)
      for (const char* kind : {"key", "value"})
        feeds.emplace("past_key_values." + std::to_string(i) + "." + kind,
                      random_tensor({d.batch, kDecoderHeads, d.past, kDecoderHeadDim},
                                    seed * 100 + static_cast<std::uint32_t>(i * 2 + (kind[0] == 'v'))));
  return feeds;
}

}  // namespace winml::test
