// Small models with random weights, written as GGUF by the test suite itself (no model files are
// committed): any architecture clport runs, any weight dtype, tied or untied output,
// grouped-query attention, and a tiny SentencePiece-style vocabulary (byte tokens) so the
// tokenizer loads too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/dtype.h"
#include "clport/status.h"

namespace clport::test {

struct RandomModelSpec {
  // "llama", "gemma3" (per-head Q/K norms, post-norms, GEGLU, sliding window), "qwen2" (Q/K/V
  // biases, NeoX RoPE), "qwen3" (per-head Q/K norms, head size of its own), "phi3" (one Q/K/V
  // weight, one gate+up weight, NeoX RoPE on part of the head), "smollm3" (llama's tensors and
  // keys; the family runs every fourth layer without RoPE).
  std::string arch = "llama";
  DType weight_dtype = DType::Q8_0;
  // attn_v in another dtype (as Q4_K_M files do with Q6_K): Q, K and V cannot be one weight.
  std::optional<DType> attn_v_dtype;
  bool tied_output = true;
  uint32_t n_embd = 256;  // multiple of 256 so that K-quants apply
  uint32_t n_ff = 512;
  uint32_t n_layer = 2;
  uint32_t n_head = 4;
  uint32_t n_head_kv = 2;  // < n_head: grouped-query attention
  uint32_t n_ctx = 128;
  uint32_t n_vocab = 300;  // >= 259: 3 control tokens + 256 byte tokens + filler words
  uint64_t seed = 1;
  // gemma3 / qwen3: head size (0: n_embd / n_head; Gemma 3 270M has 256 against 640 / 4);
  // gemma3: the sliding window of the local layers and the period of the global ones.
  uint32_t head_dim = 0;
  uint32_t sliding_window = 8;
  uint32_t swa_period = 0;  // 0: no key written (the Gemma 3 default, 6, applies)
  // RoPE frequency factors: "rope_freqs" (a Llama 3.x file's tensor), "long_rope" (Phi-3's short
  // and long factor tensors, rope.scaling.original_context_length = n_ctx / 2 and an attention
  // factor), or "" (none).
  std::string rope_factors;
  // phi3: rotate only half of each head (rope.dimension_count = head size / 2).
  bool partial_rotary = false;
  // qwen2: the Q/K/V biases are drawn from [-bias_range, bias_range]. Biases and RoPE factors come
  // from a generator of their own, so two specs that differ only there share every other weight.
  float bias_range = 0.5f;
  // tokenizer.chat_template: "" (none), "gemma" or "chatml" (a template of that family, its
  // turn markers added to the vocabulary as control tokens), "unknown" (a template no family
  // matches).
  std::string chat_template;
  // Threads drawing the weight matrices; 1 (the default) draws them from the one stream seeded by
  // `seed`, more draws other numbers in parallel (speed runs of large shapes, make_test_model
  // threads=N).
  uint32_t threads = 1;
};

// A small model of each family as the tests run it: qwen3 with heads of 128 against n_embd 256,
// phi3 rotating half of each head, smollm3 of 4 layers (the fourth has no RoPE), "llama3" a llama
// file with rope_freqs; other names as they are.
RandomModelSpec family_spec(const std::string& family, DType dtype);

// Writes the model to `path` (any spec.arch: the name says the family the generator started
// with). The vocabulary has 3 control tokens, 256 byte tokens, the chat template's markers, and
// words up to spec.n_vocab. An unknown chat_template is an InvalidArgument status.
Status write_random_llama(const std::string& path, const RandomModelSpec& spec);

}  // namespace clport::test
