// --json output of the sub-commands (run, check, info; devices and bench have their own): one
// document on stdout, 2-space indent, bytes that are not UTF-8 (driver strings, model text)
// replaced rather than failing. The schemas are in the README ("JSON output").
#pragma once

#include <iostream>

#include <nlohmann/json.hpp>

namespace clport::cli {

inline void print_json(const nlohmann::json& doc) {
  std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

}  // namespace clport::cli
