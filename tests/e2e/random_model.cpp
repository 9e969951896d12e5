#include "random_model.h"

#include <cstdio>
#include <cstring>
#include <algorithm>
#include <random>
#include <thread>
#include <vector>

#include "gguf/gguf.h"
#include "quant/quant.h"

namespace clport::test {
namespace {

// Rows [first, end) of a weight into out, drawn from rng row after row.
void random_rows(std::mt19937_64& rng, DType dtype, int64_t cols, int64_t first, int64_t end, uint8_t* out) {
  std::normal_distribution<float> dist(0.0f, 1.0f / std::sqrt(static_cast<float>(cols)));
  const int64_t rb = row_bytes(dtype, cols).value();
  std::vector<float> values(static_cast<size_t>(cols));
  for (int64_t r = first; r < end; ++r) {
    for (auto& v : values) v = dist(rng);
    (void)quantize_row(dtype, values.data(), out + r * rb, cols);
  }
}

// Weights drawn with std 1/sqrt(fan_in), like a trained model's scale, so activations stay in
// a realistic range through the layers. threads > 1 (speed runs of large shapes) cuts the rows
// into that many ranges, each drawn on a thread from a generator seeded by one draw of rng: other
// numbers than the one-stream default, as fast as the machine has cores.
std::vector<uint8_t> random_weight(std::mt19937_64& rng, uint32_t threads, DType dtype, int64_t cols, int64_t rows) {
  std::vector<uint8_t> out(static_cast<size_t>(row_bytes(dtype, cols).value() * rows));
  if (threads <= 1) {
    random_rows(rng, dtype, cols, 0, rows, out.data());
    return out;
  }
  const uint64_t base = rng();
  const int64_t per = (rows + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (uint32_t t = 0; t < threads && t * per < rows; ++t) {
    workers.emplace_back([&, t] {
      std::mt19937_64 own(base + t);
      random_rows(own, dtype, cols, t * per, std::min<int64_t>(rows, (t + 1) * per), out.data());
    });
  }
  for (auto& w : workers) w.join();
  return out;
}

// rows x cols floats quantized into out, on `threads` threads (at least one).
Status quantize_rows(uint32_t threads, DType dtype, const float* values, int64_t cols, int64_t rows, uint8_t* out) {
  const int64_t rb = row_bytes(dtype, cols).value();
  const int64_t per = (rows + std::max<uint32_t>(threads, 1) - 1) / std::max<uint32_t>(threads, 1);
  std::vector<Status> results(std::max<uint32_t>(threads, 1));
  std::vector<std::thread> workers;
  for (uint32_t t = 0; t < results.size() && t * per < rows; ++t) {
    workers.emplace_back([&, t] {
      for (int64_t r = t * per; r < std::min<int64_t>(rows, (t + 1) * per) && results[t].ok(); ++r)
        results[t] = quantize_row(dtype, values + r * cols, out + r * rb, cols);
    });
  }
  for (auto& w : workers) w.join();
  for (const Status& st : results) CLPORT_RETURN_IF_ERROR(st);
  return Status();
}

std::vector<uint8_t> uniform_f32(std::mt19937_64& rng, int64_t n, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<uint8_t> out(n * sizeof(float));
  for (int64_t i = 0; i < n; ++i) {
    const float v = dist(rng);
    std::memcpy(out.data() + i * sizeof(float), &v, sizeof v);
  }
  return out;
}

std::vector<uint8_t> norm_weight(std::mt19937_64& rng, int64_t n) { return uniform_f32(rng, n, 0.8f, 1.2f); }



struct TestChatTemplate {
  std::string_view name;
  std::string_view jinja;
  std::vector<std::string> markers;  // control tokens the format writes
};

// Short templates with each family's markers, in the style of the models' own.
const TestChatTemplate kChatTemplates[] = {
    {"gemma",
     "{{ bos_token }}{%- for message in messages -%}{%- if message['role'] == 'assistant' -%}"
     "{%- set role = 'model' -%}{%- else -%}{%- set role = message['role'] -%}{%- endif -%}"
     "{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}"
     "{%- endfor -%}{%- if add_generation_prompt -%}{{ '<start_of_turn>model\n' }}{%- endif -%}",
     {"<start_of_turn>", "<end_of_turn>"}},
    {"chatml",
     "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + "
     "message['content'] + '<|im_end|>\n' }}{% endfor %}{% if add_generation_prompt %}"
     "{{ '<|im_start|>assistant\n' }}{% endif %}",
     {"<|im_start|>", "<|im_end|>"}},
    {"unknown", "{% for message in messages %}{{ message['content'] }}{% endfor %}", {}},
};

void add_vocab(GgufWriter& w, uint32_t n_vocab, const TestChatTemplate* chat) {
  std::vector<std::string> tokens{"<unk>", "<s>", "</s>"};
  std::vector<float> scores{0, 0, 0};
  std::vector<int32_t> types{2, 3, 3};
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "<0x%02X>", b);
    tokens.push_back(buf);
    scores.push_back(0);
    types.push_back(6);
  }
  if (chat) {
    for (const auto& marker : chat->markers) {
      tokens.push_back(marker);
      scores.push_back(0);
      types.push_back(3);
    }
    w.set_string("tokenizer.chat_template", chat->jinja);
    // As in Gemma's files: no space after every turn marker.
    w.set_bool("tokenizer.ggml.add_space_prefix", false);
  }
  const std::string space = "\xE2\x96\x81";  // U+2581, SentencePiece's word boundary
  const char* words[] = {"the", "a", "of", "and", "to", "in", "is", "it"};
  for (uint32_t i = 0; tokens.size() < n_vocab; ++i) {
    tokens.push_back(space + (i < 8 ? std::string(words[i]) : "w" + std::to_string(i)));
    scores.push_back(-static_cast<float>(i));
    types.push_back(1);
  }
  w.set_string("tokenizer.ggml.model", "llama");
  w.set_string_array("tokenizer.ggml.tokens", tokens);
  w.set_f32_array("tokenizer.ggml.scores", scores);
  w.set_i32_array("tokenizer.ggml.token_type", types);
  w.set_u32("tokenizer.ggml.bos_token_id", 1);
  w.set_u32("tokenizer.ggml.eos_token_id", 2);
  w.set_u32("tokenizer.ggml.unknown_token_id", 0);
  w.set_bool("tokenizer.ggml.add_bos_token", true);
}

}  // namespace

