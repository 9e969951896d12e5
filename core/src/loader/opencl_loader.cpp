// The search: explicit library, then known locations, then ICD registration files (see
// opencl_loader.h). Every candidate tried is recorded so that a failure can list them all.
#include "loader/opencl_loader.h"

#include <climits>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "common/logger.h"
#include "loader/icd_files.h"

namespace clport {
namespace {

struct Candidate {
  std::string path;
  std::string source;
};

std::vector<Candidate> candidates(const LoaderOptions& options, bool& explicit_only) {
  std::vector<Candidate> out;
  std::string explicit_path = options.explicit_path;
  if (explicit_path.empty() && options.use_environment) {
    if (const char* env = std::getenv("CLPORT_OPENCL_LIBRARY"); env && *env) explicit_path = env;
  }
  explicit_only = !explicit_path.empty();
  if (explicit_only) {
    // The user named a library: trying others behind their back would hide the problem.
    out.push_back({explicit_path, "explicit"});
    return out;
  }
  std::set<std::string> seen;
  auto add = [&](const std::string& path, const std::string& source) {
    if (seen.insert(path).second) out.push_back({path, source});
  };
  if (options.search_known_locations) {
    for (const auto& path : known_opencl_locations()) add(path, "known-location");
  }
  if (options.search_icd_files) {
    for (const auto& [file, path] : loader::icd_vendor_libraries(options.use_environment)) {
      add(path, "icd-file " + file);
    }
  }
  return out;
}

// The most informative stage among the failures: a library that opened but had no platform
// says more than one that was never found.
Status summarize_failure(const std::vector<LoadAttempt>& attempts,
                         const std::vector<Status>& failures, bool explicit_only) {
  Stage stage = Stage::LibraryNotFound;
  for (const auto& f : failures) {
    if (f.stage() == Stage::NoPlatform) stage = Stage::NoPlatform;
    if (f.stage() == Stage::SymbolMissing && stage == Stage::LibraryNotFound) {
      stage = Stage::SymbolMissing;
    }
  }
  std::ostringstream msg;
  if (explicit_only) {
    msg << "the library named by CLPORT_OPENCL_LIBRARY / the config is not usable";
  } else if (stage == Stage::LibraryNotFound) {
    msg << "no OpenCL library found; install a vendor driver or set CLPORT_OPENCL_LIBRARY";
  } else {
    msg << "no usable OpenCL library";
  }
  msg << ". Tried " << attempts.size() << " location(s):";
  for (const auto& a : attempts) {
    msg << "\n  " << a.path << " [" << a.source << "]: " << (a.error.empty() ? "ok" : a.error);
  }
  return Status(stage, msg.str());
}

// realpath() of a candidate given as a path ("" for bare names, which only dlopen can resolve,
// and for files that do not exist).
std::string resolved_if_absolute(const std::string& path) {
  if (path.find('/') == std::string::npos) return "";
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : std::string();
}

}  // namespace

LoadReport load_opencl(const LoaderOptions& options) {
  LoadReport report;
  bool explicit_only = false;
  std::vector<Status> failures;
  // Real files already tried -> the candidate that tried them. The tables name one file under
  // several names (libOpenCL.so, libOpenCL.so.1, its full path; an .icd file naming the library
  // the table already lists); each file is tried once.
  std::map<std::string, std::string> tried_files;
  for (const auto& candidate : candidates(options, explicit_only)) {
    const std::string known = resolved_if_absolute(candidate.path);
    if (!known.empty() && tried_files.count(known) != 0) {
      logger("loader")->debug("{} [{}]: same file as {}, skipped", candidate.path,
                              candidate.source, tried_files[known]);
      continue;
    }
    LoadAttempt attempt;
    attempt.source = candidate.source;
    auto opened = open_opencl_library(candidate.path, &attempt);
    if (!attempt.resolved_path.empty()) {
      const auto [it, fresh] = tried_files.emplace(attempt.resolved_path, candidate.path);
      if (!fresh) {
        logger("loader")->debug("{} [{}]: same file as {}, skipped", candidate.path,
                                candidate.source, it->second);
        continue;
      }
    }
    report.attempts.push_back(attempt);
    if (!opened.ok()) {
      logger("loader")->debug("{} [{}]: {}", candidate.path, candidate.source,
                              opened.status().message());
      failures.push_back(opened.status());
      continue;
    }
    logger("loader")->debug("using {} [{}]", candidate.path, candidate.source);
    if (!report.library) report.library = opened.value();
    report.all_usable.push_back(opened.value());
    if (options.stop_at_first_usable) break;
  }
  if (!report.library) report.status = summarize_failure(report.attempts, failures, explicit_only);
  return report;
}

}  // namespace clport
