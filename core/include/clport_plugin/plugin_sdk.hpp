// clport plugin SDK: a small header-only C++ layer over plugin_abi.h that makes a plugin an
// ordinary C++ class while keeping every rule of the C ABI:
//  - no exception ever crosses the ABI: every entry is wrapped and turns exceptions into error
//    objects (or a 0 / "unsupported" answer for the functions that cannot report errors);
//  - errors are plugin-owned clport_plugin_error objects freed by release_error;
//  - OpenCL is called only through host->cl.
// It depends on nothing but the C ABI headers and the standard library, so out-of-tree plugins
// can use it from an install.
//
// Writing a plugin:
//   struct MyInstance : clport_plugin_instance { bool supports(const clport_op&) override; ... };
//   struct MyPlugin {
//     static constexpr const char* kName = "mine";
//     static constexpr const char* kVersion = "1.0";
//     static constexpr bool kHasPrepareWeight = false;
//     static int32_t probe(const clport_device_desc& d, const char** reason);
//     static std::unique_ptr<clport_plugin_instance> create(const clport_host&,
//                                                           const clport_device_desc&);
//     // Optional: the settings it reads (typed, checked by the host).
//     static const std::vector<clport_setting_decl>& settings();
//   };
//   CLPORT_DEFINE_PLUGIN(MyPlugin)
//
// Prepared launches: by default the SDK prepares an op by running the instance's enqueue() once
// with a recorder in place of the queue (sdk::set_args and sdk::enqueue capture the kernels, their
// arguments and work sizes) and replays that record each step, so an enqueue() decides its
// kernel and arguments once per plan instead of once per token. Ops whose arguments depend on the
// position (RoPE, the KV stores, attention, a COPY into a cache slot) are instead replayed
// through enqueue() with the step's n_past. An instance whose enqueue() does anything but set
// arguments and launch kernels through the SDK overrides prepare().
#ifndef CLPORT_PLUGIN_SDK_HPP
#define CLPORT_PLUGIN_SDK_HPP

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "clport_plugin/embedded_kernel.h"
#include "clport_plugin/plugin_abi.h"

// The opaque error object of the ABI, defined here for every SDK plugin.
struct clport_plugin_error {
  int32_t code = CLPORT_PLUGIN_ERROR;
  std::string message;
};

// A prepared launch: the SDK's base class behind the opaque ABI handle.
struct clport_launch {
  virtual ~clport_launch() = default;
  virtual void enqueue(const clport_step& step) = 0;
};

// A plugin instance: the SDK's C++ base class behind the opaque ABI handle.
struct clport_plugin_instance {
  virtual ~clport_plugin_instance() = default;
  // Plan time: whether the instance claims the op. Only kind, dtypes, shapes and params may be
  // looked at (buffers can be NULL).
  virtual bool supports(const clport_op& op) = 0;
  // Enqueue on host->queue without waiting; throw clport::sdk::Failure (or anything) on error.
  // Receives ops with dst_position_stride 0 (the SDK applies it).
  virtual void enqueue(const clport_op& op) = 0;
  // Plan time: the launch to replay for op (see the top of this file for the default).
  virtual std::unique_ptr<clport_launch> prepare(const clport_op& op);
  // Optional weight repacking; return nullptr for "use the plain GGUF layout".
  virtual void* prepare_weight(const clport_tensor& /*weight*/) { return nullptr; }
  // Whether nothing this instance does with a layout from prepare_weight (every op it claims on
  // the weight, at any activation row count, fused kinds included) reads the plain weight any
  // more: the host may then free it, and the weight's buffer is NULL in later ops.
  virtual bool owns_weight(const void* /*layout*/) const { return false; }
  virtual void release_layout(void* /*layout*/) {}
  // Plan time: one launch doing what ops[0 .. n) do in order (each was claimed by this
  // instance), or nullptr to let them run as their own launches.
  virtual std::unique_ptr<clport_launch> prepare_group(const clport_op* const* /*ops*/, size_t /*n*/) {
    return nullptr;
  }
  // Plan time, before weights and launches: the scratch buffers (by name) and bytes of each this
  // instance would hold to run op at 1 .. op's activation rows and n_past up to op.n_past. An
  // instance that keeps no scratch leaves it empty.
  virtual std::vector<clport_scratch_need> scratch_needs(const clport_op& /*op*/) { return {}; }

