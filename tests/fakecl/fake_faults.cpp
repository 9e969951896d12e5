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
  long nth = 0;  // 0: every call
  cl_int code = CL_SUCCESS;
};

struct State {
  std::mutex mutex;
  std::string fail_spec;  // the FAKECL_FAIL value the rules/counters belong to
  std::map<std::string, FailRule> rules;
  std::map<std::string, long> calls;
  struct Buffer {
    size_t bytes;
    bool counted;
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
    rule.nth = std::strtol(item.substr(a + 1, b - a - 1).c_str(), nullptr, 10);
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
  if (rule == s.rules.end()) return false;
  const long call = ++s.calls[function];
  if (rule->second.nth != 0 && rule->second.nth != call) return false;
  *code = rule->second.code;
  return true;
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

void forget_buffer(cl_mem buffer) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.buffers.find(buffer);
  if (it == s.buffers.end()) return;
  if (it->second.counted) s.live_bytes -= it->second.bytes;
  s.buffers.erase(it);
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
