#include "loader/icd_files.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace clport::loader {
namespace {

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const auto end = s.find_last_not_of(" \t\r\n");
  return s.substr(begin, end - begin + 1);
}

void read_icd_file(const std::filesystem::path& file,
                   std::vector<std::pair<std::string, std::string>>& out) {
  std::ifstream in(file);
  std::string line;
  if (in && std::getline(in, line)) {
    line = trim(line);
    if (!line.empty()) out.emplace_back(file.string(), line);
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> icd_vendor_libraries(bool use_environment) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> out;
  std::string location = "/etc/OpenCL/vendors";
  if (use_environment) {
    if (const char* env = std::getenv("OCL_ICD_VENDORS"); env != nullptr && *env != '\0') {
      location = env;
    }
  }
  std::error_code ec;
  if (fs::is_regular_file(location, ec)) {
    read_icd_file(location, out);
    return out;
  }
  std::vector<fs::path> files;
  for (fs::directory_iterator it(location, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".icd") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) read_icd_file(f, out);
  return out;
}

}  // namespace clport::loader