  // The host table the instance was created with (set by the SDK after create()).
  const clport_host* sdk_host = nullptr;
};

namespace clport::sdk {

// Thrown inside a plugin; becomes an error object with this code at the ABI boundary.
class Failure : public std::runtime_error {
 public:
  explicit Failure(const std::string& message, int32_t code = CLPORT_PLUGIN_ERROR)
      : std::runtime_error(message), code_(code) {}
  int32_t code() const { return code_; }

 private:
  int32_t code_;
};

// Raised for an op/shape a plugin does not serve (maps to CLPORT_PLUGIN_UNSUPPORTED).
inline Failure unsupported(const std::string& what) {
  return Failure(what, CLPORT_PLUGIN_UNSUPPORTED);
}

// "CL error -5 in clEnqueueNDRangeKernel(mul_mat)" -- plugins do not link the core's error names.
inline void check_cl(cl_int err, const char* what) {
  if (err == CL_SUCCESS) return;
  const int32_t code = (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
                        err == CL_OUT_OF_HOST_MEMORY)
                           ? CLPORT_PLUGIN_OUT_OF_MEMORY
                           : CLPORT_PLUGIN_ERROR;
  throw Failure("OpenCL error " + std::to_string(err) + " in " + what, code);
}

// ---- error objects ----------------------------------------------------------------------------
inline clport_plugin_error* make_error(int32_t code, const std::string& message) noexcept {
  auto* e = new (std::nothrow) clport_plugin_error;
  if (e == nullptr) return nullptr;  // out of memory: the status code alone must do
  e->code = code;
  try {
    e->message = message;
  } catch (...) {
  }
  return e;
}

// Runs fn(), converting any exception into a status code and (when error != nullptr) an error
// object. The one place where plugin C++ meets the C boundary.
template <typename Fn>
int32_t guarded(clport_plugin_error** error, Fn&& fn) noexcept {
  if (error != nullptr) *error = nullptr;
  int32_t code = CLPORT_PLUGIN_ERROR;
  const char* fallback = "unknown exception in plugin";
  std::string message;
  try {
    fn();
    return CLPORT_PLUGIN_OK;
  } catch (const Failure& f) {
    code = f.code();
    try { message = f.what(); } catch (...) {}
  } catch (const std::bad_alloc&) {
    code = CLPORT_PLUGIN_OUT_OF_MEMORY;
    fallback = "host memory exhausted in plugin";
  } catch (const std::exception& e) {
    try { message = e.what(); } catch (...) {}
  } catch (...) {
  }
  if (error != nullptr) *error = make_error(code, message.empty() ? fallback : message);
  return code;
}

// ---- host services ----------------------------------------------------------------------------
class Host {
 public:
  explicit Host(const clport_host& host) : h_(&host) {}
  const clport_host& raw() const { return *h_; }
  const clport_cl_api& cl() const { return *h_->cl; }
  cl_context context() const { return h_->context; }
  cl_command_queue queue() const { return h_->queue; }
  int32_t precision() const { return h_->precision; }

  // The typed value the policy sets for a declared setting; NULL when it sets none.
  const clport_setting_value* setting(const char* name) const {
    for (size_t i = 0; h_->settings != nullptr && i < h_->n_settings; ++i) {
      if (std::strcmp(h_->settings[i].name, name) == 0) return &h_->settings[i];
    }
    return nullptr;
  }
  bool setting_bool(const char* name, bool fallback) const {
    const clport_setting_value* v = setting(name);
    return v != nullptr ? v->int_value != 0 : fallback;
  }
  // INT, and ENUM: the index of the name the policy wrote.
  int64_t setting_int(const char* name, int64_t fallback) const {
    const clport_setting_value* v = setting(name);
    return v != nullptr ? v->int_value : fallback;
  }
  // TEXT, and ENUM: the name the policy wrote.
  std::string setting_text(const char* name, const std::string& fallback) const {
    const clport_setting_value* v = setting(name);
    return v != nullptr && v->text_value != nullptr ? v->text_value : fallback;
  }

  void log(int32_t level, const std::string& message) const noexcept {
    if (h_->log != nullptr) h_->log(h_->host_ctx, level, message.c_str());
  }

