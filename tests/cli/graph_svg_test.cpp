// winml-make graph: DOT by default; --svg draws it through Graphviz's dot
// when it is on PATH, and otherwise says which package to install, printing
// nothing on stdout (no empty graph.svg from a redirect).
#include <gtest/gtest.h>

#include "support/project.h"

using namespace winml;
using test::Project;

TEST(GraphSvg, DotByDefaultSvgThroughGraphvizAndAClearErrorWithoutIt) {
  Project p;
  p.write_small_project();
  auto dot = p.run({"graph"});
  ASSERT_EQ(dot.exit_code, 0) << dot.err;
  EXPECT_EQ(dot.out.rfind("digraph winml_make {", 0), 0u) << dot.out;
  EXPECT_NE(dot.out.find("would run"), std::string::npos) << dot.out;  // the status words of a dry run

  auto svg = p.run({"graph", "--svg"});
  ASSERT_EQ(svg.exit_code, 0) << svg.err;  // graphviz: scripts/install-deps.sh
  EXPECT_NE(svg.out.find("<svg"), std::string::npos) << svg.out.substr(0, 300);
  EXPECT_NE(svg.out.find("net/export"), std::string::npos);
  EXPECT_NE(svg.out.find("</svg>"), std::string::npos);

  // No dot on PATH.
  test::TempDir empty;
  auto missing = p.run({"graph", "--svg"}, {{"PATH", empty.path().string()}});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_EQ(missing.out, "");
  EXPECT_NE(missing.err.find("graphviz"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("dot"), std::string::npos) << missing.err;
}
