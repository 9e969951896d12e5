// Reader for the llama.cpp vocabulary test sets: NAME.gguf.inp holds the inputs, each followed
// by a newline and a line "__ggml_vocab_test__"; NAME.gguf.out holds one line of space-separated
// token ids per input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clport::testing {

struct VocabTestCase {
  std::string input;
  std::vector<int32_t> expected;
};

// The shared test-data directory for vocabularies (CLPORT_SHARED_DIR/testdata/vocab).
std::string vocab_dir();

// Splits an .inp file's content into inputs. On a format problem, returns false and sets
// `error`.
bool parse_vocab_inputs(const std::string& content, std::vector<std::string>& inputs,
                        std::string& error);
bool parse_vocab_outputs(const std::string& content, std::vector<std::vector<int32_t>>& outputs,
                         std::string& error);

// Reads both files for `name` (e.g. "ggml-vocab-gpt-2") and pairs them up.
bool load_vocab_cases(const std::string& name, std::vector<VocabTestCase>& cases,
                      std::string& error);

bool read_file(const std::string& path, std::string& content);

}  // namespace clport::testing
