// How far a long piece of work is, from the process doing it to the one that
// shows it. A stage worker reports into the file its build names (the
// stage's progress file, graph::RunRequest::progress_file): calibration
// samples run, partitions compiled. The build's status line, its lines in a
// CI log and its --json events read that file (cli/build_report.h).
//
// The file holds one fixed-size record, rewritten in place (never renamed:
// on Windows a file the reader has open cannot be replaced), with its
// sequence number at both ends so that a reader never takes a record caught
// half-written for a whole one. Progress is advisory: nothing here throws,
// and a record that cannot be written is skipped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace winml::progress {

struct Snapshot {
  std::string what;  // "calibration"
  std::uint64_t done = 0, total = 0;
  std::string unit;  // "samples"
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

// Where this process reports from now on (a stage worker, before its stage
// runs); an empty path reports nowhere, as a process that never called this.
void report_to(const std::filesystem::path& file);

// `done` of `total` `unit` of `what`. Cheap enough for every sample: the
// record is written at most every 100 ms, and always when the work is done.
void report(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view unit);

// The record as written, and back (nothing unless it is one whole record).
std::string encode(const Snapshot& s, std::uint64_t sequence);
std::optional<Snapshot> decode(std::string_view record);

// The latest whole record in `file`, or nothing (no record yet, or one being written).
std::optional<Snapshot> read(const std::filesystem::path& file);

}  // namespace winml::progress
