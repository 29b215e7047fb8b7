// Packed-weight panels carved from shared blocks: each is 64-byte aligned,
// none overlaps another, and each stays valid while it is held, after the
// arena (and the plan build that owned it) are gone. Runs under the
// sanitizers, which catch an overlap written twice or a block freed early.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/panel_arena.h"

using winml::runtime::PanelArena;

namespace {

struct Span {
  std::uintptr_t begin, end;
};

}  // namespace

TEST(PanelArena, PanelsAreAlignedDisjointAndOutliveTheArena) {
  std::vector<std::shared_ptr<float>> panels;
  std::vector<std::size_t> sizes;
  {
    PanelArena arena;
    // Small panels fill blocks; the 9 MiB and 20 MiB ones get blocks of their own.
    for (std::size_t bytes : {std::size_t{4}, std::size_t{1000}, std::size_t{64} << 10, std::size_t{9} << 20,
                              std::size_t{3} << 20, std::size_t{20} << 20, std::size_t{5} << 20, std::size_t{7} << 20,
                              std::size_t{6} << 20, std::size_t{100}}) {
      panels.push_back(arena.allocate(bytes));
      sizes.push_back(bytes);
    }
  }
  std::vector<Span> spans;
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const auto at = reinterpret_cast<std::uintptr_t>(panels[i].get());
    EXPECT_EQ(at % 64, 0u) << "panel " << i;
    spans.push_back({at, at + sizes[i]});
    // Every byte is writable; each panel gets its own pattern, checked below.
    std::fill_n(reinterpret_cast<unsigned char*>(panels[i].get()), sizes[i], static_cast<unsigned char>(i + 1));
  }
  for (std::size_t i = 0; i < spans.size(); ++i)
    for (std::size_t j = i + 1; j < spans.size(); ++j)
      EXPECT_TRUE(spans[i].end <= spans[j].begin || spans[j].end <= spans[i].begin) << i << " overlaps " << j;
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(panels[i].get());
    EXPECT_TRUE(std::all_of(bytes, bytes + sizes[i], [&](unsigned char b) { return b == i + 1; })) << "panel " << i;
  }
  // Dropping panels in any order frees each block once (the sanitizers check).
  panels.erase(panels.begin() + 3);
  panels.clear();
}