  // Shared OpenCL C from kernels/ (e.g. "blocks.cl"); throws when the host does not have it.
  std::string shared_source(const char* name) const {
    size_t len = 0;
    const char* src =
        h_->shared_kernel_source ? h_->shared_kernel_source(h_->host_ctx, name, &len) : nullptr;
    if (src == nullptr) throw Failure(std::string("host has no shared kernel source ") + name);
    return std::string(src, len);
  }

  // Builds through the host's program cache; throws with the build log on failure.
  cl_program build_program(const std::string& source, const std::string& options) const {
    const char* log = nullptr;
    cl_program p = h_->build_program(h_->host_ctx, source.data(), source.size(), options.c_str(),
                                     &log);
    if (p == nullptr) {
      throw Failure("program build failed (options '" + options + "'): " +
                    (log != nullptr ? std::string(log) : std::string("no build log")));
    }
    return p;
  }

 private:
  const clport_host* h_;
};

// Owns a retained OpenCL object, released through the host's table.
class Program {
 public:
  Program() = default;
  Program(const clport_cl_api* cl, cl_program p) : cl_(cl), p_(p) {}
  Program(Program&& o) noexcept : cl_(o.cl_), p_(std::exchange(o.p_, nullptr)) {}
  Program& operator=(Program&& o) noexcept {
    std::swap(cl_, o.cl_);
    std::swap(p_, o.p_);
    return *this;
  }
  ~Program() {
    if (p_ != nullptr) cl_->clReleaseProgram(p_);
  }
  cl_program get() const { return p_; }

 private:
  const clport_cl_api* cl_ = nullptr;
  cl_program p_ = nullptr;
};

class Kernel {
 public:
  Kernel() = default;
  Kernel(const clport_cl_api& cl, const Program& program, const char* name)
      : cl_(&cl), name_(name) {
    cl_int err = CL_SUCCESS;
    k_ = cl.clCreateKernel(program.get(), name, &err);
    check_cl(err, (std::string("clCreateKernel(") + name + ")").c_str());
  }
  Kernel(Kernel&& o) noexcept : cl_(o.cl_), k_(std::exchange(o.k_, nullptr)), name_(std::move(o.name_)) {}
  Kernel& operator=(Kernel&& o) noexcept {
    std::swap(cl_, o.cl_);
    std::swap(k_, o.k_);
    std::swap(name_, o.name_);
    return *this;
  }
  ~Kernel() {
    if (k_ != nullptr) cl_->clReleaseKernel(k_);
  }
  cl_kernel get() const { return k_; }
  const std::string& name() const { return name_; }
  explicit operator bool() const { return k_ != nullptr; }

 private:
  const clport_cl_api* cl_ = nullptr;
  cl_kernel k_ = nullptr;
  std::string name_;
};

// A __local argument of `bytes` bytes.
struct LocalMem {
  size_t bytes;
};

// ---- recorded launches ------------------------------------------------------------------------
// One kernel launch as prepare() captured it: the kernel (retained), the arguments set on it
// since its previous launch, and the NDRange.
class RecordedKernel {
 public:
  struct Arg {
    cl_uint index = 0;
    size_t size = 0;
    bool local = false;                // a __local argument: size bytes, no value
    std::array<unsigned char, 32> value{};  // the largest argument type the SDK sets is 32 bytes
  };
  RecordedKernel(const clport_cl_api& cl, cl_kernel kernel, std::string name, std::vector<Arg> args,
                 cl_uint dims, const size_t* global, const size_t* local)
      : cl_(&cl), kernel_(kernel), name_(std::move(name)), args_(std::move(args)), dims_(dims),
        has_local_(local != nullptr) {
    for (cl_uint d = 0; d < dims && d < 3; ++d) {
      global_[d] = global[d];
      local_[d] = local != nullptr ? local[d] : 0;
    }
    cl.clRetainKernel(kernel_);
  }
  RecordedKernel(RecordedKernel&& o) noexcept
      : cl_(o.cl_), kernel_(std::exchange(o.kernel_, nullptr)), name_(std::move(o.name_)),
        args_(std::move(o.args_)), dims_(o.dims_), global_(o.global_), local_(o.local_),
        has_local_(o.has_local_) {}
  RecordedKernel(const RecordedKernel&) = delete;
  RecordedKernel& operator=(const RecordedKernel&) = delete;
  RecordedKernel& operator=(RecordedKernel&&) = delete;
  ~RecordedKernel() {
    if (kernel_ != nullptr) cl_->clReleaseKernel(kernel_);
  }
  // Sets the arguments again (the kernel object is shared with other launches) and enqueues.
  void enqueue(const clport_host& host) const;

