#include "compile/staging.h"

#include "base/atomic_file.h"
#include "base/this_process.h"
#include "model/sidecars.h"

namespace winml::compile {

namespace fs = std::filesystem;

void write_model_staged(const fs::path& out, const std::function<void(const fs::path&)>& write) {
  const fs::path dir = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  const bool dir_existed = fs::exists(dir);
  fs::create_directories(dir);
  const fs::path stage = dir / (".stage" + std::string(kTempMarker) + std::to_string(current_process_id()));
  fs::remove_all(stage);
  fs::create_directories(stage);
  struct Cleanup {
    fs::path stage, dir;
    bool dir_existed;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(stage, ec);
      if (!dir_existed) fs::remove(dir, ec);  // only if empty: a failure leaves no trace
    }
  } cleanup{stage, dir, dir_existed};
  const fs::path staged = stage / out.filename();
  write(staged);
  model::remove_model(out);
  model::move_model(staged, out);
}

}  // namespace winml::compile
