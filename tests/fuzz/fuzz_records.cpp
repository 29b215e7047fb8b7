// The parsers of what the tool reads back from its own folders and from a
// shared cache server: the build state (snapshot and journal), the
// ingredient log, local cache entries and remote action entries (with a
// signature line or not), and the output rules applied to what parses. The first
// input byte picks the parser; for the checksummed line formats every line
// gets a valid checksum, so that mutations reach the field parsers.
#include <xxhash.h>

#include <cstdio>

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace winml;
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto dir = fuzz::scratch();
  const store::Digest key{1, 2};
  switch (data[0] % 5) {
    case 0:
    case 1: {  // the state snapshot, or a journal after an empty snapshot
      std::filesystem::remove(dir / "state");
      std::filesystem::remove(dir / "journal");
      fuzz::write(dir / (data[0] % 5 == 0 ? "state" : "journal"), with_checksums(text));
      fuzz::expecting_only_our_errors([&] {
        store::BuildState state(store::real_disk(), dir, dir);
        state.load();
        for (const auto& id : state.node_ids()) state.find(id);
      });
      break;
    }
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
