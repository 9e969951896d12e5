// `clport serve`: an OpenAI-compatible HTTP server (tools/serve/). The server listens at once and
// answers /health with 503 while the model loads; --parallel slots share the model's weights, each
// a sequence of the KV cache, batched step by step. SIGINT / SIGTERM refuse new requests, end the
// open streams with an error event and [DONE], and exit 0.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "chat_prompt.h"
#include "common/logger.h"
#include "command_registry.h"
#include "engine_flags.h"
#include "http_server.h"
#include "slot_scheduler.h"

namespace clport::cli {
namespace {

struct ServeFlags {
  EngineFlags engine;
  serve::HttpOptions http;
  int parallel = 4;
  size_t queue_limit = 64;
  int64_t timeout_seconds = 600;
  std::string chat_template;
  int drain_seconds = 5;
  bool quiet = false;
};

// The signal that ended the server, once one came (SIGINT and SIGTERM are blocked in every thread
// and taken by one waiting thread, so no handler runs inside a library call).
class ShutdownSignal {
 public:
  ShutdownSignal() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);  // before any thread starts: they inherit the mask
    signal(SIGPIPE, SIG_IGN);                    // a client that hangs up is a failed write, not a death
    waiter_ = std::thread([this] {
      int sig = 0;
      sigwait(&set_, &sig);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        signal_ = sig;
      }
      cv_.notify_all();
    });
  }
  ~ShutdownSignal() {
    if (signal_ == 0) pthread_kill(waiter_.native_handle(), SIGTERM);  // wake the waiter to end it
    waiter_.join();
    pthread_sigmask(SIG_UNBLOCK, &set_, nullptr);
  }
  int wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return signal_ != 0; });
    return signal_;
  }
  bool arrived() {
    std::lock_guard<std::mutex> lock(mutex_);
    return signal_ != 0;
  }

 private:
  sigset_t set_;
  std::thread waiter_;
  std::mutex mutex_;
  std::condition_variable cv_;
  int signal_ = 0;
};

std::string model_id_of(const std::string& path) { return std::filesystem::path(path).stem().string(); }

serve::ModelFrontend frontend_for(EngineCore& engine, const ChatFormat& format, serve::SlotScheduler& scheduler) {
  serve::ModelFrontend f;
  f.scheduler = &scheduler;
  f.chat_stop_tokens = format.stop_tokens;
  f.n_vocab = engine.tokenizer().n_vocab();
  f.kv_cells_total = uint64_t(scheduler.slots()) * scheduler.context_per_slot();
  // Tokenizer and chat format are read-only here: safe from every HTTP thread at once.
  f.encode_prompt = [&engine, format](const serve::CompletionRequest& r)
      -> std::variant<std::vector<int32_t>, serve::ApiError> {
    const Tokenizer& tok = engine.tokenizer();
    Result<std::vector<int32_t>> ids = std::vector<int32_t>{};
    if (r.chat) {
      ids = encode_conversation(tok, format, r.messages);
    } else if (r.prompt_ids) {
      return *r.prompt_ids;
    } else {
      ids = tok.encode(r.prompt_text, tok.add_bos_default(), /*parse_special=*/true);
    }
    if (!ids.ok()) {
      return serve::ApiError{400, "the prompt could not be tokenized: " + ids.status().message(),
                             "invalid_request_error", r.chat ? "messages" : "prompt", "invalid_prompt"};
    }
    return std::move(ids).value();
  };
  return f;
}

