// Per-OS table of places OpenCL libraries are known to live, in search order. Phones are the
// reason this table exists: every vendor puts the driver somewhere else, under another name.
#include <string>
#include <vector>

#include "loader/opencl_loader.h"

namespace clport {

std::vector<std::string> known_opencl_locations() {
#if defined(__ANDROID__)
  const char* lib_dirs[] = {"/vendor/lib64/", "/system/vendor/lib64/", "/system/lib64/",
                            "/vendor/lib/",   "/system/vendor/lib/",   "/system/lib/"};
  // Qualcomm and most vendors ship libOpenCL.so; Mali drivers export OpenCL from the GLES
  // library; PowerVR ships libPVROCL.so; Pixel phones ship libOpenCL-pixel.so, which needs the
  // enableOpenCL / loadOpenCLPointer protocol; some automotive builds use libOpenCL-car.so.
  const char* names[] = {"libOpenCL.so",   "egl/libGLES_mali.so", "libGLES_mali.so",
                         "libPVROCL.so",   "libOpenCL-pixel.so",  "libOpenCL-car.so"};
  std::vector<std::string> paths{"libOpenCL.so"};  // linker namespace / LD_LIBRARY_PATH first
  for (const char* name : names) {
    for (const char* dir : lib_dirs) paths.push_back(std::string(dir) + name);
  }
  paths.push_back("libGLES_mali.so");
  paths.push_back("libPVROCL.so");
  paths.push_back("libOpenCL-pixel.so");
  return paths;
#elif defined(__APPLE__)
  // Both are dlopen-able, which is all this loader does: dyld opens a framework's binary by its
  // path (since macOS 11 out of the shared cache, with no file on disk), and a bare name is
  // searched on the dyld paths (Homebrew's ocl-icd or pocl).
  return {"/System/Library/Frameworks/OpenCL.framework/OpenCL", "libOpenCL.dylib"};
#elif defined(_WIN32)
  // No OpenCL.dll entries: the loader opens libraries with POSIX dlopen only (README).
#error "clport does not support Windows yet: the OpenCL loader uses POSIX dlopen, plugins are checked as ELF files"
#else
  // ICD loaders first (they see every registered vendor), then vendor libraries that are often
  // installed but not registered (the NVIDIA driver in containers, PoCL without its .icd file).
  return {"libOpenCL.so.1",
          "libOpenCL.so",
          "/usr/lib/x86_64-linux-gnu/libOpenCL.so.1",
          "/usr/lib/aarch64-linux-gnu/libOpenCL.so.1",
          "/usr/local/lib/libOpenCL.so.1",
          "/opt/rocm/lib/libOpenCL.so",
          "/usr/local/cuda/lib64/libOpenCL.so.1",
          "libnvidia-opencl.so.1",
          "/usr/lib/libnvidia-opencl.so.1",
          "/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1",
          "libpocl.so.2",
          "libpocl.so"};
#endif
}

}  // namespace clport
