#include "model/blob_alignment.h"

#include <google/protobuf/io/coded_stream.h>

#include "model/epcontext.h"

namespace winml::model {

namespace {

std::uint64_t varint_size(std::uint64_t v) {
  return google::protobuf::io::CodedOutputStream::VarintSize64(v);
}

// A length-delimited field of a small field number: tag, length, payload.
std::uint64_t field_size(std::uint64_t payload) { return 1 + varint_size(payload) + payload; }

}  // namespace

std::uint64_t string_offset(const onnx::ModelProto& m, int node, int attribute) {
  // ModelProto: fields 1-6, then the graph (7).
  onnx::ModelProto head;
  if (m.has_ir_version()) head.set_ir_version(m.ir_version());
  if (m.has_producer_name()) head.set_producer_name(m.producer_name());
  if (m.has_producer_version()) head.set_producer_version(m.producer_version());
  if (m.has_domain()) head.set_domain(m.domain());
  if (m.has_model_version()) head.set_model_version(m.model_version());
  if (m.has_doc_string()) head.set_doc_string(m.doc_string());
  const onnx::GraphProto& g = m.graph();
  std::uint64_t at = head.ByteSizeLong() + 1 + varint_size(g.ByteSizeLong());
  // GraphProto: its nodes (1) come first.
  for (int i = 0; i < node; ++i) at += field_size(g.node(i).ByteSizeLong());
  const onnx::NodeProto& n = g.node(node);
  at += 1 + varint_size(n.ByteSizeLong());
  // NodeProto: input (1), output (2), name (3), op_type (4), then the attributes (5).
  onnx::NodeProto node_head;
  *node_head.mutable_input() = n.input();
  *node_head.mutable_output() = n.output();
  if (n.has_name()) node_head.set_name(n.name());
  if (n.has_op_type()) node_head.set_op_type(n.op_type());
  at += node_head.ByteSizeLong();
  for (int i = 0; i < attribute; ++i) at += field_size(n.attribute(i).ByteSizeLong());
  const onnx::AttributeProto& a = n.attribute(attribute);
  at += 1 + varint_size(a.ByteSizeLong());
  // AttributeProto: name (1), f (2), i (3), then s (4).
  onnx::AttributeProto attribute_head;
  if (a.has_name()) attribute_head.set_name(a.name());
  if (a.has_f()) attribute_head.set_f(a.f());
  if (a.has_i()) attribute_head.set_i(a.i());
  at += attribute_head.ByteSizeLong();
  return at + 1 + varint_size(a.s().size());
}

void align_embedded_blobs(onnx::ModelProto& m, std::uint64_t alignment, std::uint64_t min_bytes,
                          std::string_view source) {
  onnx::GraphProto& g = *m.mutable_graph();
  struct Site {
    int node, notes, blob;
  };
  std::vector<Site> sites;
  for (int i = 0; i < g.node_size(); ++i) {
    onnx::NodeProto& n = *g.mutable_node(i);
    if (!is_epcontext_node(n)) continue;
    int notes = -1, blob = -1;
    std::string_view node_source;
    for (int k = 0; k < n.attribute_size(); ++k) {
      if (n.attribute(k).name() == "notes") notes = k;
      if (n.attribute(k).name() == "ep_cache_context" && n.attribute(k).s().size() >= min_bytes) blob = k;
      if (n.attribute(k).name() == "source") node_source = n.attribute(k).s();
    }
    if (notes < 0 || blob < 0 || (!source.empty() && node_source != source)) continue;
    // The notes just before the blob: its padding then moves nothing else.
    auto* attrs = n.mutable_attribute();
    if (notes > blob) {
      for (; notes > blob; --notes) attrs->SwapElements(notes, notes - 1);
      blob = notes + 1;
    } else {
      for (; notes < blob - 1; ++notes) attrs->SwapElements(notes, notes + 1);
    }
    sites.push_back({i, notes, blob});
  }
  // Padding one node can lengthen a size before another's blob (the graph's
  // varint): repeat until every blob is aligned (a pass or two).
  for (int pass = 0; pass < 16; ++pass) {
    bool moved = false;
    for (const Site& s : sites) {
      const std::uint64_t misalign = string_offset(m, s.node, s.blob) % alignment;
      if (misalign == 0) continue;
      g.mutable_node(s.node)->mutable_attribute(s.notes)->mutable_s()->append(alignment - misalign, ' ');
      moved = true;
    }
    if (!moved) return;
  }
}

}  // namespace winml::model
