// `clport bench ops|e2e ...`: the benchmark harness. Each benchmark lives in its own file and
// registers itself with RegisterBenchCommand.
#include <map>

#include "command_registry.h"

namespace clport::cli {

std::vector<Command>& bench_registry() {
  static std::vector<Command> commands;
  return commands;
}

namespace {

const RegisterCommand kRegisterBench{
    {"bench", "Benchmarks: ops (kernels, bandwidth) and e2e (text generation)", [](CLI::App& app) {
       app.require_subcommand(1);
       auto runners = std::make_shared<std::map<CLI::App*, std::function<int()>>>();
       for (auto& command : bench_registry()) {
         CLI::App* sub = app.add_subcommand(command.name, command.description);
         (*runners)[sub] = command.setup(*sub);
       }
       return [runners]() {
         for (auto& [sub, run] : *runners) {
           if (sub->parsed()) return run();
         }
         return 1;
       };
     }}};

}  // namespace
}  // namespace clport::cli
