// Sub-commands register themselves here (one file per command), so adding a command never edits
// main.cpp. Each command adds its CLI11 sub-app and returns the exit code when it ran.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace clport::cli {

struct Command {
  std::string name;
  std::string description;
  // Adds options to `sub`; returns the function to run once parsing succeeded.
  std::function<std::function<int()>(CLI::App& sub)> setup;
};

std::vector<Command>& command_registry();

struct RegisterCommand {
  explicit RegisterCommand(Command command) { command_registry().push_back(std::move(command)); }
};

}  // namespace clport::cli

namespace clport::cli {

// `clport bench <what>`: benchmarks register here the same way (bench_e2e.cpp, bench_ops.cpp).
std::vector<Command>& bench_registry();

struct RegisterBenchCommand {
  explicit RegisterBenchCommand(Command command) { bench_registry().push_back(std::move(command)); }
};

}  // namespace clport::cli
