// Vendor libraries named by Khronos ICD registration files (*.icd: one library path per file).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace clport::loader {

// (icd file, library path) pairs from OCL_ICD_VENDORS (a directory or one .icd file) when set and
// use_environment, else /etc/OpenCL/vendors. Sorted for deterministic order; unreadable files are
// skipped (the caller logs nothing for absent directories: no ICD files is normal on phones).
std::vector<std::pair<std::string, std::string>> icd_vendor_libraries(bool use_environment);

}  // namespace clport::loader