 private:
  const clport_cl_api* cl_;
  cl_kernel kernel_;
  std::string name_;
  std::vector<Arg> args_;
  cl_uint dims_;
  std::array<size_t, 3> global_{}, local_{};
  bool has_local_;
};

// While a Recorder is active on a thread, set_args and enqueue capture instead of launching.
class Recorder {
 public:
  void arg(cl_kernel k, cl_uint index, size_t size, const void* value) {
    if (size > RecordedKernel::Arg{}.value.size() && value != nullptr)
      throw std::runtime_error("kernel argument of " + std::to_string(size) + " bytes is too large to record");
    RecordedKernel::Arg a;
    a.index = index;
    a.size = size;
    a.local = value == nullptr;
    if (value != nullptr) std::memcpy(a.value.data(), value, size);
    pending_.emplace_back(k, a);
  }
  void launch(const clport_cl_api& cl, cl_kernel k, const std::string& name, cl_uint dims,
              const size_t* global, const size_t* local) {
    std::vector<RecordedKernel::Arg> args;
    std::vector<std::pair<cl_kernel, RecordedKernel::Arg>> rest;
    for (auto& [kernel, arg] : pending_) {
      if (kernel == k)
        args.push_back(arg);
      else
        rest.emplace_back(kernel, arg);
    }
    pending_ = std::move(rest);
    launches_.emplace_back(cl, k, name, std::move(args), dims, global, local);
  }
  std::vector<RecordedKernel> take() { return std::move(launches_); }

  static Recorder*& active() {
    static thread_local Recorder* current = nullptr;
    return current;
  }

 private:
  std::vector<std::pair<cl_kernel, RecordedKernel::Arg>> pending_;
  std::vector<RecordedKernel> launches_;
};

// Makes r the active recorder of this thread for its lifetime.
class RecordingScope {
 public:
  explicit RecordingScope(Recorder& r) : previous_(Recorder::active()) { Recorder::active() = &r; }
  ~RecordingScope() { Recorder::active() = previous_; }
  RecordingScope(const RecordingScope&) = delete;
  RecordingScope& operator=(const RecordingScope&) = delete;