RandomModelSpec family_spec(const std::string& family, DType dtype) {
  RandomModelSpec s;
  s.arch = family == "llama3" ? "llama" : family;
  s.weight_dtype = dtype;
  if (family == "llama3") s.rope_factors = "rope_freqs";
  if (family == "qwen3") s.head_dim = 128;
  if (family == "phi3") s.partial_rotary = true;
  if (family == "smollm3") s.n_layer = 4;  // layer 3 runs without RoPE
  return s;
}

Status write_random_llama(const std::string& path, const RandomModelSpec& s) {
  if (s.arch != "llama" && s.arch != "gemma3" && s.arch != "qwen2" && s.arch != "qwen3" && s.arch != "phi3" &&
      s.arch != "smollm3")
    return Status(Stage::InvalidArgument,
                  "random models are llama, gemma3, qwen2, qwen3, phi3 or smollm3, not '" + s.arch + "'");
  if (!s.rope_factors.empty() && s.rope_factors != "rope_freqs" && s.rope_factors != "long_rope")
    return Status(Stage::InvalidArgument, "rope_factors is rope_freqs, long_rope or empty");
  const bool gemma = s.arch == "gemma3", qwen2 = s.arch == "qwen2", qwen3 = s.arch == "qwen3",
             phi3 = s.arch == "phi3";
  std::mt19937_64 rng(s.seed);
  std::mt19937_64 extra(s.seed + 0x9e3779b97f4a7c15ull);  // biases and RoPE factors
  GgufWriter w;
  const std::string p = s.arch + ".";
  w.set_string("general.architecture", s.arch);
  w.set_string("general.name", "clport-random-test-model");
  w.set_u32(p + "context_length", s.n_ctx);
  w.set_u32(p + "embedding_length", s.n_embd);
  w.set_u32(p + "block_count", s.n_layer);
  w.set_u32(p + "feed_forward_length", s.n_ff);
  w.set_u32(p + "attention.head_count", s.n_head);
  w.set_u32(p + "attention.head_count_kv", s.n_head_kv);
  w.set_f32(p + "rope.freq_base", gemma ? 1000000.0f : 10000.0f);
  w.set_f32(p + "attention.layer_norm_rms_epsilon", gemma ? 1e-6f : 1e-5f);
  const int64_t HD = s.head_dim != 0 ? s.head_dim : s.n_embd / s.n_head;
  if (gemma || qwen3) {
    w.set_u32(p + "attention.key_length", static_cast<uint32_t>(HD));
    w.set_u32(p + "attention.value_length", static_cast<uint32_t>(HD));
  } else if (s.head_dim != 0 && s.head_dim * s.n_head != s.n_embd) {
    return Status(Stage::InvalidArgument, "a " + s.arch + " model's head size is n_embd / n_head");
  }
  if (gemma) {
    w.set_u32(p + "attention.sliding_window", s.sliding_window);
    if (s.swa_period != 0) w.set_u32(p + "attention.sliding_window_pattern", s.swa_period);
  }
  // Phi-3 files carry a window that llama.cpp (and so clport) does not apply.
  if (phi3) w.set_u32(p + "attention.sliding_window", s.sliding_window);
  const int64_t n_rot = s.partial_rotary ? HD / 2 : HD;
  if (s.partial_rotary) w.set_u32(p + "rope.dimension_count", static_cast<uint32_t>(n_rot));
  if (s.rope_factors == "long_rope") {
    w.set_u32(p + "rope.scaling.original_context_length", s.n_ctx / 2);
    w.set_f32(p + "rope.scaling.attn_factor", 1.19f);
  }
  const TestChatTemplate* chat = nullptr;
  if (!s.chat_template.empty()) {
    for (const auto& t : kChatTemplates) {
      if (t.name == s.chat_template) chat = &t;
    }
    if (!chat) {
      return Status(Stage::InvalidArgument, "no test chat template '" + s.chat_template +
                                                "' (gemma, chatml, unknown)");
    }
  }
  const size_t n_markers = chat ? chat->markers.size() : 0;
  if (s.n_vocab < 259 + n_markers) {
    return Status(Stage::InvalidArgument, "a random model needs n_vocab >= " +
                                              std::to_string(259 + n_markers));
  }
  const int64_t kVocab = s.n_vocab;
  add_vocab(w, s.n_vocab, chat);

  const int64_t E = s.n_embd, F = s.n_ff;
  const int64_t NQ = HD * s.n_head, KV = HD * s.n_head_kv;
  // The embedding table is scaled up (std ~1) like real embeddings.
  std::vector<float> embd(static_cast<size_t>(E * kVocab));
  std::normal_distribution<float> unit(0.0f, 1.0f);
  for (auto& v : embd) v = unit(rng);
  const int64_t erb = row_bytes(s.weight_dtype, E).value();
  std::vector<uint8_t> embd_q(static_cast<size_t>(erb * kVocab));
  // Quantizing has no randomness: threads share the rows and the bytes are the same for any count.
  CLPORT_RETURN_IF_ERROR(quantize_rows(s.threads, s.weight_dtype, embd.data(), E, kVocab, embd_q.data()));
  CLPORT_RETURN_IF_ERROR(w.add_tensor("token_embd.weight", s.weight_dtype, {E, kVocab}, embd_q));
  // Factors from 1 (high frequencies kept) to 8 (low ones slowed down), as Llama 3.1's are.
  if (s.rope_factors == "rope_freqs") {
    CLPORT_RETURN_IF_ERROR(w.add_tensor("rope_freqs.weight", DType::F32, {n_rot / 2}, uniform_f32(extra, n_rot / 2, 1.0f, 8.0f)));
  } else if (s.rope_factors == "long_rope") {
    CLPORT_RETURN_IF_ERROR(w.add_tensor("rope_factors_short.weight", DType::F32, {n_rot / 2}, uniform_f32(extra, n_rot / 2, 1.0f, 2.0f)));
    CLPORT_RETURN_IF_ERROR(w.add_tensor("rope_factors_long.weight", DType::F32, {n_rot / 2}, uniform_f32(extra, n_rot / 2, 1.0f, 8.0f)));
  }
  // Biases of the size real ones have (a few tenths), so they move the attention visibly.
  auto bias = [&](int64_t n) { return uniform_f32(extra, n, -s.bias_range, s.bias_range); };
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "attn_norm.weight", DType::F32, {E}, norm_weight(rng, E)));
    if (phi3) {
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "attn_qkv.weight", s.weight_dtype, {E, NQ + 2 * KV},
                                          random_weight(rng, s.threads, s.weight_dtype, E, NQ + 2 * KV)));
    } else {
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "attn_q.weight", s.weight_dtype, {E, NQ}, random_weight(rng, s.threads, s.weight_dtype, E, NQ)));
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "attn_k.weight", s.weight_dtype, {E, KV}, random_weight(rng, s.threads, s.weight_dtype, E, KV)));
      const DType v_dtype = s.attn_v_dtype.value_or(s.weight_dtype);
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "attn_v.weight", v_dtype, {E, KV}, random_weight(rng, s.threads, v_dtype, E, KV)));
    }
    if (qwen2) {
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "attn_q.bias", DType::F32, {NQ}, bias(NQ)));
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "attn_k.bias", DType::F32, {KV}, bias(KV)));
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "attn_v.bias", DType::F32, {KV}, bias(KV)));
    }
    CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "attn_output.weight", s.weight_dtype, {NQ, E}, random_weight(rng, s.threads, s.weight_dtype, NQ, E)));
    if (gemma || qwen3) {
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "attn_q_norm.weight", DType::F32, {HD}, norm_weight(rng, HD)));
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "attn_k_norm.weight", DType::F32, {HD}, norm_weight(rng, HD)));
    }
    if (gemma) {
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "post_attention_norm.weight", DType::F32, {E}, norm_weight(rng, E)));
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "post_ffw_norm.weight", DType::F32, {E}, norm_weight(rng, E)));
    }
    CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "ffn_norm.weight", DType::F32, {E}, norm_weight(rng, E)));
    if (phi3) {  // gate rows, then up rows, in one weight
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "ffn_up.weight", s.weight_dtype, {E, 2 * F}, random_weight(rng, s.threads, s.weight_dtype, E, 2 * F)));
    } else {
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "ffn_gate.weight", s.weight_dtype, {E, F}, random_weight(rng, s.threads, s.weight_dtype, E, F)));
      CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "ffn_up.weight", s.weight_dtype, {E, F}, random_weight(rng, s.threads, s.weight_dtype, E, F)));
    }
    CLPORT_RETURN_IF_ERROR(w.add_tensor(b + "ffn_down.weight", s.weight_dtype, {F, E}, random_weight(rng, s.threads, s.weight_dtype, F, E)));
  }
  CLPORT_RETURN_IF_ERROR(w.add_tensor("output_norm.weight", DType::F32, {E}, norm_weight(rng, E)));
  if (!s.tied_output) {
    CLPORT_RETURN_IF_ERROR(w.add_tensor("output.weight", s.weight_dtype, {E, kVocab},
                                        random_weight(rng, s.threads, s.weight_dtype, E, kVocab)));
  }
  return w.write(path);
}

}  // namespace clport::test
