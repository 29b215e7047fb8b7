#include "pipeline/stage_request.h"

#include "pipeline/plan_contexts.h"
#include "store/record_io.h"

namespace winml::pipeline {

namespace {

constexpr const char* kRequestMagic = "winml-make-stage-request";

std::vector<std::string> texts(const std::vector<fs::path>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(p.native());
  return out;
}

std::vector<fs::path> paths(const std::vector<std::string>& texts) { return {texts.begin(), texts.end()}; }

}  // namespace

std::string encode_stage_request(const StageRequest& r) {
  std::string out;
  store::RecordWriter w;
  w.field(kRequestMagic).field(r.kind).field(r.source_dir.native()).field(r.config_file.native());
  w.field(r.project_dir.native()).field(r.input.native());
  store::write_list(w, texts(r.input_files));
  w.field(r.output.native());
  store::write_list(w, texts(r.files));
  w.field(r.log_file.native());
  write_declared(w, r.declared);
  w.finish(out);
  return out;
}

std::optional<StageRequest> decode_stage_request(std::string_view text) {
  store::RecordReader reader(text);
  std::vector<std::string_view> f;
  if (!reader.next(f) || f.size() < 6 || f[0] != kRequestMagic) return std::nullopt;
  StageRequest r;
  r.kind = store::field_text(f[1]);
  r.source_dir = store::field_text(f[2]);
  r.config_file = store::field_text(f[3]);
  r.project_dir = store::field_text(f[4]);
  r.input = store::field_text(f[5]);
  std::size_t i = 6;
  std::vector<std::string> input_files, files;
  if (!store::read_list(f, i, input_files) || i >= f.size()) return std::nullopt;
  r.output = store::field_text(f[i++]);
  if (!store::read_list(f, i, files) || i >= f.size()) return std::nullopt;
  r.log_file = store::field_text(f[i++]);
  if (!read_declared(f, i, r.declared) || i != f.size()) return std::nullopt;
  if (reader.next(f) || reader.corrupt()) return std::nullopt;
  r.input_files = paths(input_files);
  r.files = paths(files);
  return r;
}

}  // namespace winml::pipeline