 private:
  Recorder* previous_;
};

namespace detail {
// The message is only built on failure: these run for every argument of every launch.
template <typename T>
inline void set_one(const clport_cl_api& cl, const Kernel& k, cl_uint index, const T& value) {
  const cl_int err = cl.clSetKernelArg(k.get(), index, sizeof(T), &value);
  if (err != CL_SUCCESS) check_cl(err, ("clSetKernelArg(" + k.name() + ", " + std::to_string(index) + ")").c_str());
  if (Recorder* r = Recorder::active()) r->arg(k.get(), index, sizeof(T), &value);
}
inline void set_one(const clport_cl_api& cl, const Kernel& k, cl_uint index, const LocalMem& m) {
  const cl_int err = cl.clSetKernelArg(k.get(), index, m.bytes, nullptr);
  if (err != CL_SUCCESS) check_cl(err, ("clSetKernelArg(" + k.name() + ", local " + std::to_string(index) + ")").c_str());
  if (Recorder* r = Recorder::active()) r->arg(k.get(), index, m.bytes, nullptr);
}

inline void enqueue_kernel(const clport_host& host, cl_kernel k, const std::string& name, cl_uint dims,
                           const size_t* global, const size_t* local) {
  const clport_cl_api& cl = *host.cl;
  cl_event ev = nullptr;
  cl_event* evp = host.record_event != nullptr ? &ev : nullptr;
  const cl_int err = cl.clEnqueueNDRangeKernel(host.queue, k, dims, nullptr, global, local, 0, nullptr, evp);
  if (err != CL_SUCCESS) check_cl(err, ("clEnqueueNDRangeKernel(" + name + ")").c_str());
  if (ev != nullptr) {
    host.record_event(host.host_ctx, name.c_str(), ev);  // the host retains what it keeps
    cl.clReleaseEvent(ev);
  }
}
}  // namespace detail

inline void RecordedKernel::enqueue(const clport_host& host) const {
  for (const Arg& a : args_) {
    const cl_int err = cl_->clSetKernelArg(kernel_, a.index, a.size, a.local ? nullptr : a.value.data());
    if (err != CL_SUCCESS) check_cl(err, ("clSetKernelArg(" + name_ + ", " + std::to_string(a.index) + ")").c_str());
  }
  detail::enqueue_kernel(host, kernel_, name_, dims_, global_.data(), has_local_ ? local_.data() : nullptr);
}

// set_args(cl, kernel, a0, a1, ...): argument i gets the i-th value (by its C++ type's size).
template <typename... Args>
void set_args(const clport_cl_api& cl, const Kernel& k, const Args&... args) {
  cl_uint index = 0;
  (detail::set_one(cl, k, index++, args), ...);
}

// Enqueues an NDRange on the host queue; hands the event to host->record_event when the host
// profiles. `local` may be nullptr (driver's choice).
// While a Recorder is active, the launch is captured instead.
inline void enqueue(const clport_host& host, const Kernel& k, cl_uint dims, const size_t* global,
                    const size_t* local) {
  if (Recorder* r = Recorder::active()) return r->launch(*host.cl, k.get(), k.name(), dims, global, local);
  detail::enqueue_kernel(host, k.get(), k.name(), dims, global, local);
}

// Whether op's kernel arguments depend on the position (n_past): such ops are not recorded.
inline bool depends_on_position(const clport_op& op) {
  switch (op.kind) {
    case CLPORT_OP_ROPE:
    case CLPORT_OP_ATTENTION:
    case CLPORT_OP_KV_STORE_ROPE:
    case CLPORT_OP_ROPE_ATTENTION:
    case CLPORT_OP_ROPE_KV_STORE_ATTENTION:
      return true;
    default:
      return op.dst_position_stride != 0;
  }
}

// A deep copy of an op (its tensors inside), for launches that keep it.
struct OpCopy {
  std::array<clport_tensor, 4> src{};
  clport_tensor dst{};
  clport_op op{};
  explicit OpCopy(const clport_op& o) : op(o) {
    for (int i = 0; i < o.n_src && i < 4; ++i) {
      src[static_cast<size_t>(i)] = *o.src[i];
      op.src[i] = &src[static_cast<size_t>(i)];
    }
    dst = *o.dst;
    op.dst = &dst;
  }
  OpCopy(const OpCopy&) = delete;
  OpCopy& operator=(const OpCopy&) = delete;
};

// The replay of what enqueue() launched at plan time.
class RecordedLaunch final : public clport_launch {
 public:
  RecordedLaunch(const clport_host& host, std::vector<RecordedKernel> kernels)
      : host_(&host), kernels_(std::move(kernels)) {}
  void enqueue(const clport_step&) override {
    for (const RecordedKernel& k : kernels_) k.enqueue(*host_);
  }

 private:
  const clport_host* host_;
  std::vector<RecordedKernel> kernels_;
};

// A position-dependent op, run through enqueue() with each step's position.
class OpLaunch final : public clport_launch {
 public:
  OpLaunch(clport_plugin_instance& instance, const clport_op& op) : instance_(&instance), copy_(op) {}
  void enqueue(const clport_step& step) override {
    clport_tensor dst = copy_.dst;
    dst.offset += copy_.op.dst_position_stride * static_cast<uint64_t>(step.n_past);
    clport_op op = copy_.op;
    op.n_past = step.n_past;
    op.dst_position_stride = 0;
    op.dst = &dst;
    instance_->enqueue(op);
  }

