// Internal: the blocks the architecture graph builders share (llama_graph.cpp, model/arch/):
// the embedding, norm + Q/K/V projections, RoPE + KV-cache store + attention, a mat-mul into the
// residual, the gated FFN and the vocabulary projection. Each block takes the fused pattern where
// the plugin that runs its plain mat-mul claims it (LlamaModel::claims), else the plain ops.
#pragma once

#include "model/arch/arch_family.h"
#include "model/llama_plan.h"
#include "model/llama_weights.h"

namespace clport {

class PlanBuilder {
 public:
  using Layer = LlamaModel::Weights::Layer;

  // One step of `shape` (its entries' tokens in row order) on `model` (its weights and scratch
  // are in place).
  PlanBuilder(const LlamaModel& model, const LlamaModel::StepShape& shape);

  PlanNode& add(clport_op_kind kind, std::vector<TensorRef> src, const TensorRef& dst, cpu::OpParams params = {});
  ForwardPlan take() { return std::move(plan_); }

  // The parameters of one layer's RoPE and attention ops: whether it rotates at all, its RoPE base
  // and scaling and its window (hp.layer_attn) and the family's score scale.
  struct AttentionParams {
    bool rotate = true;
    cpu::OpParams rope, rope_attention, attention;
  };
  AttentionParams attention_params(uint32_t layer) const;
  const cpu::OpParams& norm() const { return norm_; }

  // The nodes added from here on are layer `layer`'s group (PlanNode::group), until the next
  // begin_layer or end_layers.
  void begin_layer(uint32_t layer) { group_ = static_cast<int>(layer); }
  void end_layers() { group_ = -1; }

  // x = embedding rows of the token ids, times hp.embd_scale when that is not 1.
  void embed();
  // Q, K and V of rms_norm(x) * attn_norm as head-shaped views [head_dim, heads, n].
  struct Heads {
    TensorRef q, k, v;
  };
  Heads project_qkv(const Layer& L);
  // RMSNorm over each head of `heads` with `weight` [head_dim], into `dst` (contiguous, same
  // shape); a strided slice is first copied to `tmp`.
  TensorRef norm_heads(const TensorRef& heads, const TensorRef& weight, const TensorRef& dst, const TensorRef& tmp);
  // Per entry of the step: K rotated into its sequence's cache at positions n_past.., then
  // attention of Q rotated over that cache, into attn (heads); on a layer without RoPE, K stored
  // and Q attending as they are. These nodes carry their entry (PlanNode::entry); with several
  // entries they are not grouped, since a group runs at one n_past.
  void rope_store_attend(const Layer& L, const Heads& h, const AttentionParams& p);
  // x += weight x input (one fused op where claimed).
  PlanNode& mul_mat_residual(const TensorRef& weight, const TensorRef& input);
  // proj = weight x input, then x += rms_norm(proj) * norm_weight (post-norm families).
  PlanNode& mul_mat_norm_residual(const TensorRef& weight, const TensorRef& input, const TensorRef& norm_weight);
  // act = f(gate x n) * (up x n), n = rms_norm(x) * ffn_norm; f is SiLU or GELU(tanh).
  void gated_ffn(const Layer& L, FfnActivation f);
  // The final norm and the vocabulary projection of the last logit_rows tokens.
  void output(int64_t logit_rows, bool hooked);
  // The hidden state after `layer` is x once `node` has run.
  void hook_after(PlanNode& node, uint32_t layer) const;

  // Activation views of this step (n columns).
  TensorRef x, xn, attn, proj, gate, up, act, q_rope, k_rope, attn_heads;
  TensorRef q_tmp, k_tmp;

 private:
  bool claims(clport_op_kind fused, const std::vector<const TensorRef*>& src, const TensorRef& dst,
              const cpu::OpParams& params, const TensorRef* weight, const TensorRef* plain_input,
              const TensorRef* plain_dst) const {
    return model_.claims(fused, src, dst, params, weight, plain_input, plain_dst);
  }
  TensorRef cols(const TensorRef& t, int64_t rows) const { return view(t, {rows, n_, 1, 1}, 0); }
  // src with the model's RoPE frequency factors appended when it has them.
  std::vector<TensorRef> with_factors(std::vector<TensorRef> src) const;

  // One entry of the step: its sequence and its rows [row, row + n) of the batch.
  struct Entry {
    uint32_t seq = 0;
    int64_t row = 0, n = 0;
  };
  // What one entry's RoPE, store and attention ops read and write: its rows of the step's
  // activations and its sequence's cache.
  struct EntryViews {
    Heads h;
    TensorRef q_rope, k_rope, attn_heads;
    const Layer::SequenceCache* cache = nullptr;
    int64_t n = 0;
  };
  EntryViews entry_views(const Layer& L, const Heads& h, const Entry& e) const;
  // Every entry at once through the *_CELLS ops, where the plugins claim them: false (nothing
  // added) when they do not, or the layer's K and V are two tensors.
  bool rope_store_attend_cells(const Layer& L, const Heads& h, const AttentionParams& p);
  void rope_store_attend_entry(const EntryViews& v, const AttentionParams& p);
  void store_attend_entry(const EntryViews& v, const AttentionParams& p);
  void kv_store(const EntryViews& v, const TensorRef& k_heads, const cpu::OpParams& rope);
  // K rows (rotated or not) and the entry's V rows into its cache slots at positions n_past..
  void kv_copy(const EntryViews& v, const TensorRef& k_rows);
  void attend(const EntryViews& v, const TensorRef& q_heads, const AttentionParams& p);

  const LlamaModel& model_;
  const LlamaHParams& hp_;
  const LlamaModel::Weights& w_;
  const LlamaModel::Scratch& s_;
  int64_t n_;
  std::vector<Entry> entries_;
  int entry_ = -1;  // the entry whose nodes are being added (PlanNode::entry), -1 between them
  cpu::OpParams norm_;
  int group_ = -1;
  ForwardPlan plan_;
};

// The step of the llama family and of the families built like it (one step; a GraphBuilder).
ForwardPlan build_llama_graph(PlanBuilder& b, const LlamaHParams& hp, const LlamaModel::Weights& w,
                              int64_t logit_rows, bool hooked);

}  // namespace clport
