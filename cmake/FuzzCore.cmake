# The runtime for the libFuzzer targets (tests/fuzz, -DCLPORT_FUZZ=ON with clang), included from
# core/CMakeLists.txt so that the generated sources and per-file definitions apply. The code the
# targets feed (text, chat, parsers, the C API and the status type) carries the fuzzer's coverage
# instrumentation and the sanitizers; everything else, which the C API target needs only to load
# its model once, is compiled plainly at -O0 (a core unity file: 2.6 s against 18 s
# instrumented; the Highway kernel files at -O1), so the whole fuzz build takes about 2 minutes
# on 2 cores.
set(CLPORT_FUZZED_COMPONENTS tokenizer chat capi policy programs tuner gguf common)
set(fuzz_instrumented "")
set(fuzz_plain ${CLPORT_SHARED_KERNELS_CPP} ${CLPORT_EMBEDDED_CONFIGS_CPP})
set(fuzz_kernels "")
foreach(source IN LISTS CLPORT_CORE_SOURCES)
  file(RELATIVE_PATH relative ${CMAKE_CURRENT_SOURCE_DIR}/src ${source})
  string(REGEX REPLACE "/.*" "" component "${relative}")
  if(source IN_LIST CLPORT_SIMD_KERNEL_SOURCES)
    list(APPEND fuzz_kernels ${source})
  elseif(component IN_LIST CLPORT_FUZZED_COMPONENTS)
    list(APPEND fuzz_instrumented ${source})
  else()
    list(APPEND fuzz_plain ${source})
  endif()
endforeach()

# What every part of the fuzz runtime and each target compiles and links with.
add_library(clport_fuzz_usage INTERFACE)
target_compile_definitions(clport_fuzz_usage INTERFACE CLPORT_BUILDING_CORE)
target_include_directories(clport_fuzz_usage INTERFACE ${CMAKE_CURRENT_SOURCE_DIR}/include
                           ${CMAKE_CURRENT_BINARY_DIR}/generated ${CMAKE_CURRENT_SOURCE_DIR}/src)
target_link_libraries(clport_fuzz_usage INTERFACE ${CLPORT_CORE_DEPS})

set(CLPORT_FUZZ_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=undefined
    -fno-omit-frame-pointer)
add_library(clport_fuzz_instrumented OBJECT ${fuzz_instrumented})
target_compile_options(clport_fuzz_instrumented PRIVATE -O1 -gline-tables-only
                       -fsanitize=fuzzer-no-link ${CLPORT_FUZZ_SANITIZERS})
add_library(clport_fuzz_plain OBJECT ${fuzz_plain})
target_compile_options(clport_fuzz_plain PRIVATE -O0 -g0)
# The Highway kernel files cannot be built without optimisation (src/cpu_backend/simd_kernel_build.h).
add_library(clport_fuzz_kernels OBJECT ${fuzz_kernels})
target_compile_options(clport_fuzz_kernels PRIVATE -O1 -g0)
foreach(part clport_fuzz_instrumented clport_fuzz_plain clport_fuzz_kernels)
  target_link_libraries(${part} PRIVATE clport_fuzz_usage)
  set_target_properties(${part} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8 EXCLUDE_FROM_ALL ON)
endforeach()

# One archive, so that the linker resolves the references between the two halves in any order.
add_library(clport_fuzz_core STATIC $<TARGET_OBJECTS:clport_fuzz_instrumented>
                                    $<TARGET_OBJECTS:clport_fuzz_plain>
                                    $<TARGET_OBJECTS:clport_fuzz_kernels>)
target_link_libraries(clport_fuzz_core PUBLIC clport_fuzz_usage)
# A fuzz target (tests/fuzz) links this library and gets libFuzzer's main and the sanitizers.
target_compile_options(clport_fuzz_core INTERFACE -O1 -gline-tables-only -fsanitize=fuzzer
                       ${CLPORT_FUZZ_SANITIZERS})
target_link_options(clport_fuzz_core INTERFACE -fsanitize=fuzzer ${CLPORT_FUZZ_SANITIZERS})
set_target_properties(clport_fuzz_core PROPERTIES EXCLUDE_FROM_ALL ON)