 private:
  clport_plugin_instance* instance_;
  OpCopy copy_;
};

inline size_t round_up(size_t n, size_t multiple) {
  return multiple == 0 ? n : (n + multiple - 1) / multiple * multiple;
}

// ---- plugin-owned kernels ---------------------------------------------------------------------
// A plugin's own kernel file: from CLPORT_KERNEL_DIR when set and the file is there (checked as
// <dir>/../plugins/<plugin>/kernels/<name> (dir = the source kernels/ directory the core reads),
// <dir>/plugins/<plugin>/kernels/<name>, then <dir>/<plugin>/<name>), else the embedded copy.
// Throws when neither exists.
inline std::string plugin_kernel_source(const EmbeddedKernel* table, const char* plugin,
                                        const char* name) {
  if (const char* dir = std::getenv("CLPORT_KERNEL_DIR"); dir != nullptr && *dir != '\0') {
    const std::string base(dir);
    for (const std::string& path : {base + "/../plugins/" + plugin + "/kernels/" + name,
                                    base + "/plugins/" + plugin + "/kernels/" + name,
                                    base + "/" + plugin + "/" + name}) {
      std::ifstream in(path, std::ios::binary);
      if (in) {
        std::ostringstream ss;
        ss << in.rdbuf();
        return ss.str();
      }
    }
  }
  const EmbeddedKernel* k = find_embedded_kernel(table, name);
  if (k == nullptr) throw Failure(std::string("plugin ") + plugin + " has no kernel file " + name);
  return std::string(k->source, k->size);
}

}  // namespace clport::sdk

inline std::unique_ptr<clport_launch> clport_plugin_instance::prepare(const clport_op& op) {
  if (clport::sdk::depends_on_position(op)) return std::make_unique<clport::sdk::OpLaunch>(*this, op);
  if (sdk_host == nullptr) throw clport::sdk::Failure("prepare: the instance has no host table");
  clport::sdk::Recorder recorder;
  {
    clport::sdk::RecordingScope scope(recorder);
    enqueue(op);
  }
  return std::make_unique<clport::sdk::RecordedLaunch>(*sdk_host, recorder.take());
}

namespace clport::sdk {

// ---- the entry table --------------------------------------------------------------------------
// P::settings() when P declares one, else no settings.
template <typename P, typename = void>
struct DeclaredSettings {
  static const clport_setting_decl* data() { return nullptr; }
  static size_t size() { return 0; }
};
template <typename P>
struct DeclaredSettings<P, std::void_t<decltype(P::settings())>> {
  static const clport_setting_decl* data() { return P::settings().data(); }
  static size_t size() { return P::settings().size(); }
};

// Wraps a plugin description class P (see the top of this file) into the static C table.
template <typename P>
struct PluginTable {
  static int32_t probe(const clport_device_desc* d, const char** reason) noexcept {
    try {
      if (d == nullptr) {
        if (reason) *reason = "no device description";
        return 0;
      }
      return P::probe(*d, reason);
    } catch (...) {
      if (reason) *reason = "probe failed with an exception";
      return 0;
    }
  }
  static int32_t create(const clport_host* host, const clport_device_desc* d,
                        clport_plugin_instance** out, clport_plugin_error** error) noexcept {
    if (out != nullptr) *out = nullptr;
    return guarded(error, [&] {
      if (host == nullptr || d == nullptr || out == nullptr || host->cl == nullptr)
        throw Failure("create: NULL host, device or output");
      *out = P::create(*host, *d).release();
      if (*out == nullptr) throw Failure("create returned no instance");
      (*out)->sdk_host = host;
    });
  }
  static void destroy(clport_plugin_instance* inst) noexcept {
    try {
      delete inst;
    } catch (...) {
    }
  }
  static int32_t claim_op(clport_plugin_instance* inst, const clport_op* op) noexcept {
    try {
      return (inst != nullptr && op != nullptr && inst->supports(*op)) ? 1 : 0;
    } catch (...) {
      return 0;
    }
  }
  static int32_t prepare_weight(clport_plugin_instance* inst, const clport_tensor* w,
                                void** layout, int32_t* owns_weight, clport_plugin_error** error) noexcept {
    if (layout != nullptr) *layout = nullptr;
    if (owns_weight != nullptr) *owns_weight = 0;
    bool repacked = false;
    const int32_t rc = guarded(error, [&] {
      if (inst == nullptr || w == nullptr || layout == nullptr || owns_weight == nullptr)
        throw Failure("prepare_weight: NULL argument");
      *layout = inst->prepare_weight(*w);
      repacked = *layout != nullptr;
      *owns_weight = repacked && inst->owns_weight(*layout) ? 1 : 0;
    });
    if (rc == CLPORT_PLUGIN_OK && !repacked) return CLPORT_PLUGIN_UNSUPPORTED;
    return rc;
  }
  static void release_layout(clport_plugin_instance* inst, void* layout) noexcept {
    try {
      if (inst != nullptr && layout != nullptr) inst->release_layout(layout);
    } catch (...) {
    }
  }
  static int32_t prepare_launch(clport_plugin_instance* inst, const clport_op* op, clport_launch** launch,
                                clport_plugin_error** error) noexcept {
    if (launch != nullptr) *launch = nullptr;
    return guarded(error, [&] {
      if (inst == nullptr || op == nullptr || launch == nullptr || op->dst == nullptr)
        throw Failure("prepare_launch: NULL argument");
      *launch = inst->prepare(*op).release();
      if (*launch == nullptr) throw Failure("prepare returned no launch");
    });
  }
  static int32_t enqueue_launch(clport_plugin_instance* inst, clport_launch* launch, const clport_step* step,
                                clport_plugin_error** error) noexcept {
    return guarded(error, [&] {
      if (inst == nullptr || launch == nullptr || step == nullptr) throw Failure("enqueue_launch: NULL argument");
      launch->enqueue(*step);
    });
  }
  static void release_launch(clport_plugin_instance*, clport_launch* launch) noexcept {
    try {
      delete launch;
    } catch (...) {
    }
  }
  static int32_t error_code(const clport_plugin_error* e) noexcept {
    return e != nullptr ? e->code : CLPORT_PLUGIN_ERROR;
  }
  static const char* error_message(const clport_plugin_error* e) noexcept {
    return e != nullptr ? e->message.c_str() : "no error object";
  }
  static void release_error(clport_plugin_error* e) noexcept { delete e; }
  static int32_t prepare_group(clport_plugin_instance* inst, const clport_op* const* ops, size_t n_ops,
                               clport_launch** launch, clport_plugin_error** error) noexcept {
    if (launch != nullptr) *launch = nullptr;
    bool grouped = false;
    const int32_t rc = guarded(error, [&] {
      if (inst == nullptr || ops == nullptr || launch == nullptr) throw Failure("prepare_group: NULL argument");
      for (size_t i = 0; i < n_ops; ++i)
        if (ops[i] == nullptr || ops[i]->dst == nullptr) throw Failure("prepare_group: NULL op");
      *launch = inst->prepare_group(ops, n_ops).release();
      grouped = *launch != nullptr;
    });
    if (rc == CLPORT_PLUGIN_OK && !grouped) return CLPORT_PLUGIN_UNSUPPORTED;
    return rc;
  }

