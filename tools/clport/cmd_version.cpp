// `clport version`: prints the clport version.
#include <iostream>

#include "common/version.h"
#include "command_registry.h"

namespace clport::cli {
namespace {
const RegisterCommand kRegisterVersion{{"version", "Print the clport version", [](CLI::App&) {
                                   return []() {
                                     std::cout << "clport " << CLPORT_VERSION_STRING << "\n";
                                     return 0;
                                   };
                                 }}};
}  // namespace
}  // namespace clport::cli
