#include "fake_identity.h"

#include <cstdlib>
#include <cstring>

namespace fakecl {
namespace {

// Strings as the real drivers report them (collected from public clinfo dumps of these GPUs).
struct Preset {
  const char* id;
  const char* name;
  const char* vendor;
  const char* device_version;
  const char* driver_version;
  const char* opencl_c_version;
  const char* extensions;
  cl_device_type type;
  const char* platform_name;
  const char* platform_vendor;
  const char* platform_version;
};

const Preset kPresets[] = {
    {"adreno740", "QUALCOMM Adreno(TM) 740", "QUALCOMM", "OpenCL 3.0 Adreno(TM) 740",
     "OpenCL 3.0 QUALCOMM build: commit #0ab2ee9a5b changeid #I1f5c4a8f41 Date: 04/20/23 Thu "
     "Local Branch:  Remote Branch: refs/tags/AU_LINUX_ANDROID_LA.VENDOR.13.2.0.11.00.00.855.659 "
     "Compiler E031.42.23.01",
     "OpenCL C 3.0 Adreno(TM) 740",
     "cl_khr_3d_image_writes cl_img_egl_image cl_khr_byte_addressable_store cl_khr_depth_images "
     "cl_khr_egl_event cl_khr_egl_image cl_khr_fp16 cl_khr_gl_sharing "
     "cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics "
     "cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics "
     "cl_khr_image2d_from_buffer cl_khr_mipmap_image cl_khr_srgb_image_writes cl_khr_subgroups "
     "cl_qcom_create_buffer_from_image cl_qcom_ext_host_ptr cl_qcom_ion_host_ptr cl_qcom_perf_hint "
     "cl_qcom_other_image cl_qcom_subgroup_shuffle cl_qcom_vector_image_ops "
     "cl_qcom_extract_image_plane cl_qcom_android_native_buffer_host_ptr "
     "cl_qcom_protected_context cl_qcom_priority_hint cl_qcom_compressed_yuv_image_read "
     "cl_qcom_compressed_image cl_qcom_ext_host_ptr_iocoherent cl_qcom_accelerated_image_ops "
     "cl_qcom_ml_ops cl_qcom_dot_product8 cl_qcom_reqd_sub_group_size cl_qcom_large_buffer "
     "cl_khr_integer_dot_product cl_khr_extended_versioning cl_khr_create_command_queue "
     "cl_khr_il_program cl_khr_suggested_local_work_size "
     "cl_khr_spirv_no_integer_wrap_decoration",
     CL_DEVICE_TYPE_GPU, "QUALCOMM Snapdragon(TM)", "QUALCOMM",
     "OpenCL 3.0 QUALCOMM build: commit #0ab2ee9a5b changeid #I1f5c4a8f41 Date: 04/20/23 Thu"},
    {"mali-g78", "Mali-G78 r0p0", "ARM", "OpenCL 3.0 v1.r32p1-01eac0.2819f9d4dbe0b5a2f89c835d8484f9cd",
     "v1.r32p1-01eac0.2819f9d4dbe0b5a2f89c835d8484f9cd", "OpenCL C 3.0 v1.r32p1-01eac0.2819f9d4dbe0b5a2f89c835d8484f9cd",
     "cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics "
     "cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics "
     "cl_khr_byte_addressable_store cl_khr_3d_image_writes cl_khr_int64_base_atomics "
     "cl_khr_int64_extended_atomics cl_khr_fp16 cl_khr_icd cl_khr_egl_image "
     "cl_khr_image2d_from_buffer cl_khr_depth_images cl_khr_subgroups "
     "cl_khr_subgroup_extended_types cl_khr_subgroup_non_uniform_vote cl_khr_subgroup_ballot "
     "cl_khr_il_program cl_khr_priority_hints cl_khr_create_command_queue "
     "cl_khr_spirv_no_integer_wrap_decoration cl_khr_extended_versioning cl_khr_device_uuid "
     "cl_khr_suggested_local_work_size cl_khr_extended_bit_ops cl_khr_integer_dot_product "
     "cl_arm_core_id cl_arm_printf cl_arm_non_uniform_work_group_size cl_arm_import_memory "
     "cl_arm_import_memory_dma_buf cl_arm_import_memory_host cl_arm_integer_dot_product_int8 "
     "cl_arm_integer_dot_product_accumulate_int8 "
     "cl_arm_integer_dot_product_accumulate_saturate_int8 cl_arm_scheduling_controls "
     "cl_arm_controlled_kernel_termination cl_ext_cxx_for_opencl",
     CL_DEVICE_TYPE_GPU, "ARM Platform", "ARM",
     "OpenCL 3.0 v1.r32p1-01eac0.2819f9d4dbe0b5a2f89c835d8484f9cd"},
    {"intel-uhd770", "Intel(R) UHD Graphics 770", "Intel(R) Corporation", "OpenCL 3.0 NEO ",
     "23.43.27642.40", "OpenCL C 1.2 ",
     "cl_khr_byte_addressable_store cl_khr_device_uuid cl_khr_fp16 "
     "cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics cl_khr_icd "
     "cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics "
     "cl_intel_command_queue_families cl_intel_subgroups cl_intel_required_subgroup_size "
     "cl_intel_subgroups_short cl_khr_spir cl_intel_accelerator cl_intel_driver_diagnostics "
     "cl_khr_priority_hints cl_khr_throttle_hints cl_khr_create_command_queue "
     "cl_intel_subgroups_char cl_intel_subgroups_long cl_khr_il_program "
     "cl_intel_mem_force_host_memory cl_khr_subgroup_extended_types "
     "cl_khr_subgroup_non_uniform_vote cl_khr_subgroup_ballot "
     "cl_khr_subgroup_non_uniform_arithmetic cl_khr_subgroup_shuffle "
     "cl_khr_subgroup_shuffle_relative cl_khr_subgroup_clustered_reduce "
     "cl_intel_device_attribute_query cl_khr_suggested_local_work_size "
     "cl_intel_split_work_group_barrier cl_intel_spirv_media_block_io cl_intel_spirv_subgroups "
     "cl_khr_spirv_no_integer_wrap_decoration cl_intel_unified_shared_memory "
     "cl_khr_mipmap_image cl_khr_mipmap_image_writes cl_intel_planar_yuv cl_intel_packed_yuv "
     "cl_khr_int64_base_atomics cl_khr_int64_extended_atomics cl_khr_image2d_from_buffer "
     "cl_khr_depth_images cl_khr_3d_image_writes cl_intel_media_block_io "
     "cl_intel_sharing_format_query cl_khr_pci_bus_info cl_intel_dot_accumulate "
     "cl_intel_subgroup_local_block_io cl_khr_integer_dot_product",
     CL_DEVICE_TYPE_GPU, "Intel(R) OpenCL Graphics", "Intel(R) Corporation", "OpenCL 3.0 "},
    // The lent H200's driver as clport devices reported it (anchors README: no fp16, no
    // sub-groups, no integer-dot or command-buffer extension).
    {"nvidia-h200", "NVIDIA H200", "NVIDIA Corporation", "OpenCL 3.0 CUDA", "580.159.04", "OpenCL C 1.2 ",
     "cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics "
     "cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics cl_khr_fp64 "
     "cl_khr_3d_image_writes cl_khr_byte_addressable_store cl_khr_icd cl_khr_gl_sharing "
     "cl_nv_compiler_options cl_nv_device_attribute_query cl_nv_pragma_unroll cl_nv_copy_opts "
     "cl_nv_create_buffer cl_khr_int64_base_atomics cl_khr_int64_extended_atomics "
     "cl_khr_device_uuid cl_khr_pci_bus_info cl_khr_external_semaphore "
     "cl_khr_external_memory cl_khr_external_semaphore_opaque_fd cl_khr_external_memory_opaque_fd",
     CL_DEVICE_TYPE_GPU, "NVIDIA CUDA", "NVIDIA Corporation", "OpenCL 3.0 CUDA 13.0.94"},
    // A GPU no rule knows: exercises the classifier's logged default and the generic path.
    {"unknown-gpu", "Vendorless VX-1 Graphics", "Example Silicon Inc.", "OpenCL 1.2 vx1-r7",
     "7.1.0", "OpenCL C 1.2 ",
     "cl_khr_byte_addressable_store cl_khr_global_int32_base_atomics "
     "cl_khr_local_int32_base_atomics",
     CL_DEVICE_TYPE_GPU, "Example Silicon Platform", "Example Silicon Inc.", "OpenCL 1.2 vx1"},
};

const Preset* preset() {
  const char* id = std::getenv("FAKECL_PRESET");
  if (id == nullptr || *id == '\0') return nullptr;
  for (const auto& p : kPresets) {
    if (std::strcmp(p.id, id) == 0) return &p;
  }
  return nullptr;  // unknown preset: no spoofing (the loader's tests would notice)
}

// The environment variable when set, else the preset's field, else nothing.
std::optional<std::string> pick(const char* env, const char* Preset::*field) {
  if (const char* v = std::getenv(env)) return std::string(v);
  if (const Preset* p = preset()) return std::string(p->*field);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> device_string_override(cl_device_info param,
                                                  const std::string& real_extensions) {
  switch (param) {
    case CL_DEVICE_NAME: return pick("FAKECL_DEVICE_NAME", &Preset::name);
    case CL_DEVICE_VENDOR: return pick("FAKECL_DEVICE_VENDOR", &Preset::vendor);
    case CL_DEVICE_VERSION: return pick("FAKECL_DEVICE_VERSION", &Preset::device_version);
    case CL_DRIVER_VERSION: return pick("FAKECL_DRIVER_VERSION", &Preset::driver_version);
    case CL_DEVICE_OPENCL_C_VERSION: return pick("FAKECL_OPENCL_C_VERSION", &Preset::opencl_c_version);
    case CL_DEVICE_EXTENSIONS: {
      const Preset* p = preset();
      std::string base = p ? p->extensions : real_extensions;
      const char* env = std::getenv("FAKECL_EXTENSIONS");
      if (env == nullptr) return p ? std::optional<std::string>(base) : std::nullopt;
      if (*env == '+') return base + (base.empty() || base.back() == ' ' ? "" : " ") + (env + 1);
      return std::string(env);
    }
    default: return std::nullopt;
  }
}

std::optional<std::string> platform_string_override(cl_platform_info param) {
  switch (param) {
    case CL_PLATFORM_NAME: return pick("FAKECL_PLATFORM_NAME", &Preset::platform_name);
    case CL_PLATFORM_VENDOR: return pick("FAKECL_PLATFORM_VENDOR", &Preset::platform_vendor);
    case CL_PLATFORM_VERSION: return pick("FAKECL_PLATFORM_VERSION", &Preset::platform_version);
    default: return std::nullopt;
  }
}

cl_device_type device_type_override() {
  if (const char* v = std::getenv("FAKECL_DEVICE_TYPE")) {
    if (std::strcmp(v, "gpu") == 0) return CL_DEVICE_TYPE_GPU;
    if (std::strcmp(v, "cpu") == 0) return CL_DEVICE_TYPE_CPU;
    if (std::strcmp(v, "accelerator") == 0) return CL_DEVICE_TYPE_ACCELERATOR;
    return 0;
  }
  const Preset* p = preset();
  return p ? p->type : 0;
}

}  // namespace fakecl
