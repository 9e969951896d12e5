// `clport`: the command-line program. Sub-commands live in their own files and register
// themselves in command_registry(); this file only parses and dispatches.
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>

#include <cstdio>

#include "engine/engine_core.h"
#include "clport/log.h"
#include "command_registry.h"
#include "output_files.h"

namespace clport::cli {
std::vector<Command>& command_registry() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace clport::cli

int main(int argc, char** argv) {
  using namespace clport::cli;
  CLI::App app{"clport: machine-learning inference on any OpenCL device"};
  app.require_subcommand(1);
  std::string log_level;
  const std::vector<std::string> levels = {"trace", "debug", "info", "warn", "error", "critical", "off"};
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember(levels));

  auto& commands = command_registry();
  std::sort(commands.begin(), commands.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  std::map<CLI::App*, std::function<int()>> runners;
  for (auto& command : commands) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    runners[sub] = command.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; every usage error (unknown option, value out of range, ...) exits 2, the
    // code the README documents, rather than CLI11's own 100+ numbers.
    return app.exit(e) == 0 ? 0 : 2;
  }
  // The environment's level is refused as the flag's is (a usage error), not replaced by a default.
  if (const char* env = std::getenv("CLPORT_LOG_LEVEL");
      env != nullptr && std::find(levels.begin(), levels.end(), env) == levels.end()) {
    std::cerr << "clport: CLPORT_LOG_LEVEL '" << env
              << "' is not a log level; allowed: trace, debug, info, warn, error, critical, off\n";
    return 2;
  }
  if (!log_level.empty()) clport::set_log_level(log_level);
  try {
    for (auto& [sub, run] : runners) {
      if (!sub->parsed()) continue;
      const int rc = finish_standard_output(sub->get_name(), run());
      // A device still building in the background for an engine that is gone (a CPU-first start
      // that ended before the device was ready): its compiler cannot be torn down mid-build by
      // the exit handlers, so leave without them; what it built so far is in the cache.
      if (clport::detached_device_loads() > 0) {
        std::cout.flush();
        std::cerr.flush();
        std::fflush(nullptr);
        std::_Exit(rc);
      }
      return rc;
    }
  } catch (const std::exception& e) {
    // Commands report errors as Status; this is the last line of defence, never expected.
    std::cerr << "clport: internal error: " << e.what() << "\n";
    return 70;
  }
  return 1;
}
