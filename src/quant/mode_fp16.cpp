// [quantize] mode = "fp16": float16 conversion, nothing to calibrate.
#include "quant/fp16_convert.h"
#include "quant/graph_edit.h"
#include "quant/quantize_mode.h"

namespace winml::quant {

ReferenceOutputs quantize_fp16(const ModeCall& call) {
  const config::QuantizeConfig& c = call.config;
  Fp16Options o;
  o.keep_io_types = c.keep_io_types;
  o.op_block_list.insert(c.op_block_list.begin(), c.op_block_list.end());
  o.ep = call.context.ep;
  nlohmann::json& report = call.report;
  report["folded_identities"] = fold_constant_identities(*call.out.proto.mutable_graph());
  Fp16Result f = convert_to_fp16(call.out, o);
  report["nodes_quantized"] = f.fp16_nodes;
  report["nodes_skipped"] = f.float_nodes;
  report["skipped_op_types"] = f.float_op_types;
  report["casts_inserted"] = f.casts;
  report["constants_converted"] = f.converted_constants;
  report["calibration_time_seconds"] = 0.0;
  report["calibration_setup_seconds"] = 0.0;
  return {};
}

}  // namespace winml::quant
