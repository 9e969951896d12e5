# `clport warmup` and `clport cache export / import` on PoCL: a cache warmed and exported, then
# imported into an empty cache, serves the next run with no program built; a bundle for another
# driver (the fault-injecting library reporting another driver version) is skipped with a message;
# a truncated bundle is refused and the cache is left as it was.
#   cmake -DCLPORT=... -DMODEL=... -DFAKECL=<libclport_fakecl_forward.so> -DWORK=<dir> -P cache_bundle_cli.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/a ${WORK}/b ${WORK}/c)
# The self-test is off: warmup then builds what the model runs (seconds), not every program.
set(base --unset=CLPORT_CONFIG CLPORT_SELF_TEST=off)

# run_clport(<name> <expect rc> <out var> <env...> -- <args...>)
function(run_clport name expect_rc out_var)
  list(FIND ARGN "--" sep)
  list(SUBLIST ARGN 0 ${sep} env)
  math(EXPR first "${sep} + 1")
  list(SUBLIST ARGN ${first} -1 args)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${base} ${env} ${CLPORT} ${args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${expect_rc}" OR err MATCHES "AddressSanitizer|runtime error:|internal error")
    message(FATAL_ERROR "${name}: clport ${args} exited ${rc}, expected ${expect_rc}:\n${out}\n${err}")
  endif()
  set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect name text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${name}: output does not match '${regex}':\n${text}")
  endif()
  message(STATUS "${name}: ok")
endfunction()

run_clport(warmup 0 out CLPORT_CACHE_DIR=${WORK}/a -- warmup -m ${MODEL})
expect(warmup "${out}" "warmup: OpenCL .*ran a prompt and a decode step")
run_clport(warmup_json 0 out CLPORT_CACHE_DIR=${WORK}/a -- warmup -m ${MODEL} --json)
expect(warmup_json "${out}" "\"event\": \"done\"")
file(GLOB programs ${WORK}/a/*.clbin)
list(LENGTH programs n_programs)
if(n_programs EQUAL 0)
  message(FATAL_ERROR "warmup built no program into ${WORK}/a")
endif()

run_clport(export 0 out CLPORT_CACHE_DIR=${WORK}/a -- cache export ${WORK}/cache.bundle)
expect(export "${out}" "exported ${n_programs} cache entries")
run_clport(import 0 out CLPORT_CACHE_DIR=${WORK}/b -- cache import ${WORK}/cache.bundle)
expect(import "${out}" "imported ${n_programs} of ${n_programs} entries")
run_clport(run_after_import 0 out CLPORT_CACHE_DIR=${WORK}/b CLPORT_CACHE_DEBUG=1
           -- --log-level info run -m ${MODEL} -p cat -n 2 --wait-for-device)
expect(run_after_import "${out}" "backend: OpenCL")
if(out MATCHES "MISS ")
  message(FATAL_ERROR "a program was built after the import:\n${out}")
endif()

run_clport(other_driver 0 out CLPORT_CACHE_DIR=${WORK}/c CLPORT_OPENCL_LIBRARY=${FAKECL} FAKECL_DRIVER_VERSION=99.9
           -- cache import ${WORK}/cache.bundle)
expect(other_driver "${out}" "skipped all ${n_programs} entries: the bundle was made for .*driver 99.9")
file(GLOB imported ${WORK}/c/*)
if(imported)
  message(FATAL_ERROR "a bundle for another driver wrote into the cache: ${imported}")
endif()

execute_process(COMMAND python3 -c "import sys; d = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(d[:len(d) // 2])"
                        ${WORK}/cache.bundle ${WORK}/truncated.bundle RESULT_VARIABLE py_rc)
if(NOT py_rc EQUAL 0)
  message(FATAL_ERROR "could not write the truncated bundle")
endif()
run_clport(truncated 22 out CLPORT_CACHE_DIR=${WORK}/c -- cache import ${WORK}/truncated.bundle)
expect(truncated "${out}" "is damaged .*nothing was imported")
file(GLOB imported ${WORK}/c/*)
if(imported)
  message(FATAL_ERROR "a truncated bundle wrote into the cache: ${imported}")
endif()