  static int32_t scratch_needs(clport_plugin_instance* inst, const clport_op* op, clport_scratch_need* needs,
                               size_t capacity, size_t* n_needs, clport_plugin_error** error) noexcept {
    if (n_needs != nullptr) *n_needs = 0;
    return guarded(error, [&] {
      if (inst == nullptr || op == nullptr || n_needs == nullptr || (needs == nullptr && capacity != 0))
        throw Failure("scratch_needs: NULL argument");
      const std::vector<clport_scratch_need> all = inst->scratch_needs(*op);
      for (size_t i = 0; i < all.size() && i < capacity; ++i) needs[i] = all[i];
      *n_needs = all.size();
    });
  }

  static const clport_plugin* table() noexcept {
    static const clport_plugin t = {
        sizeof(clport_plugin), CLPORT_PLUGIN_ABI_MAJOR, CLPORT_PLUGIN_ABI_MINOR, P::kName,
        P::kVersion, DeclaredSettings<P>::data(), DeclaredSettings<P>::size(), &probe, &create,
        &destroy, &claim_op, P::kHasPrepareWeight ? &prepare_weight : nullptr,
        P::kHasPrepareWeight ? &release_layout : nullptr, &prepare_launch, &enqueue_launch,
        &release_launch, &error_code, &error_message, &release_error, &prepare_group, &scratch_needs};
    return &t;
  }
};

}  // namespace clport::sdk

// Defines the one exported entry symbol of a plugin. P must provide kName, kVersion,
// kHasPrepareWeight, probe() and create(), and may provide settings() (see the top of this file).
#define CLPORT_DEFINE_PLUGIN(P)                                                  \
  extern "C" CLPORT_PLUGIN_EXPORT const clport_plugin* clport_plugin_entry(void) { \
    return ::clport::sdk::PluginTable<P>::table();                              \
  }

#endif  // CLPORT_PLUGIN_SDK_HPP
