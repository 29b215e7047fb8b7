// The decoder language models tests build (tests/fixtures/decoder_model.py
// --test-set, run by the fixture.decoder_models test): 2 layers of hidden
// 256, vocabulary 1024, random weights in external data.
//   decoder_kv    with past_key_values.<i>.key/value inputs and present.* outputs
//   decoder_tied  no KV cache; the LM head reads the embedding, transposed
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "model/tensor_file.h"

namespace winml::test {

// The fixture's model (fails the test when it is missing).
std::filesystem::path decoder_model(const std::string& name);

struct DecoderDims {
  std::int64_t batch = 1, sequence = 4, past = 3;
};
inline constexpr std::int64_t kDecoderVocab = 1024;
inline constexpr std::int64_t kDecoderLayers = 2, kDecoderHeads = 4, kDecoderHeadDim = 64;

// [model] dims for those sizes: batch_size, sequence_length, past_sequence_length.
std::map<std::string, std::int64_t> decoder_dims(const DecoderDims& d = {});

// Feeds for a decoder: token ids below the vocabulary, and (with_cache)
// past keys and values in [-1, 1), from `seed`.
std::map<std::string, model::TensorFile> decoder_feeds(bool with_cache, const DecoderDims& d = {},
                                                       std::uint32_t seed = 1);

}  // namespace winml::test
