# The cache on a machine without HOME (an Android app process): `clport check` and `clport devices`
# say where the cache went or why it is off, and the program cache, the self-test verdict and the
# tuning file land where they said.
#   cmake -DCLPORT=... -DMODEL=... -DWORK=<dir> -P cache_without_home.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
# Without HOME PoCL's own kernel cache is off too, and every kernel would be compiled from
# scratch (minutes): point it where the rest of the suite keeps it warm.
if(DEFINED ENV{POCL_CACHE_DIR})
  set(pocl_cache $ENV{POCL_CACHE_DIR})
elseif(DEFINED ENV{HOME})
  set(pocl_cache $ENV{HOME}/.cache/pocl/kcache)
else()
  set(pocl_cache ${WORK}/pocl)
endif()
file(MAKE_DIRECTORY ${pocl_cache})
set(no_home --unset=HOME --unset=XDG_CACHE_HOME --unset=CLPORT_CACHE_DIR --unset=CLPORT_CONFIG
            --unset=CLPORT_SELF_TEST POCL_CACHE_DIR=${pocl_cache})

# clport_expect(<name> "<env>" <regex> <args...>): exit 0 and output matching regex.
function(clport_expect name env regex)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${no_home} ${env} ${CLPORT} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR err MATCHES "AddressSanitizer|runtime error:|internal error")
    message(FATAL_ERROR "${name}: clport ${ARGN} exited ${rc}:\n${out}\n${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${regex}")
    message(FATAL_ERROR "${name}: output does not match '${regex}':\n${out}\n${err}")
  endif()
  message(STATUS "${name}: ok")
endfunction()

# files_in(<dir> <glob> <at least>): the cache files that must be there.
function(files_in dir pattern at_least)
  file(GLOB found ${dir}/${pattern})
  list(LENGTH found n)
  if(n LESS at_least)
    file(GLOB all ${dir}/*)
    message(FATAL_ERROR "expected ${at_least}+ ${pattern} in ${dir}, found ${n}: ${all}")
  endif()
endfunction()

set(off "cache: off \\(XDG_CACHE_HOME is not set; HOME is not set; set CLPORT_CACHE_DIR or the policy's cache_dir: to a writable directory\\)")
clport_expect(check_without_home "" "OpenCL usable: .*\n${off}\n" check)
clport_expect(devices_without_home "" "^${off}\n" devices)
clport_expect(run_without_home "" "program cache off: XDG_CACHE_HOME is not set; HOME is not set" run -m ${MODEL} -p cat -n 2 --wait-for-device)

# CLPORT_CACHE_DIR: said, then used by `run` (programs, self-test verdict) and `tune`.
set(env_dir ${WORK}/from-env)
clport_expect(check_env_dir "CLPORT_CACHE_DIR=${env_dir}" "OpenCL usable: .*\ncache: ${env_dir} \\(from CLPORT_CACHE_DIR\\)\n" check)
clport_expect(devices_env_dir "CLPORT_CACHE_DIR=${env_dir}" "^cache: ${env_dir} \\(from CLPORT_CACHE_DIR\\)\n" devices)
clport_expect(run_env_dir "CLPORT_CACHE_DIR=${env_dir}" "backend: OpenCL" run -m ${MODEL} -p cat -n 2 --wait-for-device)
files_in(${env_dir} "*.clbin" 1)
files_in(${env_dir} "selftest-*.json" 1)
clport_expect(tune_env_dir "CLPORT_CACHE_DIR=${env_dir}" "file: ${env_dir}/tuning-[0-9a-f]+\\.json"
              tune --level fast --tiny --repeats 1 --accept-within 100)
files_in(${env_dir} "tuning-*.json" 1)

# The policy's cache_dir: beats CLPORT_CACHE_DIR, and `run --config` uses it.
set(policy_dir ${WORK}/from-policy)
file(WRITE ${WORK}/policy.yaml "version: 1\ncache_dir: ${policy_dir}\n")
clport_expect(check_policy_dir "CLPORT_CACHE_DIR=${env_dir}" "cache: ${policy_dir} \\(from the policy's cache_dir:\\)\n"
              check --config ${WORK}/policy.yaml)
clport_expect(run_policy_dir "" "backend: OpenCL" run -m ${MODEL} -p cat -n 2 --config ${WORK}/policy.yaml --wait-for-device)
files_in(${policy_dir} "*.clbin" 1)
files_in(${policy_dir} "selftest-*.json" 1)

# An explicit directory that cannot be used is said to be, with the reason.
file(WRITE ${WORK}/a-file "not a directory")
clport_expect(check_unusable_dir "CLPORT_CACHE_DIR=${WORK}/a-file/cache"
              "cache: off \\(CLPORT_CACHE_DIR names ${WORK}/a-file/cache: cannot create" check)
