// Single-precision matrix multiplication for Conv, Gemm and MatMul, on
// kernels of our own compiled for three instruction sets.
//
// One order of operations: every element of C is its start (zero, a bias,
// or C itself) followed by one multiply-add per step of the depth, in depth
// order: c = fma(a[i,k], b[k,j], c) for k = 0, 1, ... Vector width, tiling,
// slabs and thread count only choose which elements are computed together,
// never how one is: the AVX2 and AVX-512 kernels (and any thread count)
// give the same bits, those of std::fma in a loop. The generic kernels
// (x86-64's baseline has no fused multiply-add) round the product and the
// sum apart: their bits are those of `c + a * b`, and differ (gemm_arithmetic()).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace winml::runtime {

class ThreadPool;
class PanelArena;

// C[m,n] (= or +=) alpha * op(A)[m,k] * op(B)[k,n]. All row-major with
// leading dimensions lda/ldb/ldc; op() transposes when trans_* is set, in
// which case A is stored [k,m] (B: [n,k]). With alpha != 1, A's values are
// scaled (each rounded once) before they are multiplied.
struct GemmArgs {
  const float* a = nullptr;
  std::int64_t lda = 0;
  bool trans_a = false;
  const float* b = nullptr;
  std::int64_t ldb = 0;
  bool trans_b = false;
  float* c = nullptr;
  std::int64_t ldc = 0;
  std::int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  bool accumulate = false;  // C += ... instead of C = ...
};

// Tiles over the pool.
void sgemm(const GemmArgs& args, ThreadPool& pool);

// The bytes of weights of depth k and this extent packed in slabs of kc
// (PackedWeights: the extent padded to whole panels), or nullopt when the
// numbers are negative, inconsistent or overflow (a blob's metadata is
// checked with it).
std::optional<std::size_t> packed_weights_bytes(std::int64_t k, std::int64_t extent, std::int64_t kc);

// Constant weights packed once (at plan time) into panels the kernels of
// every instruction set read, so that runs never repack them and a `ref`
// blob holds the same bytes whichever machine compiled it. The depth is cut
// into `kc`-deep slabs; within slab s (at s * slab_stride()), panels
// of kPanel consecutive indices of the extent follow each other, each
// holding, for every step of the slab's depth, its kPanel values (zeros
// past the extent).
struct PackedWeights {
  enum class Side { kLeft, kRight };  // the weights are A (Conv) or B (Gemm, MatMul) of C = A x B
  static constexpr std::int64_t kPanel = 16;
  Side side = Side::kLeft;
  std::int64_t k = 0;       // depth
  std::int64_t extent = 0;  // the weights' other dimension: m for A, n for B
  std::int64_t kc = 0;      // depth of one slab
  const char* isa = "";     // the layout's name (kPanelLayout): every instruction set reads it
  std::shared_ptr<float> data;
  std::int64_t padded_extent() const { return (extent + kPanel - 1) / kPanel * kPanel; }
  // Floats from one slab's start to the next. A whole number of panels, so
  // every slab starts 64-byte aligned (kSlabAlign) where the data does, as
  // vector loads of the panels want, whatever the extent (91 classes).
  std::int64_t slab_stride() const { return kc * padded_extent(); }
  float* slab(std::int64_t k2) const { return data.get() + k2 / kc * slab_stride(); }  // the slab from depth k2
  std::size_t bytes() const { return packed_weights_bytes(k, extent, kc).value(); }
  static constexpr std::int64_t kSlabAlign = 16;  // floats
  static_assert(kPanel % kSlabAlign == 0, "slabs of whole panels start aligned");
};
// The name of the panel layout above, stored in `ref` blobs with the panels.
inline constexpr const char* kPanelLayout = "panels16";

// Plans keep the weights their kernels pack, in creation order (Plan::packed),
// so a compiled `ref` blob can store them; loading the blob replays them and
// its kernels skip packing. While a trace is installed on a thread,
// pack_weights records each result, or (replay) returns the next stored
// panels when they match the call's shape and this machine's layout; after a
// mismatch it packs the rest itself.
struct PackTrace {
  enum class Mode { kRecord, kReplay, kOff };
  Mode mode = Mode::kRecord;
  std::vector<std::shared_ptr<const PackedWeights>> packed;
  std::size_t next = 0;      // replay: the next entry to hand out
  std::size_t replayed = 0;  // replay: calls served from `packed`
  // Recording with `defer` set: packing work waits in `deferred`, to run on
  // every core once all kernels exist (run_deferred_packing), before the
  // plan runs. Its inputs (constants) must live until then.
  bool defer = false;
  std::vector<std::function<void()>> deferred;
  std::vector<std::function<void()>> after;  // once `deferred` has run (dropping weights packing read)
  // Recording: where the panels are allocated (created with the first).
  std::shared_ptr<PanelArena> arena;
};

// Runs `work` (filling panels) now, or, while the installed trace defers,
// with the rest of the trace's packing work.
void defer_packing(std::function<void()> work);
// Runs `work` now, or, while the installed trace defers packing, after it.
void after_packing(std::function<void()> work);
// Runs and clears `trace.deferred`, spread over one thread per core, then
// `trace.after` in order.
void run_deferred_packing(PackTrace& trace);

