// `clport info`: the hyper-parameters as the model will run with them (what the architecture's
// reader makes of the keys, defaults included).
#pragma once

#include <ostream>

#include "gguf/gguf.h"

namespace clport::cli {

void print_hparams(const GgufFile& file, std::ostream& out);

}  // namespace clport::cli
