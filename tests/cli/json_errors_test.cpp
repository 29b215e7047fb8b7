// --json always prints a report on stdout: a command that fails before any
// stage (a config error, an unknown model, a usage error, a model command's
// bad input) prints the documented error object (docs/cli.md, "The --json report"),
// with the exit code it exits with and the message it prints on stderr.
#include <gtest/gtest.h>

#include "support/project.h"

using namespace winml;
using test::Project;

namespace {

void expect_error_report(const test::CliResult& r, int exit_code, const std::string& kind, const std::string& words) {
  EXPECT_EQ(r.exit_code, exit_code) << r.err;
  const auto report = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << "stdout is not JSON: '" << r.out << "'\nstderr: " << r.err;
  EXPECT_EQ(report["schema_version"], 3);
  EXPECT_EQ(report["status"], "error");
  EXPECT_EQ(report["exit_code"], exit_code);
  EXPECT_EQ(report["error"]["kind"], kind);
  const std::string message = report["error"]["message"];
  EXPECT_NE(message.find(words), std::string::npos) << message;
  EXPECT_NE(r.err.find(message.substr(0, message.find('\n'))), std::string::npos) << r.err;
}

}  // namespace

TEST(JsonErrors, EveryFailureBeforeAStagePrintsTheErrorObject) {
  Project p;
  p.write_small_project("[quantize]\nper_chanel = true\n");
  // A config error: the file and line, on stdout as a report.
  expect_error_report(p.run({"--json"}), 2, "input", "winml.toml:4:1");
  expect_error_report(p.run({"status", "--json"}), 2, "input", "per_chanel");
  p.write_small_project();
  // An unknown model, a usage error.
  expect_error_report(p.run({"--json", "nosuchmodel"}), 2, "input", "nosuchmodel");
  expect_error_report(p.run({"--json", "--bogus"}), 2, "usage", "--bogus");
  // A model command.
  expect_error_report(p.run({"inspect", "-m", "missing.onnx", "--json"}), 2, "input", "missing.onnx");
}

TEST(JsonErrors, AStageFailureIsTheRunReportNotTheErrorObject) {
  Project p;
  p.write_small_project();
  p.write("net.onnx", "not a model");
  auto r = p.run({"--json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["status"], "failed");
  EXPECT_EQ(test::statuses(report)["net/export"], "failed");
}
