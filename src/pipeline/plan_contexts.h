// What running a stage and writing a model's reports need from the
// configuration, worked out once with the plan (make_plan) and stored beside
// it in <output_dir>/.winml-make/contexts: per node the context its stage
// declared, per model its resolved settings (what winml_build_config.json
// holds and the manifest describes). A build reads the file only when a
// stage runs or a report is written, never on a no-op, and winml.toml is not
// parsed again for it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/declarations.h"
#include "store/digest.h"
#include "store/record_io.h"

namespace winml::pipeline {

struct PlanContexts {
  store::Digest memo_key;               // the plan's: a file beside another plan is not used
  std::vector<DeclaredContext> nodes;   // per graph node; empty for a disabled one
  std::vector<std::string> model_settings;  // per graph model: config::canonical_json_text

  bool empty() const { return nodes.empty() && model_settings.empty(); }
};

std::string serialize_contexts(const PlanContexts& contexts);
// Nothing when the text is torn or corrupt.
std::optional<PlanContexts> parse_contexts(std::string_view text);

// One node's context as fields of a record (the contexts file's, a stage
// worker's request): written after the caller's own fields; read from f[i],
// leaving i after it. False when the fields are not a context.
void write_declared(store::RecordWriter& w, const DeclaredContext& c);
bool read_declared(const std::vector<std::string_view>& f, std::size_t& i, DeclaredContext& c);

}  // namespace winml::pipeline
