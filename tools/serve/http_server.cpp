#include "http_server.h"

#include <httplib.h>

#include <ctime>
#include <random>

#include "common/logger.h"
#include "connection_watch.h"
#include "openai_responses.h"

namespace clport::serve {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// How long an answer waits for the scheduler before it looks whether its client is still there.
constexpr std::chrono::milliseconds kHangUpCheck{100};

void send_error(httplib::Response& res, const ApiError& e) {
  res.status = e.status;
  res.set_content(dump_json(e.body()), "application/json");
}

void send_json(httplib::Response& res, const json& doc) {
  res.status = 200;
  res.set_content(dump_json(doc), "application/json");
}

// The OpenAI error for a status httplib answered itself (no route, body too large, bad request line).
ApiError error_for_status(int status, const httplib::Request& req, size_t max_body) {
  switch (status) {
    case 404:
      return {404, "no route " + req.method + " " + req.path +
                       " (this server answers POST /v1/chat/completions, POST /v1/completions, GET /v1/models, "
                       "GET /health, GET /metrics)",
              "invalid_request_error", "", "not_found"};
    case 405:
      return {405, "method " + req.method + " is not allowed on " + req.path, "invalid_request_error", "",
              "method_not_allowed"};
    case 413:
      return {413, "the request body is larger than the server's limit of " + std::to_string(max_body) +
                       " bytes (--max-body)",
              "invalid_request_error", "", "payload_too_large"};
    default:
      return {status, "the HTTP request could not be served (status " + std::to_string(status) + ")",
              status >= 500 ? "server_error" : "invalid_request_error", "", ""};
  }
}

std::string random_hex(size_t n) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char* digits = "0123456789abcdef";
  std::string s(n, '0');
  for (auto& c : s) c = digits[rng() & 15];
  return s;
}

// One stream's state between the calls of its content provider.
struct StreamState {
  std::shared_ptr<RequestChannel> channel;
  ResponseHeader header;
  bool include_usage = false;
  bool logprobs = false;
  bool first = true;
  bool ended = false;
};

// Writes the events as server-sent events; false when the client went away.
bool write_events(StreamState& st, std::vector<RequestEvent>& events, httplib::DataSink& sink) {
  auto put = [&](const std::string& s) { return sink.write(s.data(), s.size()); };
  for (auto& e : events) {
    switch (e.kind) {
      case RequestEvent::Kind::Text:
        if (!put(sse_event(chunk_json(st.header, e.text, st.first, "", logprobs_json(st.logprobs, e.logprobs))))) {
          return false;
        }
        st.first = false;
        break;
      case RequestEvent::Kind::Done:
        if (st.first && !put(sse_event(chunk_json(st.header, "", true, "")))) return false;
        if (!put(sse_event(chunk_json(st.header, "", false, e.finish_reason)))) return false;
        if (st.include_usage && !put(sse_event(usage_chunk_json(st.header, e.usage)))) return false;
        if (!put("data: [DONE]\n\n")) return false;
        st.ended = true;
        return true;
      case RequestEvent::Kind::Failed:
        // OpenAI's clients raise an error event as an API error.
        if (!put(sse_event(e.error.body())) || !put("data: [DONE]\n\n")) return false;
        st.ended = true;
        return true;
    }
  }
  return true;
}

}  // namespace

HttpServer::HttpServer(HttpOptions options, ServerMetrics& metrics)
    : options_(std::move(options)), metrics_(metrics), server_(std::make_unique<httplib::Server>()) {
  created_ = static_cast<int64_t>(std::time(nullptr));
  const int threads = std::max(2, options_.threads);
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_->set_payload_max_length(options_.max_body_bytes);
  add_routes();
}

HttpServer::~HttpServer() = default;

Result<int> HttpServer::bind() {
  const int port = options_.port == 0 ? server_->bind_to_any_port(options_.host)
                                      : (server_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port < 0) {
    return Status(Stage::InvalidArgument, "cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                                              " (the address is in use, not local, or needs privileges)");
  }
  return port;
}

bool HttpServer::listen() { return server_->listen_after_bind(); }

void HttpServer::stop() { server_->stop(); }

void HttpServer::set_model(ModelFrontend frontend) {
  frontend_ = std::move(frontend);
  ready_ = true;
}

void HttpServer::add_routes() {
  httplib::Server& s = *server_;
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (options_.api_key.empty() || req.path == "/health") return httplib::Server::HandlerResponse::Unhandled;
    const std::string auth = req.get_header_value("Authorization");
    if (auth == "Bearer " + options_.api_key) return httplib::Server::HandlerResponse::Unhandled;
    send_error(res, ApiError{401,
                             auth.empty() ? "no API key: send the header 'Authorization: Bearer KEY'"
                                          : "the API key is not the one this server was started with",
                             "invalid_request_error", "", "invalid_api_key"});
    return httplib::Server::HandlerResponse::Handled;
  });
  s.set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;  // our own error
        send_error(res, error_for_status(res.status, req, options_.max_body_bytes));
        return httplib::Server::HandlerResponse::Handled;
      }));
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_error(res, ApiError{500, "internal error: " + what, "server_error", "", "internal_error"});
  });
  s.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    metrics_.count_response(res.status);
    logger("serve")->info("{} {} {} from {}", req.method, req.path, res.status, req.remote_addr);
  });

  s.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    if (!ready_) {
      send_error(res, ApiError{503, "loading the model", "server_error", "", "loading"});
    } else {
      send_json(res, {{"status", "ok"}});
    }
  });
  auto models = [this](const httplib::Request&, httplib::Response& res) {
    send_json(res, {{"object", "list"},
                    {"data", json::array({{{"id", options_.model_id},
                                           {"object", "model"},
                                           {"created", created_},
                                           {"owned_by", "clport"}}})}});
  };
  s.Get("/v1/models", models);
  s.Get("/models", models);
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    const uint64_t slots = ready_ ? frontend_.scheduler->slots() : 0;
    res.set_content(metrics_.prometheus_text(slots, ready_ ? frontend_.kv_cells_total : 0),
                    "text/plain; version=0.0.4");
  });
  for (const bool chat : {true, false}) {
    auto handler = [this, chat](const httplib::Request& req, httplib::Response& res) {
      handle_completion(req, res, chat);
    };
    s.Post(chat ? "/v1/chat/completions" : "/v1/completions", handler);
    s.Post(chat ? "/chat/completions" : "/completions", handler);
  }
}

