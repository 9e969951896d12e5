// What both tokenizer fuzz targets check on every input, and how they load the shared
// vocabularies (the llama.cpp test vocabularies in CLPORT_SHARED_DIR/testdata/vocab).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "clport/tokenizer.h"

namespace clport::fuzz {

// NAME.gguf from the shared vocabulary folder, with `adjust` applied to its vocabulary (another
// pre-tokenizer, no space prefix); stops the process when it cannot be loaded.
std::unique_ptr<Tokenizer> load_shared_vocab(const std::string& name,
                                             const std::function<void(Vocab&)>& adjust = {});

// data[0]: bit 0 add BOS, bit 1 parse special tokens; the rest is the text. Encoding must
// succeed with ids in range, decoding (whole and streamed) must give back the text with
// ill-formed UTF-8 replaced, and the text's bytes read as ids must decode without harm.
void check_tokenizer(const Tokenizer& tok, const uint8_t* data, size_t size);

}  // namespace clport::fuzz
