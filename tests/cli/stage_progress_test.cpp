#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include "base/native_file.h"
#include "cli/build_report.h"
#include "cli/stage_progress.h"
#include "support/temp_dir.h"

using namespace winml;
using namespace std::chrono_literals;
using cli::ProgressClock;

TEST(StageProgress, ShowsHowFarARateAndTheTimeLeft) {
  const auto t0 = ProgressClock::now();
  cli::StageProgress p("vit", "quantize", t0);
  EXPECT_EQ(p.text(), "");  // no record yet
  p.observe(progress::Snapshot{"calibration", 2, 24, "samples"}, t0 + 1s);
  EXPECT_EQ(p.text(), "calibration 2/24 samples");  // a rate needs some work behind it
  p.observe(progress::Snapshot{"calibration", 6, 24, "samples"}, t0 + 3s);
  EXPECT_EQ(p.text(), "calibration 6/24 samples, 2.0/s, about 9 s left");
  const auto e = p.event(t0 + 3s);
  EXPECT_EQ(e["event"], "progress");
  EXPECT_EQ(e["model"], "vit");
  EXPECT_EQ(e["stage"], "quantize");
  EXPECT_EQ(e["done"], 6);
  EXPECT_EQ(e["total"], 24);
  EXPECT_EQ(e["per_second"], 2.0);
  EXPECT_EQ(e["seconds_left"], 9.0);
  EXPECT_EQ(e["elapsed_seconds"], 3.0);
  // A new step starts its own rate.
  p.observe(progress::Snapshot{"accuracy", 1, 24, "samples"}, t0 + 4s);
  EXPECT_EQ(p.text(), "accuracy 1/24 samples");
  EXPECT_FALSE(p.event(t0 + 4s).contains("per_second"));
  // Minutes when it is long.
  p.observe(progress::Snapshot{"accuracy", 2, 1000, "samples"}, t0 + 6s);
  EXPECT_EQ(p.text(), "accuracy 2/1000 samples, 0.5/s, about 33 min left");
}

TEST(StageProgress, ALineIsDueWhenTheRecordChangedAndTheLastIsOldEnoughOrAnywayAfterTheLongestGap) {
  const auto t0 = ProgressClock::now();
  cli::StageProgress p("m", "export", t0);
  EXPECT_FALSE(p.due(t0 + 29s, 1s, 30s));  // nothing to say yet
  EXPECT_TRUE(p.due(t0 + 30s, 1s, 30s));   // but a log never looks hung
  p.reported(t0 + 30s);
  p.observe(progress::Snapshot{"compile", 1, 4, "partitions"}, t0 + 30500ms);
  EXPECT_FALSE(p.due(t0 + 30500ms, 1s, 30s));  // at most one a second
  EXPECT_TRUE(p.due(t0 + 31s, 1s, 30s));
  p.reported(t0 + 31s);
  p.observe(progress::Snapshot{"compile", 1, 4, "partitions"}, t0 + 33s);  // the same record
  EXPECT_FALSE(p.due(t0 + 33s, 1s, 30s));
}

namespace {

graph::Graph one_stage() {
  graph::Graph g;
  g.models = {"vit"};
  graph::Node n;
  n.model = "vit";
  n.name = "quantize";
  n.kind = "quantize";
  g.nodes.push_back(n);
  return g;
}

void write_record(const std::filesystem::path& file, const progress::Snapshot& s) {
  const std::string record = progress::encode(s, 1);
  const int fd = native::create(file, native::Create::kReplace);
  ASSERT_GE(fd, 0);
  native::write_all_at(fd, record.data(), record.size(), 0);
  native::close(fd);
}

// What a reporter printed while one stage ran for `run_for`, its record written.
std::string printed_while_running(bool json, std::chrono::milliseconds run_for) {
  test::TempDir dir;
  const graph::Graph g = one_stage();
  std::ostringstream out;
  {
    cli::BuildReporter r(out, /*tty=*/false, /*color=*/false, false, false, g, 1, json, /*log_every=*/300ms);
    r.node_started(g.nodes[0], "no earlier build");
    write_record(dir / "p", {"calibration", 5, 8, "samples"});
    r.node_running(g.nodes[0], dir / "p");
    std::this_thread::sleep_for(run_for);
    r.stop();
  }
  return out.str();
}

}  // namespace

TEST(BuildReporter, OffATerminalARunningStageIsMentionedWithItsProgressEveryLogInterval) {
  const std::string out = printed_while_running(false, 800ms);
  EXPECT_NE(out.find("  running    vit/quantize: no earlier build"), std::string::npos) << out;
  EXPECT_NE(out.find("  progress   vit/quantize ("), std::string::npos) << out;
  EXPECT_NE(out.find("): calibration 5/8 samples"), std::string::npos) << out;
  EXPECT_EQ(out.find("{"), std::string::npos) << out;  // no JSON without --json
}

TEST(BuildReporter, WithJsonARunningStagesProgressIsAJsonEventALine) {
  const std::string out = printed_while_running(true, 800ms);
  const auto at = out.find("{\"");
  ASSERT_NE(at, std::string::npos) << out;
  const auto event = nlohmann::json::parse(out.substr(at, out.find('\n', at) - at));
  EXPECT_EQ(event["event"], "progress");
  EXPECT_EQ(event["model"], "vit");
  EXPECT_EQ(event["stage"], "quantize");
  EXPECT_EQ(event["what"], "calibration");
  EXPECT_EQ(event["done"], 5);
  EXPECT_EQ(event["total"], 8);
}
