// Operator support of an execution provider, read from rules/ep/<name>.toml.
// Support is data: adding an EP is adding a file. A table lists, per domain,
// the operators the EP runs, the ones it does not, and `[[partial]]` rules
// for operators it runs only under constraints (element types, rank,
// attribute values, constant inputs, opset range, static shapes).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace winml::ep {

// "ai.onnx" for the default domain ("" in a NodeProto), other domains as is.
std::string canonical_domain(const std::string& domain);

// One constraint of a partially supported operator. Every field that is set
// must hold for a node to run on the EP.
struct OpConstraint {
  std::string domain = "ai.onnx";
  std::string op;
  std::vector<std::string> dtypes;               // allowed element types ("float32", ...) of the checked inputs
  std::vector<int> dtype_inputs;                 // inputs whose element type is checked (default: input 0)
  std::optional<int> max_rank;                   // of every input and output with a known rank
  std::vector<int> constant_inputs;              // inputs that must be constant (initializers)
  std::vector<int> nonnegative_inputs;           // inputs that must not hold negative values (checked when constant)
  std::vector<std::string> devices;              // devices the op runs on ("cpu", "gpu", "npu"); empty: all
  std::string attribute;                         // attribute whose value is restricted...
  std::vector<std::string> values;               // ...to one of these (ints written as text)
  std::optional<std::string> attribute_default;  // the value when the attribute is absent
  std::optional<std::int64_t> min_opset, max_opset;  // opset of the op's domain
  bool static_shapes = false;                        // all input shapes fixed
  std::string note;                                  // what the EP requires, in words
};

enum class Support { kSupported, kPartial, kUnsupported, kUnknown };

struct EpTable {
  std::string name;     // file stem: "qnn"
  std::string ep_type;  // "QNNExecutionProvider"
  std::string ihv_type;
  std::string default_device;
  bool aot_compile = false;
  bool static_input_shapes = false;                          // the EP needs every model input dimension fixed
  std::vector<std::string> requirements;                     // model-level conditions, reported as information
  std::map<std::string, std::set<std::string>> supported;    // domain -> ops
  std::map<std::string, std::set<std::string>> unsupported;  // domain -> ops
  std::vector<OpConstraint> partial;

  // Table-level status of an op (before looking at any node): kPartial when
  // it has constraints.
  Support status(const std::string& domain, const std::string& op) const;
  // Supported or partially supported.
  bool runs(const std::string& domain, const std::string& op) const;
  std::vector<const OpConstraint*> constraints(const std::string& domain, const std::string& op) const;
};

// Loads rules/ep/<name>.toml from the active rules. InputError naming the file
// on a missing file or a malformed table.
EpTable load_ep_table(const std::string& name);
// Parses a table from TOML text (`origin` names it in errors).
EpTable parse_ep_table(const std::string& name, const std::string& toml_text, const std::string& origin);
// Names of every EP table (rules/ep/*.toml), sorted.
std::vector<std::string> ep_table_names();

}  // namespace winml::ep
