// The parsers of what the tool reads back from its own folders and from a
// shared cache server: the build state (its binary snapshot image, an
// earlier version's text snapshot, and the journal), the
// ingredient log, local cache entries and remote action entries (with a
// signature line or not), and the output rules applied to what parses. The first
// input byte picks the parser; for the checksummed line formats every line
// gets a valid checksum, and the image its header (magic, version, size,
// checksum), so that mutations reach the parsers behind them.
#include <xxhash.h>

#include <cstdio>
#include <cstring>

#include "fuzz_support.h"
#include "remote/action_message.h"
#include "store/build_state.h"
#include "store/cache.h"
#include "store/ingredient_log.h"

namespace {

std::string with_checksums(std::string_view text) {
  std::string out;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view payload = text.substr(start, end - start);
    char sum[17];
    std::snprintf(sum, sizeof sum, "%016llx",
                  static_cast<unsigned long long>(XXH3_64bits(payload.data(), payload.size())));
    out.append(sum, 16).append(" ").append(payload).append("\n");
    start = end + 1;
  }
  return out;
}

// The fuzzed bytes follow the image header's fixed fields (state_image.cpp).
std::string as_image(std::string_view body) {
  std::string out("WMSTATE", 8);
  const std::uint32_t version = 2, zero = 0;
  out.append(reinterpret_cast<const char*>(&version), 4).append(reinterpret_cast<const char*>(&zero), 4);
  out.append(16, '\0');  // checksum and size, set below
  out.append(body);
  if (out.size() < 40) out.resize(40, '\0');
  const std::uint64_t size = out.size();
  std::memcpy(out.data() + 24, &size, 8);
  const std::uint64_t sum = XXH3_64bits(out.data() + 24, out.size() - 24);
  std::memcpy(out.data() + 16, &sum, 8);
  return out;
}

void load_state(const std::filesystem::path& dir) {
  winml::fuzz::expecting_only_our_errors([&] {
    winml::store::BuildState state(winml::store::real_disk(), dir, dir);
    state.load();
    for (const auto& id : state.node_ids()) state.find(id);
    state.stat_cache().entries();
    state.model_sidecars(winml::store::Digest{1, 2});
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace winml;
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto dir = fuzz::scratch();
  const store::Digest key{1, 2};
  switch (data[0] % 6) {
    case 0:
    case 1: {  // an earlier version's text snapshot, or a journal after an empty snapshot
      std::filesystem::remove(dir / "state");
      std::filesystem::remove(dir / "journal");
      fuzz::write(dir / (data[0] % 6 == 0 ? "state" : "journal"), with_checksums(text));
      load_state(dir);
      break;
    }
    case 5:  // the snapshot image
      std::filesystem::remove(dir / "journal");
      fuzz::write(dir / "state", as_image(text));
      load_state(dir);
      break;
    case 2: {
      fuzz::write(dir / "ingredients", with_checksums(text));
      fuzz::expecting_only_our_errors([&] {
        store::IngredientLog log(store::real_disk(), dir / "ingredients");
        log.find(key);
        log.find_static(key);
      });
      break;
    }
    case 3:  // a local entry, then the output rules every entry must pass
      fuzz::expecting_only_our_errors([&] {
        if (auto e = store::parse_entry(with_checksums(text))) store::outputs_problem(e->outputs, "export.onnx");
      });
      break;
    case 4:  // a server's entry (its signature line split off), then the output rules
      fuzz::expecting_only_our_errors([&] {
        if (auto e = remote::decode_action(std::string(text), key)) store::outputs_problem(e->entry.outputs);
      });
      break;
  }
  return 0;
}
