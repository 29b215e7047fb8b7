#include "config/config.h"

namespace winml::config {

std::shared_ptr<const Section<BuildConfig>> build_schema() {
  static auto s = [] {
    auto s = std::make_shared<Section<BuildConfig>>("build", "How the project is built.");
    s->key("auto", &BuildConfig::auto_discover, ValueType::kBool,
           "Let analysis discover the optimization flags the target EP benefits from and re-optimize until "
           "nothing new is found; the discovered flags are recorded in winml_build_config.json (saved with "
           "auto = false).");
    s->key("rebuild", &BuildConfig::rebuild, ValueType::kBool,
           "Delete every stage artifact (with its sidecars) and build from scratch, like --rebuild.");
    s->key("output_dir", &BuildConfig::output_dir, ValueType::kString,
           "Directory (relative to the project) that receives one folder of artifacts per model.")
        .alternative = "out";
    auto& it = s->key("max_auto_iterations", &BuildConfig::max_auto_iterations, ValueType::kInt,
                      "Upper bound on analyze/re-optimize rounds when auto = true.");
    it.min = 1, it.max = 20;
    auto& th = s->key("external_data_threshold_mib", &BuildConfig::external_data_threshold_mib, ValueType::kInt,
                      "Models whose serialized size reaches this many MiB keep their weights in "
                      "<name>.onnx.data next to the model.");
    th.min = 1, th.max = 2047;
    auto& j = s->key("jobs", &BuildConfig::jobs, ValueType::kInt,
                     "Models built in parallel; 0 means one per CPU core (like -j).");
    j.min = 0, j.max = 1024;
    s->key("keep_going", &BuildConfig::keep_going, ValueType::kBool,
           "Keep building other models after one fails (like -k).");
    s->key("cache", &BuildConfig::cache, ValueType::kBool,
           "Use the content-addressed cache (--cache-dir); false is like --no-cache.");
    s->key("remote_cache", &BuildConfig::remote_cache, ValueType::kString,
           "URL of a shared cache speaking Bazel's HTTP cache protocol (bazel-remote, nginx with WebDAV); "
           "--remote-cache and WINML_MAKE_REMOTE_CACHE take precedence. See docs/ci-cache.md.")
        .alternative = "http://127.0.0.1:9/unreachable";
    // How long the shared cache may take, never what a stage makes: read by
    // the CLI alone, in no stage's declarations, so in no key.
    auto& tt = s->key("remote_cache_transfer_timeout", &BuildConfig::remote_cache_transfer_timeout, ValueType::kInt,
                      "Seconds one transfer with the shared cache may take in all, however fast it moves (a server "
                      "that trickles data just fast enough never stalls); 0 means no limit. "
                      "WINML_MAKE_REMOTE_CACHE_TRANSFER_TIMEOUT takes precedence. See docs/ci-cache.md.");
    tt.min = 0, tt.max = 86400;
    return s;
  }();
  return s;
}

}  // namespace winml::config
