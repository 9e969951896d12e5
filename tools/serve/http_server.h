// The HTTP side of `clport serve` (cpp-httplib: a thread per connection from a pool, which suits
// a few dozen long streams on a phone or a desktop): the OpenAI routes, the API key, the body
// limit, errors as OpenAI's JSON, and streams as server-sent events. The model loads after the
// server listens: until set_model(), /health answers 503 and completions are refused with 503.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "api_error.h"
#include "clport/status.h"
#include "completion_request.h"
#include "server_metrics.h"
#include "slot_scheduler.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace clport::serve {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port (bind() says which)
  std::string api_key;  // "": no key asked for
  size_t max_body_bytes = 8u << 20;
  std::chrono::seconds request_timeout{600};
  std::string model_id;  // the name GET /v1/models lists and requests must use
  int threads = 32;      // connections served at once (streams hold one each)
  bool log_prompts = false;
};

// The loaded model as the routes use it.
struct ModelFrontend {
  SlotScheduler* scheduler = nullptr;
  // The request's prompt as tokens (chat: its messages in the chat format).
  std::function<std::variant<std::vector<int32_t>, ApiError>(const CompletionRequest&)> encode_prompt;
  std::vector<int32_t> chat_stop_tokens;  // the chat format's end of turn
  int32_t n_vocab = 0;
  uint64_t kv_cells_total = 0;
};

class HttpServer {
 public:
  HttpServer(HttpOptions options, ServerMetrics& metrics);
  ~HttpServer();
  // Binds the listening socket; returns the port.
  Result<int> bind();
  // Serves until stop(); false when the server could not run.
  bool listen();
  void set_model(ModelFrontend frontend);
  // New completions are refused (503) from now on; requests already running go on.
  void refuse_new_requests() { refusing_ = true; }
  // Streams not yet ended (a shutdown waits for them to send their last event).
  int open_streams() const { return open_streams_; }
  void stop();

 private:
  void add_routes();
  void handle_completion(const httplib::Request& req, httplib::Response& res, bool chat);

  HttpOptions options_;
  ServerMetrics& metrics_;
  std::unique_ptr<httplib::Server> server_;
  ModelFrontend frontend_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> refusing_{false};
  std::atomic<int> open_streams_{0};
  std::atomic<uint64_t> next_id_{0};
  int64_t created_ = 0;  // the model's "created" time: when the server started
};

}  // namespace clport::serve
