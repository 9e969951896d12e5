// Internal: a saved conversation. The tokens a model's KV cache holds and the cache's rows for
// them, in a file another process loads back into the same model. The file is
//   "CLPORTSQ" | u32 format (1) | u64 header bytes | header (JSON) | i32 tokens[n_tokens] |
//   KV rows (LlamaModel::read_kv's order and types) | SHA-256 of everything before (32 bytes),
// little-endian. The header names what the rows are only valid for: the model file (its SHA-256),
// the KV types, the cache's shape and clport's version (kernels of another version may round
// differently). It is written to a temporary and renamed, so a crash mid-save loses nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clport/status.h"

namespace clport {

// What a saved state is valid for.
struct SequenceIdentity {
  std::string clport_version;
  std::string model_sha256;  // hex
  std::string arch;
  uint32_t n_layer = 0, n_head_kv = 0, head_dim = 0;
  std::string cache_type_k, cache_type_v;
};

struct SequenceState {
  SequenceIdentity identity;
  uint32_t n_ctx = 0;  // of the model that saved it (for the message when it does not fit)
  std::vector<int32_t> tokens;
  std::vector<uint8_t> kv;
};

Status write_sequence_state(const std::string& path, const SequenceState& state);

// Reads and checks a state file: its framing and checksum (a truncated or corrupt file is a
// Stage::Io error naming what is wrong), then that it was saved for `expected` (else
// Stage::InvalidArgument naming each field that differs, saved against this one).
Result<SequenceState> read_sequence_state(const std::string& path, const SequenceIdentity& expected);

}  // namespace clport
