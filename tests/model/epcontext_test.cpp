#include <gtest/gtest.h>

#include "base/error.h"
#include "model/epcontext.h"
#include "model/model_io.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
using namespace winml::model;

TEST(EpContext, DetectsEmbeddedAndSidecarBlobs) {
  test::TempDir dir;
  test::write_text(dir / "m_qnn.bin", std::string(1234, 'b'));
  test::write_text(dir / "ext.onnx",
                   serialize_deterministic(test::epcontext_model("QNNExecutionProvider", 0, "m_qnn.bin")));
  test::write_text(dir / "emb.onnx", serialize_deterministic(test::epcontext_model("ref", 1, std::string(77, 'z'))));

  Model ext = load_model(dir / "ext.onnx");
  ASSERT_TRUE(is_epcontext_model(ext.proto));
  auto nodes = find_ep_contexts(ext.proto, ext.dir());
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].source, "QNNExecutionProvider");
  EXPECT_EQ(nodes[0].embed_mode, 0);
  EXPECT_EQ(nodes[0].blob_file, "m_qnn.bin");
  EXPECT_EQ(nodes[0].blob_size, 1234u);
  EXPECT_EQ(nodes[0].partition_name, "partition_0");

  Model emb = load_model(dir / "emb.onnx");
  auto en = find_ep_contexts(emb.proto);
  EXPECT_EQ(en[0].embed_mode, 1);
  EXPECT_EQ(en[0].blob_size, 77u);
  EXPECT_FALSE(is_epcontext_model(test::linear_model(2, 2)));
}

TEST(EpContext, RefusalMessageNamesTheSource) {
  auto m = test::epcontext_model("QNNExecutionProvider", 1, "blob");
  try {
    refuse_epcontext_input(m, "in.onnx",
                           " and cannot be re-optimized. Run optimize on the original ONNX model before compilation.");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(
        e.what(),
        "in.onnx: Input model is a compiled EPContext artifact (EPContext nodes from QNNExecutionProvider) and "
        "cannot be re-optimized. Run optimize on the original ONNX model before compilation.");
  }
}

TEST(EpContext, UnsafeOrMissingBlobReferencesAreRefused) {
  test::TempDir dir;
  for (std::string bad : {"../x.bin", "/etc/passwd", "missing.bin"}) {
    test::write_text(dir / "m.onnx", serialize_deterministic(test::epcontext_model("ref", 0, bad)));
    try {
      load_model(dir / "m.onnx");
      FAIL() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("m.onnx"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}
