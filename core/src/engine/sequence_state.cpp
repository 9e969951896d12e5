#include "engine/sequence_state.h"

#include <cstring>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "programs/cache_key.h"

namespace clport {
namespace {

constexpr char kStateSignature[8] = {'C', 'L', 'P', 'O', 'R', 'T', 'S', 'Q'};
constexpr uint32_t kStateFormat = 1;
constexpr size_t kStateDigestBytes = 32;
// A header is a few hundred bytes; a length past this is a corrupt file, not a request to
// allocate it.
constexpr uint64_t kMaxStateHeaderBytes = 1 << 20;

template <typename T>
void append_raw(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

nlohmann::json state_header_json(const SequenceState& s) {
  const SequenceIdentity& id = s.identity;
  return {{"clport_version", id.clport_version}, {"model_sha256", id.model_sha256},
          {"arch", id.arch},                     {"n_layer", id.n_layer},
          {"n_head_kv", id.n_head_kv},           {"head_dim", id.head_dim},
          {"cache_type_k", id.cache_type_k},     {"cache_type_v", id.cache_type_v},
          {"n_ctx", s.n_ctx},                    {"n_tokens", s.tokens.size()},
          {"kv_bytes", s.kv.size()}};
}

// Reads header field `key` of type T, or says which field is missing or of the wrong type.
template <typename T>
Status state_field(const nlohmann::json& header, const char* key, T& out) {
  const auto it = header.find(key);
  if (it == header.end()) return Status(Stage::Io, std::string("its header has no \"") + key + "\"");
  try {
    out = it->get<T>();
  } catch (const nlohmann::json::exception&) {
    return Status(Stage::Io, std::string("its header's \"") + key + "\" has the wrong type");
  }
  return Status();
}

// Each field that differs, as `name saved X, this one Y`.
std::string state_differences(const SequenceIdentity& saved, const SequenceIdentity& here) {
  std::string out;
  auto compare = [&](const char* what, const std::string& a, const std::string& b) {
    if (a == b) return;
    out += std::string(out.empty() ? "" : "; ") + what + " " + a + " when saved, " + b + " here";
  };
  compare("clport version", saved.clport_version, here.clport_version);
  compare("model file SHA-256", saved.model_sha256, here.model_sha256);
  compare("architecture", saved.arch, here.arch);
  compare("layers", std::to_string(saved.n_layer), std::to_string(here.n_layer));
  compare("KV heads", std::to_string(saved.n_head_kv), std::to_string(here.n_head_kv));
  compare("head size", std::to_string(saved.head_dim), std::to_string(here.head_dim));
  compare("K cache type", saved.cache_type_k, here.cache_type_k);
  compare("V cache type", saved.cache_type_v, here.cache_type_v);
  return out;
}

}  // namespace

Status write_sequence_state(const std::string& path, const SequenceState& state) {
  const std::string header = state_header_json(state).dump();
  std::string out;
  out.reserve(sizeof kStateSignature + 12 + header.size() + state.tokens.size() * 4 + state.kv.size() + kStateDigestBytes);
  out.append(kStateSignature, sizeof kStateSignature);
  append_raw(out, kStateFormat);
  append_raw(out, static_cast<uint64_t>(header.size()));
  out += header;
  out.append(reinterpret_cast<const char*>(state.tokens.data()), state.tokens.size() * sizeof(int32_t));
  out.append(reinterpret_cast<const char*>(state.kv.data()), state.kv.size());
  const programs::Digest digest = programs::sha256(out.data(), out.size());
  out.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  return write_file_atomically(path, out);
}

Result<SequenceState> read_sequence_state(const std::string& path, const SequenceIdentity& expected) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(Stage::Io, "cannot open the state file '" + path + "': " + std::strerror(errno));
  // One buffer for the whole file; the KV rows end up in it (moved to the front), so a state of
  // several GiB is held once, not twice.
  in.seekg(0, std::ios::end);
  const std::streamoff file_size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (!in || file_size < 0) return Status(Stage::Io, "cannot read the state file '" + path + "'");
  std::vector<uint8_t> bytes(static_cast<size_t>(file_size));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), file_size)) {
    return Status(Stage::Io, "cannot read the state file '" + path + "'");
  }
  const auto corrupt = [&](const std::string& why) {
    return Status(Stage::Io, "'" + path + "' is not a usable clport state file: " + why);
  };
  const size_t fixed = sizeof kStateSignature + sizeof(uint32_t) + sizeof(uint64_t);
  if (bytes.size() < fixed + kStateDigestBytes || std::memcmp(bytes.data(), kStateSignature, sizeof kStateSignature) != 0) {
    return corrupt("it does not start with a state file's signature");
  }
  uint32_t format = 0;
  uint64_t header_bytes = 0;
  std::memcpy(&format, bytes.data() + sizeof kStateSignature, sizeof format);
  std::memcpy(&header_bytes, bytes.data() + sizeof kStateSignature + sizeof format, sizeof header_bytes);
  if (format != kStateFormat) {
    return corrupt("format " + std::to_string(format) + ", this clport reads format " + std::to_string(kStateFormat));
  }
  if (header_bytes > kMaxStateHeaderBytes || fixed + header_bytes + kStateDigestBytes > bytes.size()) {
    return corrupt("its header length (" + std::to_string(header_bytes) + " bytes) runs past the end: truncated?");
  }
  const size_t body = bytes.size() - kStateDigestBytes;
  const programs::Digest digest = programs::sha256(bytes.data(), body);
  if (std::memcmp(digest.data(), bytes.data() + body, kStateDigestBytes) != 0) {
    return corrupt("its checksum does not match (truncated or damaged)");
  }
  nlohmann::json header;
  try {
    const char* text = reinterpret_cast<const char*>(bytes.data()) + fixed;
    header = nlohmann::json::parse(text, text + header_bytes);
  } catch (const nlohmann::json::exception& e) {
    return corrupt(std::string("its header is not JSON (") + e.what() + ")");
  }
  if (!header.is_object()) return corrupt("its header is not a JSON object");
  SequenceState state;
  SequenceIdentity& id = state.identity;
  uint64_t n_tokens = 0, kv_bytes = 0;
  for (const Status& s :
       {state_field(header, "clport_version", id.clport_version), state_field(header, "model_sha256", id.model_sha256),
        state_field(header, "arch", id.arch), state_field(header, "n_layer", id.n_layer), state_field(header, "n_head_kv", id.n_head_kv),
        state_field(header, "head_dim", id.head_dim), state_field(header, "cache_type_k", id.cache_type_k),
        state_field(header, "cache_type_v", id.cache_type_v), state_field(header, "n_ctx", state.n_ctx),
        state_field(header, "n_tokens", n_tokens), state_field(header, "kv_bytes", kv_bytes)}) {
    if (!s.ok()) return corrupt(s.message());
  }
  const uint64_t payload = body - fixed - header_bytes;
  if (n_tokens > payload / sizeof(int32_t) || n_tokens * sizeof(int32_t) + kv_bytes != payload) {
    return corrupt(std::to_string(n_tokens) + " tokens and " + std::to_string(kv_bytes) + " bytes of KV rows do not add up to the " +
                   std::to_string(payload) + " bytes it holds");
  }
  if (const std::string diff = state_differences(id, expected); !diff.empty()) {
    return Status(Stage::InvalidArgument, "the state file '" + path + "' was saved for another model or setup: " + diff);
  }
  const size_t tokens_at = fixed + header_bytes, kv_at = tokens_at + n_tokens * sizeof(int32_t);
  state.tokens.resize(n_tokens);
  std::memcpy(state.tokens.data(), bytes.data() + tokens_at, n_tokens * sizeof(int32_t));
  bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(kv_at));
  bytes.resize(kv_bytes);
  state.kv = std::move(bytes);
  return state;
}

}  // namespace clport