void HttpServer::handle_completion(const httplib::Request& req, httplib::Response& res, bool chat) {
  if (!ready_) return send_error(res, ApiError{503, "loading the model; retry when GET /health answers 200",
                                               "server_error", "", "loading"});
  if (refusing_) return send_error(res, ApiError{503, "the server is shutting down", "server_error", "", "shutting_down"});
  auto parsed = parse_completion_request(req.body, chat, frontend_.n_vocab, std::random_device{}());
  if (auto* e = std::get_if<ApiError>(&parsed)) return send_error(res, *e);
  CompletionRequest& request = std::get<CompletionRequest>(parsed);
  if (request.model != options_.model_id) {
    return send_error(res, ApiError{404, "the model '" + request.model + "' is not served here; this server runs '" +
                                             options_.model_id + "'",
                                    "invalid_request_error", "model", "model_not_found"});
  }
  auto prompt = frontend_.encode_prompt(request);
  if (auto* e = std::get_if<ApiError>(&prompt)) return send_error(res, *e);

  Job job;
  job.id = (chat ? "chatcmpl-" : "cmpl-") + random_hex(8) + std::to_string(next_id_++);
  job.prompt = std::move(std::get<std::vector<int32_t>>(prompt));
  job.max_tokens = request.max_tokens;
  job.sampling = request.sampling;
  job.stop = request.stop;
  if (chat) job.stop_tokens = frontend_.chat_stop_tokens;
  job.deadline = Clock::now() + options_.request_timeout;
  job.top_logprobs = request.top_logprobs;
  job.ignore_eos = request.ignore_eos;
  if (options_.log_prompts) logger("serve")->info("{}: prompt {}", job.id, req.body);
  ResponseHeader header{job.id, options_.model_id, static_cast<int64_t>(std::time(nullptr)), chat};

  auto submitted = frontend_.scheduler->submit(std::move(job));
  if (auto* e = std::get_if<ApiError>(&submitted)) return send_error(res, *e);
  std::shared_ptr<RequestChannel> channel = std::get<std::shared_ptr<RequestChannel>>(submitted);
  auto watch = std::make_shared<ConnectionWatch>(req);

  if (!request.stream) {
    std::string text;
    std::vector<TokenLogprob> logprobs;
    for (;;) {
      std::vector<RequestEvent> events;
      channel->wait(events, kHangUpCheck);
      if (watch->peer_closed()) {
        channel->cancel();  // nobody will read the answer: its slot is freed before the next step
        return send_error(res, ApiError{499, "cancelled by the client", "invalid_request_error", "", "cancelled"});
      }
      for (auto& e : events) {
        if (e.kind == RequestEvent::Kind::Text) {
          text += e.text;
          logprobs.insert(logprobs.end(), e.logprobs.begin(), e.logprobs.end());
        } else if (e.kind == RequestEvent::Kind::Done) {
          return send_json(res, completion_json(header, text, e.finish_reason, e.usage,
                                                logprobs_json(request.top_logprobs >= 0, logprobs)));
        } else {
          return send_error(res, e.error);
        }
      }
    }
  }

  auto state = std::make_shared<StreamState>();
  state->channel = channel;
  state->header = header;
  state->include_usage = request.include_usage;
  state->logprobs = request.top_logprobs >= 0;
  ++open_streams_;
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [state, watch](size_t, httplib::DataSink& sink) {
        std::vector<RequestEvent> events;
        // While the prompt is evaluated nothing is written, so a write cannot tell the hang-up.
        const bool idle = !state->channel->wait(events, kHangUpCheck);
        if ((idle && watch->peer_closed()) || !write_events(*state, events, sink)) {
          state->channel->cancel();  // the client went away: its slot is freed before the next step
          return false;
        }
        if (state->ended) sink.done();
        return true;
      },
      [this, state](bool) {
        if (!state->ended) state->channel->cancel();
        --open_streams_;
      });
}

}  // namespace clport::serve
