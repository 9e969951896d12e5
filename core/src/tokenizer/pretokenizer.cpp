// PCRE2-backed splitting for the pre-tokenizer rules (see pretokenizer.h).
#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenizer/pretokenizer.h"

#include <pcre2.h>

#include "tokenizer/utf8.h"

namespace clport::tok {

struct PreTokenizer::Compiled {
  std::string source;
  pcre2_code* code = nullptr;
  ~Compiled() { pcre2_code_free(code); }
};

namespace {

std::string pcre2_message(int error_code) {
  PCRE2_UCHAR buffer[256];
  if (pcre2_get_error_message(error_code, buffer, sizeof(buffer)) < 0) {
    return "PCRE2 error " + std::to_string(error_code);
  }
  return reinterpret_cast<const char*>(buffer);
}

// Match data sized for the pattern, released when the split finishes.
struct MatchData {
  explicit MatchData(const pcre2_code* code)
      : data(pcre2_match_data_create_from_pattern(code, nullptr)) {}
  ~MatchData() { pcre2_match_data_free(data); }
  MatchData(const MatchData&) = delete;
  MatchData& operator=(const MatchData&) = delete;
  pcre2_match_data* data;
};

// Cuts `piece` into matches of `code` and the gaps between them.
Status split_piece(const pcre2_code* code, const std::string& source, std::string_view piece,
                   std::vector<std::string_view>& out) {
  MatchData md(code);
  if (md.data == nullptr) return Status(Stage::OutOfMemory, "cannot allocate PCRE2 match data");
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(piece.data());
  size_t pos = 0;
  size_t emitted = 0;  // end of what has been appended so far
  while (pos < piece.size()) {
    const int rc = pcre2_match(code, subject, piece.size(), pos, 0, md.data, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      return Status(Stage::Internal, "pre-tokenizer regex '" + source +
                                         "' failed: " + pcre2_message(rc));
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(md.data);
    const size_t start = ovector[0];
    const size_t end = ovector[1];
    if (end <= start) {  // empty match (not produced by the shipped rules): step over a char
      pos = start + utf8_char_length_at(piece, start);
      continue;
    }
    if (start > emitted) out.push_back(piece.substr(emitted, start - emitted));
    out.push_back(piece.substr(start, end - start));
    emitted = end;
    pos = end;
  }
  if (emitted < piece.size()) out.push_back(piece.substr(emitted));
  return Status();
}

}  // namespace

PreTokenizer::~PreTokenizer() = default;

Result<std::unique_ptr<PreTokenizer>> PreTokenizer::create(const PreTokenizerRules& rules) {
  std::unique_ptr<PreTokenizer> pre(new PreTokenizer());
  pre->ignore_merges_ = rules.ignore_merges;
  for (const std::string& source : rules.regexes) {
    auto compiled = std::make_unique<Compiled>();
    compiled->source = source;
    int error_code = 0;
    PCRE2_SIZE error_offset = 0;
    // MATCH_INVALID_UTF: invalid UTF-8 in user text is skipped by the matcher instead of
    // failing the whole match, so it ends up in a gap piece and is still encoded byte by byte.
    compiled->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(source.data()), source.size(),
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error_code,
                                   &error_offset, nullptr);
    if (compiled->code == nullptr) {
      return Status(Stage::Internal, "pre-tokenizer '" + rules.name + "': regex '" + source +
                                         "' does not compile at offset " +
                                         std::to_string(error_offset) + ": " +
                                         pcre2_message(error_code));
    }
    // JIT is only a speed-up; the interpreter gives the same matches if it is unavailable.
    (void)pcre2_jit_compile(compiled->code, PCRE2_JIT_COMPLETE);
    pre->regexes_.push_back(std::move(compiled));
  }
  return pre;
}

Status PreTokenizer::split(std::string_view text, std::vector<std::string_view>& pieces) const {
  std::vector<std::string_view> current{text};
  std::vector<std::string_view> next;
  for (const auto& compiled : regexes_) {
    next.clear();
    for (std::string_view piece : current) {
      CLPORT_RETURN_IF_ERROR(split_piece(compiled->code, compiled->source, piece, next));
    }
    current.swap(next);
  }
  for (std::string_view piece : current) {
    if (!piece.empty()) pieces.push_back(piece);
  }
  return Status();
}

}  // namespace clport::tok
