// EngineCore::rewind, save_state and load_state: the conversation in the KV cache, shortened,
// written to a file and read back (engine/sequence_state.h has the file).
#include <cerrno>
#include <cstring>
#include <fstream>

#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "common/version.h"
#include "engine/sequence_state.h"
#include "programs/cache_key.h"

namespace clport {
namespace {

// Streams the file through the digest: its pages go through the page cache, not into this
// process's memory as a mapping read in full would.
Result<std::string> model_file_sha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(Stage::Io, "cannot open '" + path + "' to hash it: " + std::strerror(errno));
  programs::Sha256 hash;
  std::vector<char> chunk(1 << 20);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    hash.update(chunk.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return Status(Stage::Io, "cannot read '" + path + "' to hash it");
  const programs::Digest digest = hash.finish();
  if (digest == programs::Digest{}) return Status(Stage::Internal, "SHA-256 of '" + path + "' failed");
  return programs::to_hex(digest);
}

}  // namespace

Result<std::string> EngineCore::model_sha256() {
  if (model_sha256_.empty()) {
    auto digest = model_file_sha256(file_->path().empty() ? options_.model_path : file_->path());
    if (!digest.ok()) return digest.status();
    model_sha256_ = digest.value();
  }
  return model_sha256_;
}

Status EngineCore::rewind(size_t n, uint32_t seq) {
  CLPORT_RETURN_IF_ERROR(check_sequence(seq));
  std::vector<int32_t>& cached = cached_[seq];
  if (n > cached.size()) {
    return Status(Stage::InvalidArgument, "cannot rewind " + std::to_string(n) + " tokens: the cache holds " +
                                              std::to_string(cached.size()));
  }
  cached.resize(cached.size() - n);
  return Status();
}

namespace {

SequenceIdentity sequence_identity_of(const LlamaModel& model, const std::string& sha256) {
  const LlamaHParams& hp = model.hparams();
  SequenceIdentity id;
  id.clport_version = CLPORT_VERSION_STRING;
  id.model_sha256 = sha256;
  id.arch = hp.arch;
  id.n_layer = hp.n_layer;
  id.n_head_kv = hp.n_head_kv;
  id.head_dim = hp.head_dim;
  id.cache_type_k = std::string(dtype_name(model.kv_type_k()));
  id.cache_type_v = std::string(dtype_name(model.kv_type_v()));
  return id;
}

}  // namespace

Status EngineCore::save_state(const std::string& path, uint32_t seq) {
  CLPORT_RETURN_IF_ERROR(check_sequence(seq));
  auto sha = model_sha256();
  if (!sha.ok()) return sha.status();
  SequenceState state;
  state.identity = sequence_identity_of(*model_, sha.value());
  state.n_ctx = model_->n_ctx();
  state.tokens = cached_[seq];
  CLPORT_RETURN_IF_ERROR(model_->read_kv(static_cast<uint32_t>(state.tokens.size()), state.kv, seq));
  return write_sequence_state(path, state);
}

Status EngineCore::load_state(const std::string& path, uint32_t seq) {
  CLPORT_RETURN_IF_ERROR(check_sequence(seq));
  auto sha = model_sha256();
  if (!sha.ok()) return sha.status();
  auto state = read_sequence_state(path, sequence_identity_of(*model_, sha.value()));
  if (!state.ok()) return state.status();
  const SequenceState& s = state.value();
  if (s.tokens.size() > model_->n_ctx()) {
    return Status(Stage::InvalidArgument, "the state file '" + path + "' holds " + std::to_string(s.tokens.size()) +
                                              " tokens but this context holds " + std::to_string(model_->n_ctx()) +
                                              " (raise --ctx)");
  }
  for (int32_t id : s.tokens) {
    if (id < 0 || static_cast<uint32_t>(id) >= model_->hparams().n_vocab) {
      return Status(Stage::Io, "the state file '" + path + "' holds token id " + std::to_string(id) +
                                   ", outside the vocabulary");
    }
  }
  // From here the cache changes: if writing it fails, it holds nothing usable.
  cached_[seq].clear();
  CLPORT_RETURN_IF_ERROR(model_->write_kv(static_cast<uint32_t>(s.tokens.size()), s.kv.data(), s.kv.size(), seq));
  cached_[seq] = s.tokens;
  return Status();
}

}  // namespace clport
