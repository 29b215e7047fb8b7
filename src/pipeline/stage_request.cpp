#include "pipeline/stage_request.h"

#include "base/path_text.h"
#include "pipeline/plan_contexts.h"
#include "store/record_io.h"

namespace winml::pipeline {

namespace {

constexpr const char* kRequestMagic = "winml-make-stage-request";

std::vector<std::string> texts(const std::vector<fs::path>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(to_utf8(p));
  return out;
}

std::vector<fs::path> paths(const std::vector<std::string>& texts) {
  std::vector<fs::path> out;
  for (const auto& t : texts) out.push_back(from_utf8(t));
  return out;
}

}  // namespace

std::string encode_stage_request(const StageRequest& r) {
  std::string out;
  store::RecordWriter w;
  w.field(kRequestMagic).field(r.kind).field(to_utf8(r.source_dir)).field(to_utf8(r.config_file));
  w.field(to_utf8(r.project_dir)).field(to_utf8(r.input));
  store::write_list(w, texts(r.input_files));
  w.field(to_utf8(r.output));
  store::write_list(w, texts(r.files));
  w.field(to_utf8(r.log_file)).field(to_utf8(r.progress_file));
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
  r.source_dir = from_utf8(store::field_text(f[2]));
  r.config_file = from_utf8(store::field_text(f[3]));
  r.project_dir = from_utf8(store::field_text(f[4]));
  r.input = from_utf8(store::field_text(f[5]));
  std::size_t i = 6;
  std::vector<std::string> input_files, files;
  if (!store::read_list(f, i, input_files) || i >= f.size()) return std::nullopt;
  r.output = from_utf8(store::field_text(f[i++]));
  if (!store::read_list(f, i, files) || i >= f.size()) return std::nullopt;
  r.log_file = from_utf8(store::field_text(f[i++]));
  if (i >= f.size()) return std::nullopt;
  r.progress_file = from_utf8(store::field_text(f[i++]));
  if (!read_declared(f, i, r.declared) || i != f.size()) return std::nullopt;
  if (reader.next(f) || reader.corrupt()) return std::nullopt;
  r.input_files = paths(input_files);
  r.files = paths(files);
  return r;
}

}  // namespace winml::pipeline
