// Internal: the tensors of the llama block as GGUF files name them, one row each; a family's
// tensor map lists the rows its files hold, in load order.
#pragma once

#include "model/arch/arch_family.h"

namespace clport::tensors {

inline constexpr TensorSpec kTokEmbd{"token_embd.weight", Slot::TokEmbd, Dim::Embd, Dim::Vocab, false};
inline constexpr TensorSpec kOutputNorm{"output_norm.weight", Slot::OutputNorm, Dim::Embd, Dim::One, true};
// Without it the output projection is the token embedding (tied).
inline constexpr TensorSpec kOutput{"output.weight", Slot::Output, Dim::Embd, Dim::Vocab, false, When::IfPresent};

inline constexpr TensorSpec kAttnNorm{"attn_norm.weight", Slot::AttnNorm, Dim::Embd, Dim::One, true};
// Q, K and V as one weight where the file has it (phi3), else three.
inline constexpr TensorSpec kAttnQkv{"attn_qkv.weight", Slot::Wqkv, Dim::Embd, Dim::QkvRows, false, When::IfPresent};
inline constexpr TensorSpec kAttnQ{"attn_q.weight", Slot::Wq, Dim::Embd, Dim::QRows, false, When::UnlessPresent,
                                   "attn_qkv.weight"};
inline constexpr TensorSpec kAttnK{"attn_k.weight", Slot::Wk, Dim::Embd, Dim::KvRows, false, When::UnlessPresent,
                                   "attn_qkv.weight"};
inline constexpr TensorSpec kAttnV{"attn_v.weight", Slot::Wv, Dim::Embd, Dim::KvRows, false, When::UnlessPresent,
                                   "attn_qkv.weight"};
// Biases of the projections, joined or split as the weights are.
inline constexpr TensorSpec kAttnQkvBias{"attn_qkv.bias", Slot::Bqkv, Dim::QkvRows, Dim::One, true, When::IfPresent,
                                         "attn_qkv.weight"};
inline constexpr TensorSpec kAttnQBias{"attn_q.bias", Slot::Bq, Dim::QRows, Dim::One, true, When::UnlessPresent,
                                       "attn_qkv.weight"};
inline constexpr TensorSpec kAttnKBias{"attn_k.bias", Slot::Bk, Dim::KvRows, Dim::One, true, When::UnlessPresent,
                                       "attn_qkv.weight"};
inline constexpr TensorSpec kAttnVBias{"attn_v.bias", Slot::Bv, Dim::KvRows, Dim::One, true, When::UnlessPresent,
                                       "attn_qkv.weight"};
inline constexpr TensorSpec kAttnOutput{"attn_output.weight", Slot::Wo, Dim::QRows, Dim::Embd, false};
// RMSNorm weights of each Q and K head.
inline constexpr TensorSpec kAttnQNorm{"attn_q_norm.weight", Slot::AttnQNorm, Dim::HeadDim, Dim::One, true};
inline constexpr TensorSpec kAttnKNorm{"attn_k_norm.weight", Slot::AttnKNorm, Dim::HeadDim, Dim::One, true};
// RMSNorm weights of the attention and FFN outputs before the residual.
inline constexpr TensorSpec kPostAttnNorm{"post_attention_norm.weight", Slot::PostAttnNorm, Dim::Embd, Dim::One, true};
inline constexpr TensorSpec kPostFfnNorm{"post_ffw_norm.weight", Slot::PostFfnNorm, Dim::Embd, Dim::One, true};

inline constexpr TensorSpec kFfnNorm{"ffn_norm.weight", Slot::FfnNorm, Dim::Embd, Dim::One, true};
inline constexpr TensorSpec kFfnGate{"ffn_gate.weight", Slot::Gate, Dim::Embd, Dim::Ff, false};
inline constexpr TensorSpec kFfnUp{"ffn_up.weight", Slot::Up, Dim::Embd, Dim::Ff, false};
// Gate rows then up rows in one weight (phi3).
inline constexpr TensorSpec kFfnGateUp{"ffn_up.weight", Slot::GateUp, Dim::Embd, Dim::GateUpRows, false};
inline constexpr TensorSpec kFfnDown{"ffn_down.weight", Slot::Down, Dim::Ff, Dim::Embd, false};

}  // namespace clport::tensors