int serve_main(ServeFlags& f) {
  ShutdownSignal shutdown;
  serve::ServerMetrics metrics;

  if (f.http.model_id.empty()) f.http.model_id = model_id_of(f.engine.options.model_path);
  f.http.request_timeout = std::chrono::seconds(f.timeout_seconds);
  // Every slot's stream holds a connection; leave room for the queue and quick requests.
  f.http.threads = f.parallel + static_cast<int>(std::min<size_t>(f.queue_limit, 256)) + 4;
  serve::HttpServer http(f.http, metrics);
  auto port = http.bind();
  if (!port.ok()) return report_failure("serve", port.status());
  std::fprintf(stderr, "clport serve: listening on http://%s:%d\n", f.http.host.c_str(), port.value());
  std::fflush(stderr);
  std::thread listener([&] { http.listen(); });
  auto stop_http = [&] {
    http.stop();
    listener.join();
  };

  EngineOptions options = f.engine.resolved();
  options.model.n_seq = static_cast<uint32_t>(f.parallel);
  // The model loads while /health answers 503; a signal meanwhile ends the load at its next step.
  std::atomic<bool> loaded{false};
  std::thread load_watch([&] {
    while (!loaded) {
      if (shutdown.arrived()) {
        std::fprintf(stderr, "clport serve: stopped while loading the model\n");
        http.stop();
        std::_Exit(0);  // nothing is open for writing: the caches write through temporary files
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  auto engine = EngineCore::open(options, terminal_progress_bar());
  loaded = true;
  load_watch.join();
  if (!engine.ok()) {
    stop_http();
    return report_failure("serve", engine.status());
  }
  EngineCore& e = *engine.value();
  auto format = choose_chat_format(e, f.chat_template, /*no_bos=*/false);
  if (!format.ok()) {
    stop_http();
    return report_failure("serve", format.status());
  }
  std::fprintf(stderr, "%s\n", chat_format_line(format.value()).c_str());
  // One line per request on stderr (id, tokens, times; never the prompt unless --log-prompts).
  // Set after the load, which applies the policy's log level.
  if (!f.quiet && logger("serve")->level() > spdlog::level::info) logger("serve")->set_level(spdlog::level::info);
  serve::SlotScheduler scheduler(e, metrics, {f.queue_limit});
  http.set_model(frontend_for(e, format.value(), scheduler));
  const std::string loading = e.device_start() == EngineCore::DeviceStart::Loading
                                  ? " (" + e.background_device() +
                                        " builds its programs in the background; the slots move there once it is ready)"
                                  : "";
  std::fprintf(stderr, "clport serve: ready: model '%s' on %s%s, %u slots of %u tokens\n", f.http.model_id.c_str(),
               e.backend().name().c_str(), loading.c_str(), scheduler.slots(), scheduler.context_per_slot());
  std::fflush(stderr);

  const int sig = shutdown.wait();
  std::fprintf(stderr, "clport serve: %s: ending %d open streams and stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM",
               http.open_streams());
  http.refuse_new_requests();
  scheduler.shutdown();
  // The streams' last events are queued: give their threads a moment to send them.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(f.drain_seconds);
  while (http.open_streams() > 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop_http();
  std::fprintf(stderr, "clport serve: stopped\n");
  return 0;
}

const RegisterCommand kRegisterServe{
    {"serve", "Serve a GGUF model over HTTP with OpenAI's API (chat and text completions, streaming)",
     [](CLI::App& app) {
       auto flags = std::make_shared<ServeFlags>();
       // A server's slots each hold a context: 4096 tokens each unless -c says otherwise.
       flags->engine.options.model.n_ctx = 4096;
       flags->engine.cpu_first_command = true;
       flags->engine.add_to(app);
       app.add_option("--host", flags->http.host, "address to listen on (127.0.0.1: this machine only)");
       app.add_option("--port", flags->http.port, "TCP port (0: any free port, printed at start)")
           ->transform(integer_range(0, 65535));
       app.add_option("--parallel", flags->parallel,
                      "slots: conversations generated at once, batched step by step (each holds -c tokens "
                      "of KV cache)")
           ->transform(integer_range(1, kMaxSequences));
       app.add_option("--queue", flags->queue_limit, "requests that may wait for a slot; more get 429")
           ->transform(integer_range(1, 100000));
       app.add_option("--timeout", flags->timeout_seconds,
                      "seconds a request may take, waiting included; past it the request ends with an error")
           ->transform(integer_range(1, 86400 * 7));
       app.add_option("--api-key", flags->http.api_key,
                      "require 'Authorization: Bearer KEY' on every route but /health");
       app.add_option("--max-body", flags->http.max_body_bytes,
                      "largest request body (bytes, or with a unit: 512K, 8M); larger ones get 413")
           ->transform(CLI::AsSizeValue(false));
       app.add_option("--alias", flags->http.model_id,
                      "the model's name in /v1/models and in requests (default: the file name without .gguf)");
       app.add_option("--chat-template", flags->chat_template,
                      "chat format to use instead of the file's: " + chat_family_names());
       app.add_flag("--quiet", flags->quiet, "no log line per request");
       app.add_flag("--log-prompts", flags->http.log_prompts, "log each request's body (off: prompts stay private)");
       return [flags]() { return serve_main(*flags); };
     }}};

}  // namespace
}  // namespace clport::cli
