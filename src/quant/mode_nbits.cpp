// [quantize] mode = "matmulnbits": weight-only MatMulNBits, nothing to calibrate.
#include "quant/nbits_quant.h"
#include "quant/quantize_mode.h"

namespace winml::quant {

namespace {

NBitsOptions nbits_options(const config::QuantizeConfig& c) {
  NBitsOptions o;
  o.bits = c.bits;
  o.block_size = c.block_size;
  o.symmetric = *c.weight_symmetric;  // resolved (config schema)
  o.accuracy_level = c.accuracy_level;
  o.nodes_to_exclude.insert(c.nodes_to_exclude.begin(), c.nodes_to_exclude.end());
  return o;
}

}  // namespace

ReferenceOutputs quantize_nbits(const ModeCall& call) {
  const NBitsOptions o = nbits_options(call.config);
  say(call.context, "weight-only " + std::to_string(o.bits) + "-bit MatMulNBits, blocks of " +
                        std::to_string(o.block_size) + (o.symmetric ? ", symmetric" : ", asymmetric"));
  const NBitsResult q = quantize_to_nbits(call.out, o);
  nlohmann::json& report = call.report;
  report["nodes_quantized"] = q.quantized;
  report["nodes_skipped"] = q.skipped;
  report["skipped_nodes"] = q.skip_reasons;
  report["bits"] = o.bits;
  report["block_size"] = o.block_size;
  report["weight_symmetric"] = o.symmetric;
  report["accuracy_level"] = o.accuracy_level;
  report["biases_folded"] = q.biases;
  report["tied_embeddings"] = q.tied;
  if (!q.tied.empty())
    say(call.context, "LM head tied to the embedding (" + q.tied.front() +
                          "): quantized for the head, the Gather keeps the float table");
  report["calibration_time_seconds"] = 0.0;
  report["calibration_setup_seconds"] = 0.0;
  return {};
}

}  // namespace winml::quant
