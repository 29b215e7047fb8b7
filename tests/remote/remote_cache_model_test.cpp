// A real model with external data through the shared cache: ViT-B/16
// (~330 MB of weights in a .onnx.data sidecar) uploaded to nginx by one
// clone and restored by another, in memory far below the model's size.
#include <gtest/gtest.h>

#include <iostream>

#include "support/project.h"
#include "store/digest.h"
#include "support/nginx_server.h"

using namespace winml;
using test::NginxServer;
using test::Project;
namespace fs = std::filesystem;

namespace {

void add_vit(Project& p) {
  p.link_exported_model("vit_b_16_op17.onnx");
  // float16 keeps every stage's artifact above the external-data threshold.
  p.write_config(
      "[model]\nname = \"vit\"\nsource = \"vit_b_16_op17.onnx\"\n[quantize]\nmode = \"fp16\"\nsamples = 1\n");
}

}  // namespace

TEST(RemoteCacheModels, ViTRoundTripsThroughTheServerInMemoryFarBelowTheModelSize) {
  ASSERT_TRUE(NginxServer::available());
  test::exported_model("vit_b_16_op17");
  NginxServer server;
  const std::map<std::string, std::string> env = {{"WINML_MAKE_REMOTE_CACHE", server.url()}};
  Project a, b;
  add_vit(a);
  auto first = a.build({}, 0, env);
  ASSERT_EQ(test::stages_with(first, "vit", "completed").size(), 6u) << first.dump();
  EXPECT_EQ(first["remote_cache"]["uploads"], 6) << first.dump();

  // The kernel's account of the restoring process alone (RUSAGE_CHILDREN of
  // a wrapper that runs nothing else).
  add_vit(b);
  std::map<std::string, std::string> benv = env;
  benv["WINML_MAKE_CACHE_DIR"] = b.cache_dir().string();
  auto r = test::run_program({"/usr/bin/python3", "-c",
                              "import resource, subprocess, sys\n"
                              "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
                              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
                              "sys.exit(code)\n",
                              WINML_MAKE_BIN},
                             b.root(), benv);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const long peak_kib = std::stol(r.out);
  std::uint64_t restored_bytes = 0;
  for (const auto& e : fs::directory_iterator(b.out("vit"))) restored_bytes += e.is_regular_file() ? e.file_size() : 0;
  std::cout << "restored " << restored_bytes << " bytes from the server with a peak RSS of " << peak_kib << " KiB\n";
  EXPECT_GT(restored_bytes, 1000u << 20) << "the restore should move every stage's 330 MB";
  EXPECT_LT(peak_kib, 160 * 1024) << "peak RSS " << peak_kib << " KiB while restoring " << restored_bytes << " bytes";
  EXPECT_EQ(test::artifact_digests(a.out("vit")), test::artifact_digests(b.out("vit")));
  auto again = b.build({}, 0, env);
  EXPECT_EQ(test::stages_with(again, "vit", "up-to-date").size(), 6u) << again.dump();
}
