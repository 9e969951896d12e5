#include "fake_faults.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

namespace fakecl {
namespace {

struct FailRule {
  long nth = 0;        // 0: every call
  bool onward = false;  // "N+": the Nth call and every later one
  cl_int code = CL_SUCCESS;
};

// At unload (dlclose or process exit): the call counts, when FAKECL_COUNT_FILE asks for them.
struct CountWriter {
  ~CountWriter() { write_call_counts(); }
} g_count_writer;

struct State {
  std::mutex mutex;
  std::string fail_spec;  // the FAKECL_FAIL value the rules/counters belong to
  std::map<std::string, FailRule> rules;
  std::map<std::string, long> calls;
  std::map<std::string, long> counted;  // every call of every function (FAKECL_COUNT_FILE)
  struct Buffer {
    size_t bytes;
    bool counted;
    long references = 1;  // the caller's: creation + clRetainMemObject - clReleaseMemObject
  };
  std::map<cl_mem, Buffer> buffers;
  size_t live_bytes = 0;
  std::set<cl_program> failed_builds;
  std::map<cl_kernel, std::map<cl_uint, cl_mem>> kernel_args;
};

State& state() {
  static State* s = new State();  // never destroyed: drivers may call in during exit
  return *s;
}

// "fn:N:code[,fn:N:code...]"; malformed entries are ignored (and reported on stderr once).
void parse_rules(State& s, const std::string& spec) {
  s.rules.clear();
  s.calls.clear();
  s.fail_spec = spec;
  std::stringstream list(spec);
  for (std::string item; std::getline(list, item, ',');) {
    const auto a = item.find(':');
    const auto b = a == std::string::npos ? a : item.find(':', a + 1);
    if (b == std::string::npos) {
      std::fprintf(stderr, "fakecl: ignoring malformed FAKECL_FAIL entry '%s'\n", item.c_str());
      continue;
    }
    FailRule rule;
    const std::string nth = item.substr(a + 1, b - a - 1);
    rule.nth = std::strtol(nth.c_str(), nullptr, 10);
    rule.onward = !nth.empty() && nth.back() == '+';
    rule.code = static_cast<cl_int>(std::strtol(item.substr(b + 1).c_str(), nullptr, 10));
    s.rules[item.substr(0, a)] = rule;
  }
}

}  // namespace

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

bool inject(const char* function, cl_int* code) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const char* env = std::getenv("FAKECL_FAIL");
  const std::string spec = env ? env : "";
  if (spec != s.fail_spec) parse_rules(s, spec);
  const auto rule = s.rules.find(function);
  if (count_file() != nullptr) ++s.counted[function];
  if (rule == s.rules.end()) return false;
  const long call = ++s.calls[function];
  const FailRule& r = rule->second;
  if (r.nth != 0 && (r.onward ? call < r.nth : call != r.nth)) return false;
  *code = r.code;
  return true;
}

const char* count_file() {
  const char* path = std::getenv("FAKECL_COUNT_FILE");
  return path != nullptr && *path != '\0' ? path : nullptr;
}

void write_call_counts() {
  const char* path = count_file();
  if (path == nullptr) return;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  FILE* out = std::fopen(path, "w");
  if (out == nullptr) return;
  for (const auto& [function, n] : s.counted) std::fprintf(out, "%s %ld\n", function.c_str(), n);
  std::fclose(out);
}

bool allocation_too_large(size_t bytes) {
  const char* limit = std::getenv("FAKECL_ALLOC_MAX_BYTES");
  return limit != nullptr && *limit != '\0' && bytes > std::strtoull(limit, nullptr, 10);
}

bool allocation_allowed(size_t bytes) {
  const char* limit = std::getenv("FAKECL_ALLOC_FAIL_AFTER_BYTES");
  if (limit == nullptr || *limit == '\0') return true;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.live_bytes + bytes <= std::strtoull(limit, nullptr, 10);
}

void track_buffer(cl_mem buffer, size_t bytes, bool counts) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.buffers[buffer] = {bytes, counts};
  if (counts) s.live_bytes += bytes;
}

void retain_buffer(cl_mem buffer) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.buffers.find(buffer);
  if (it != s.buffers.end()) ++it->second.references;
}

void release_buffer_reference(cl_mem buffer) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.buffers.find(buffer);
  if (it == s.buffers.end() || --it->second.references > 0) return;
  if (it->second.counted) s.live_bytes -= it->second.bytes;
  s.buffers.erase(it);
}

size_t live_buffer_bytes() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.live_bytes;
}

bool tracked_buffer_size(cl_mem buffer, size_t* bytes) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.buffers.find(buffer);
  if (it == s.buffers.end()) return false;
  *bytes = it->second.bytes;
  return true;
}

void mark_build_failed(cl_program program) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.failed_builds.insert(program);
}

bool build_failed(cl_program program) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.failed_builds.count(program) != 0;
}

void forget_program(cl_program program) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.failed_builds.erase(program);
}

const char* fake_build_log() {
  return "<source>:1:1: error: fakecl: build failure injected by FAKECL_BUILD_FAIL\n"
         "1 error generated.\n";
}

void record_kernel_buffer_arg(cl_kernel kernel, cl_uint index, cl_mem buffer) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.kernel_args[kernel][index] = buffer;
}

void forget_kernel_arg(cl_kernel kernel, cl_uint index) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.kernel_args.find(kernel);
  if (it != s.kernel_args.end()) it->second.erase(index);
}

cl_mem first_kernel_buffer_arg(cl_kernel kernel) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.kernel_args.find(kernel);
  if (it == s.kernel_args.end() || it->second.empty()) return nullptr;
  return it->second.begin()->second;  // std::map: lowest argument index first
}

void forget_kernel(cl_kernel kernel) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.kernel_args.erase(kernel);
}

}  // namespace fakecl
