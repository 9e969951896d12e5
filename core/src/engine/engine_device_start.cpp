// The CPU-first start: a device that was never set up with this driver and clport version spends
// its first start building and self-testing every program (about 100 s on PoCL with 2 cores).
// The engine answers on the CPU path meanwhile; a thread finishes the device (self-test, backend,
// model, one warm-up step so that the kernels' first launches are compiled too), and at the next
// step boundary after it is ready the engine moves there: every sequence's cached tokens are
// evaluated again on the device and the generation goes on, no token repeated or lost.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "common/logger.h"
#include "engine/engine_backend.h"

namespace clport {
namespace {

std::atomic<int> g_detached_loads{0};

double seconds_since_start(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int detached_device_loads() { return g_detached_loads.load(); }

struct EngineCore::DeviceLoad {
  // Input (read by the thread only).
  std::unique_ptr<detail::PreparedDevice> device;
  std::shared_ptr<GgufFile> file;
  ModelOptions llama;
  std::function<void()> before_load;
  std::string device_name;

  // Output, under mutex.
  std::mutex mutex;
  bool done = false;
  bool detached = false;  // the engine is gone: the thread cleans up after itself
  Status status;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<LlamaModel> model;
  double seconds = 0;
  std::thread thread;
};

Status EngineCore::open_backend(const Progress& progress) {
  std::unique_ptr<detail::PreparedDevice> deferred;
  const bool cpu_first = options_.cpu_first_start && !options_.profiling;
  auto backend = detail::create_checked_backend(options_, cpu_first ? &deferred : nullptr);
  if (!backend.ok()) return backend.status();
  backend_ = std::move(backend.value());
  if (deferred) {
    auto load = std::make_shared<DeviceLoad>();
    load->device_name = deferred->context->info().name;
    load->device = std::move(deferred);
    load->file = file_;
    load->llama = options_.model;
    load->before_load = options_.before_background_device_load;
    logger("engine")->info("{} has not been set up with this driver and clport version: its programs build in the "
                           "background while the CPU path starts; the work moves to it once it is ready",
                           load->device_name);
    start_device_load(std::move(load));
  }
  return load_model(progress);
}

void EngineCore::start_device_load(std::shared_ptr<DeviceLoad> load) {
  device_load_ = load;
  load->thread = std::thread([load] {
    const auto t0 = std::chrono::steady_clock::now();
    if (load->before_load) load->before_load();
    Status status;
    std::unique_ptr<Backend> backend;
    std::unique_ptr<LlamaModel> model;
    auto created = detail::finish_device(std::move(*load->device));
    load->device.reset();
    if (!created.ok()) {
      status = created.status();
    } else {
      backend = std::move(created.value());
      auto loaded = LlamaModel::load(load->file, *backend, load->llama);
      if (!loaded.ok()) {
        status = loaded.status();
      } else {
        model = std::move(loaded.value());
        // The rows it writes are overwritten when the sequences are evaluated again after the move.
        status = model->warm_up_kernels();
      }
    }
    if (!status.ok()) {
      model.reset();
      backend.reset();
    }
    std::lock_guard<std::mutex> lock(load->mutex);
    load->status = status;
    load->seconds = seconds_since_start(t0);
    load->done = true;
    if (load->detached) {
      // The model before its backend, as the engine releases them.
      model.reset();
      backend.reset();
      --g_detached_loads;
      return;
    }
    load->backend = std::move(backend);
    load->model = std::move(model);
  });
}

EngineCore::DeviceStart EngineCore::device_start() const {
  if (!device_load_) {
    return moved_to_device_ ? DeviceStart::Moved : device_load_failed_ ? DeviceStart::Failed : DeviceStart::None;
  }
  std::lock_guard<std::mutex> lock(device_load_->mutex);
  if (!device_load_->done) return DeviceStart::Loading;
  return device_load_->status.ok() ? DeviceStart::Ready : DeviceStart::Failed;
}

std::string EngineCore::background_device() const { return device_load_ ? device_load_->device_name : std::string(); }

Status EngineCore::move_to_device_if_ready(bool* moved) {
  *moved = false;
  if (!device_load_) return Status::ok_status();
  {
    std::lock_guard<std::mutex> lock(device_load_->mutex);
    if (!device_load_->done) return Status::ok_status();
  }
  std::shared_ptr<DeviceLoad> load = std::move(device_load_);
  if (load->thread.joinable()) load->thread.join();  // done: it returns at once
  if (!load->status.ok()) {
    device_load_failed_ = true;
    logger("engine")->warn("{} could not be loaded in the background ({}); staying on the CPU path",
                           load->device_name, load->status.to_string());
    return Status::ok_status();
  }
  // The CPU path's model before its backend; then the device's take their place.
  model_.reset();
  backend_.reset();
  backend_ = std::move(load->backend);
  model_ = std::move(load->model);
  moved_to_device_ = true;
  *moved = true;
  uint64_t held = 0;
  for (const auto& c : cached_) held += c.size();
  logger("engine")->info("moved to {} ({:.1f} s in the background); evaluating the {} cached tokens there",
                         load->device_name, load->seconds, held);
  Status again = reevaluate_sequences(static_cast<uint32_t>(cached_.size()));
  if (again.ok() || again.stage() == Stage::InvalidArgument) return again;
  // The device failed on its first real work: back to the CPU path, as a failure mid-run does.
  std::string note;
  CLPORT_RETURN_IF_ERROR(move_to_cpu_path(again, "the " + std::to_string(held) + " cached tokens", &note));
  moved_to_device_ = false;
  *moved = false;
  return reevaluate_sequences(static_cast<uint32_t>(cached_.size()));
}

Status EngineCore::wait_for_device() {
  if (!device_load_) return Status::ok_status();
  // The thread sets `done` last: once joined, the load is over.
  if (device_load_->thread.joinable()) device_load_->thread.join();
  bool moved = false;
  return move_to_device_if_ready(&moved);
}

Status EngineCore::device_move_boundary(GenerationStats& stats) {
  bool moved = false;
  CLPORT_RETURN_IF_ERROR(move_to_device_if_ready(&moved));
  if (moved) {
    stats.tokens_before_device_move = stats.generated_tokens;
    stats.device_move = "the first " + std::to_string(stats.generated_tokens) +
                        " generated tokens came from the CPU path, the rest from " + backend_->name() +
                        " (loaded in the background)";
  }
  return Status::ok_status();
}

void EngineCore::release_device_load() {
  if (!device_load_) return;
  std::lock_guard<std::mutex> lock(device_load_->mutex);
  if (device_load_->done) {
    if (device_load_->thread.joinable()) device_load_->thread.join();  // finished: returns at once
    return;
  }
  device_load_->detached = true;
  ++g_detached_loads;
  device_load_->thread.detach();
}

}  // namespace clport
