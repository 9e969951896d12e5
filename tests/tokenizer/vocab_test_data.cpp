#include "vocab_test_data.h"

#include <fstream>
#include <sstream>

namespace clport::testing {

namespace {
constexpr const char kSeparator[] = "__ggml_vocab_test__";
}

std::string vocab_dir() { return std::string(CLPORT_SHARED_DIR) + "/testdata/vocab"; }

bool read_file(const std::string& path, std::string& content) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  content = ss.str();
  return true;
}

bool parse_vocab_inputs(const std::string& content, std::vector<std::string>& inputs,
                        std::string& error) {
  const std::string sep = kSeparator;
  size_t pos = 0;
  while (pos < content.size()) {
    // The next separator that fills a whole line.
    size_t hit = content.find(sep, pos);
    while (hit != std::string::npos &&
           !((hit == 0 || content[hit - 1] == '\n') &&
             (hit + sep.size() == content.size() || content[hit + sep.size()] == '\n'))) {
      hit = content.find(sep, hit + 1);
    }
    if (hit == std::string::npos) {
      error = "text after the last separator at byte " + std::to_string(pos);
      return false;
    }
    // The input is everything before the newline that ends the line preceding the separator.
    if (hit == pos) {
      error = "separator at byte " + std::to_string(hit) + " is not preceded by a newline";
      return false;
    }
    inputs.push_back(content.substr(pos, hit - 1 - pos));
    pos = hit + sep.size() + 1;
  }
  return true;
}

bool parse_vocab_outputs(const std::string& content, std::vector<std::vector<int32_t>>& outputs,
                         std::string& error) {
  size_t pos = 0;
  while (pos < content.size()) {
    size_t eol = content.find('\n', pos);
    if (eol == std::string::npos) eol = content.size();
    std::istringstream line(content.substr(pos, eol - pos));
    std::vector<int32_t> ids;
    long long id = 0;
    while (line >> id) ids.push_back(static_cast<int32_t>(id));
    if (!line.eof()) {
      error = "line " + std::to_string(outputs.size() + 1) + " is not a list of token ids";
      return false;
    }
    outputs.push_back(std::move(ids));
    pos = eol + 1;
  }
  return true;
}

bool load_vocab_cases(const std::string& name, std::vector<VocabTestCase>& cases,
                      std::string& error) {
  const std::string base = vocab_dir() + "/" + name + ".gguf";
  std::string inp;
  std::string out;
  if (!read_file(base + ".inp", inp) || !read_file(base + ".out", out)) {
    error = "cannot read " + base + ".inp/.out (is CLPORT_SHARED_DIR=" +
            std::string(CLPORT_SHARED_DIR) + " complete?)";
    return false;
  }
  std::vector<std::string> inputs;
  std::vector<std::vector<int32_t>> outputs;
  if (!parse_vocab_inputs(inp, inputs, error) || !parse_vocab_outputs(out, outputs, error)) {
    error = base + ": " + error;
    return false;
  }
  if (inputs.size() != outputs.size()) {
    error = base + ": " + std::to_string(inputs.size()) + " inputs but " +
            std::to_string(outputs.size()) + " expected outputs";
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    cases.push_back(VocabTestCase{std::move(inputs[i]), std::move(outputs[i])});
  }
  return true;
}

}  // namespace clport::testing