// Installs `trace` for this thread while alive (the previous one is restored
// after). Top-level plans install one; plans of subgraphs, built while their
// parent's kernels are created, use the parent's, so the order stays the
// creation order.
class ScopedPackTrace {
 public:
  explicit ScopedPackTrace(PackTrace* trace);
  ~ScopedPackTrace();
  ScopedPackTrace(const ScopedPackTrace&) = delete;
  ScopedPackTrace& operator=(const ScopedPackTrace&) = delete;

 private:
  PackTrace* previous_;
};

// While a trace replays: its next stored panels when they match the shape
// and this machine's layout, else nullptr (and the trace stops replaying).
// For kernels whose weights need work before pack_weights (a transform) that
// a replay makes unnecessary.
std::shared_ptr<const PackedWeights> replay_packed_weights(PackedWeights::Side side, std::int64_t k,
                                                           std::int64_t extent);

// Panels of weights of this shape, allocated (and recorded by the trace) but
// not filled: for kernels that compute their weights before packing them
// (fill_packed_weights, typically inside defer_packing).
std::shared_ptr<PackedWeights> empty_packed_weights(PackedWeights::Side side, std::int64_t k, std::int64_t extent);
// Fills `p` from `w`, given as pack_weights takes it.
void fill_packed_weights(PackedWeights& p, const float* w, std::int64_t ld, bool trans);
// Fills the extent range [e0, e1) of `p` from `w`, which holds that range
// only (as pack_weights takes the whole). Ranges start at multiples of
// gemm_detail::kRowPanel and end at one or at the extent: weights computed
// in blocks are packed while they are in cache.
void fill_packed_range(PackedWeights& p, const float* w, std::int64_t ld, bool trans, std::int64_t e0, std::int64_t e1);

// `w` as A [extent, k] (Side::kLeft) or B [k, extent] (Side::kRight),
// row-major with leading dimension `ld`, or its transpose when `trans`.
std::shared_ptr<const PackedWeights> pack_weights(PackedWeights::Side side, const float* w, std::int64_t ld, bool trans,
                                                  std::int64_t k, std::int64_t extent);

// C (= or +=) A x B with the weights' side packed and the other operand `x`
// given like GemmArgs' (B [k, x_extent] for packed A, A [x_extent, k] for
// packed B; transposed storage when trans_x). Without `accumulate`, each
// element of C starts from `bias` at its weights index (A's row, B's
// column), or from zero without one: the same bits as filling C first and
// accumulating, without the pass over C (the kernels' first slab takes the
// start where it would load C). With `relu`, C is then clamped at zero
// (x < 0 ? 0 : x: a folded Relu's bits) as the last slab stores it.
void sgemm_packed(const PackedWeights& w, const float* x, std::int64_t ldx, bool trans_x, std::int64_t x_extent,
                  float* c, std::int64_t ldc, bool accumulate, ThreadPool& pool, const float* bias = nullptr,
                  bool relu = false);
// Single-threaded, same tiling (hence same bits) as sgemm.
void sgemm_serial(const GemmArgs& args);

// The instruction set variant in use: "avx512", "avx2" or "generic"
// (base/instruction_set.h: the CPU's widest, or WINML_RUNTIME_ISA's).
const char* gemm_isa();
// The arithmetic that variant does, the one thing about it that reaches a
// result: "fma" (AVX2 and AVX-512: one rounding per multiply-add) or
// "separate" (generic: the product rounded, then the sum).
const char* gemm_arithmetic();

namespace gemm_detail {
// A tile's ends: without `from_start` the product adds to C as it is; with
// it, C starts from bias[j] at weights index j, or from zero when `bias` is
// null. With `relu`, the sums are clamped at zero as they are stored.
struct TileEdges {
  bool from_start = false;
  const float* bias = nullptr;
  bool relu = false;
};

// The entry points one instruction set variant provides (gemm_tile.cpp).
struct Variant {
  const char* name;
  bool fused;  // multiply-adds round once
  // One tile of sgemm: rows [r0, r0+rows) and columns [c0, c0+cols) of C.
  void (*tile)(const GemmArgs& args, std::int64_t r0, std::int64_t rows, std::int64_t c0, std::int64_t cols);
  // One tile of sgemm_packed: weights range [w0, w1) and x range [x0, x1),
  // with `edges` (the weights have depth).
  void (*packed_tile)(const PackedWeights& w, const float* x, std::int64_t ldx, bool trans_x, float* c,
                      std::int64_t ldc, std::int64_t w0, std::int64_t w1, std::int64_t x0, std::int64_t x1,
                      const TileEdges& edges);
};
extern const Variant kGeneric, kAvx2, kAvx512;
// The variants this CPU runs, widest first (tests compare them).
std::vector<const Variant*> variants_this_cpu_runs();
// Packed-weight ranges split at multiples of this (a multiple of kPanel).
inline constexpr std::int64_t kRowPanel = 48;
}  // namespace gemm_detail

}  // namespace winml::runtime
