// An error as the OpenAI API reports it: an HTTP status and the body
// {"error": {"message", "type", "param", "code"}}, so client libraries raise their usual exceptions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace clport::serve {

struct ApiError {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
  std::string param;  // the request field at fault ("" = none)
  std::string code;   // a stable machine-readable name ("" = none)

  nlohmann::json body() const {
    auto or_null = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
    return {{"error", {{"message", message}, {"type", type}, {"param", or_null(param)}, {"code", or_null(code)}}}};
  }
};

inline ApiError invalid_field(const std::string& param, const std::string& message) {
  return ApiError{400, message, "invalid_request_error", param, "invalid_value"};
}

}  // namespace clport::serve
