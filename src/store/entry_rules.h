// What a cache entry must be to stand for a node's result: exactly the files
// the stage makes (its artifact first, then the sidecars the artifact names),
// each named once by a plain, short, final file name, in bounded number and
// size. One set of rules for the local cache and the server alike, checked
// before anything is downloaded or placed; whether the placed artifact names
// exactly the other files is asked of the NodeRunner after placing
// (graph/builder.cpp), since only the stages read models.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/build_state.h"

namespace winml::store {

// Sidecars are named after their artifact ("compiled.onnx.data",
// "model_ref.bin"); 128 bytes leaves room below NAME_MAX for every
// temporary name derived from an output's.
inline constexpr std::size_t kMaxOutputNameBytes = 128;
// A model compiled into many partitions has a blob file each.
inline constexpr std::size_t kMaxEntryOutputs = 1024;
// Far above any model; a claim beyond it is forged (and could overflow sums).
inline constexpr std::uint64_t kMaxEntryBytes = 1ull << 42;  // 4 TiB

// Why a cache entry was refused. `reason` is one of the phrases below, so a
// run can count refusals by kind; `detail` names the file or the value.
struct Rejection {
  std::string reason;
  std::string detail;
};

namespace rejection {
inline constexpr const char* kOutputRules = "outputs break the rules";
inline constexpr const char* kNotTheArtifact = "outputs are not the stage's artifact";
inline constexpr const char* kContent = "content does not match its digest";
inline constexpr const char* kMissingFile = "a file is missing";
inline constexpr const char* kUnreadable = "unreadable entry";
inline constexpr const char* kTooLarge = "entry too large";
inline constexpr const char* kNoSpace = "would not fit on the disk";
inline constexpr const char* kUnsigned = "unsigned";
inline constexpr const char* kBadSignature = "bad signature";
}  // namespace rejection

// Why `name` cannot be an output file name (empty when it can): empty,
// "." or "..", a path, a control character, a temporary's name, too long.
std::string output_name_problem(std::string_view name);

// Why `outputs` cannot be a node's outputs: a bad name, a name twice, more
// than kMaxEntryOutputs files or kMaxEntryBytes bytes, or (given `primary`)
// a first output other than the node's artifact.
std::optional<Rejection> outputs_problem(const std::vector<OutputFile>& outputs, std::string_view primary = {});

// Whether `names` (the files placed or written) are exactly
// `artifact_files` (the files the placed artifact names, itself included).
std::optional<Rejection> artifact_problem(const std::vector<std::string>& artifact_files,
                                          const std::vector<std::string>& names);

}  // namespace winml::store
