# Runs `clport` with its output failing as on a full disk and checks that this is an error with
# the expected exit code and message, leaving no partial file behind.
#   cmake -DCLPORT=prog -DARGS="arg|arg|..." -DFAIL=stdout|files -DEXPECT_RC=N -DEXPECT_REGEX=re
#         [-DABSENT="path|..."] [-DNO_TEMPORARIES_IN=dir] -P output_failure.cmake
# FAIL=stdout: standard output is /dev/full (every write fails with ENOSPC). FAIL=files: a
# file-size limit of 0, so every write to a regular file fails (EFBIG, SIGXFSZ ignored) as on a
# disk with no room left, while stdout and stderr (pipes here) still work.
string(REPLACE "|" ";" args "${ARGS}")
if(FAIL STREQUAL "stdout")
  set(shell "exec \"$@\" >/dev/full")
elseif(FAIL STREQUAL "files")
  set(shell "trap '' XFSZ; ulimit -f 0 && exec \"$@\"")
else()
  message(FATAL_ERROR "FAIL must be stdout or files")
endif()
execute_process(COMMAND sh -c "${shell}" sh ${CLPORT} ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc MATCHES "^[0-9]+$" OR err MATCHES "Segmentation fault|Aborted|AddressSanitizer|runtime error:")
  message(FATAL_ERROR "crashed (${rc}):\n${out}\n${err}")
endif()
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_RC}:\n${out}\n${err}")
endif()
if(NOT err MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "stderr does not match '${EXPECT_REGEX}':\n${err}")
endif()
string(REPLACE "|" ";" absent "${ABSENT}")
foreach(path IN LISTS absent)
  if(EXISTS "${path}")
    file(SIZE "${path}" size)
    message(FATAL_ERROR "${path} exists (${size} bytes) after the failed write")
  endif()
endforeach()
if(DEFINED NO_TEMPORARIES_IN)
  file(GLOB left "${NO_TEMPORARIES_IN}/*.tmp.*")
  if(left)
    message(FATAL_ERROR "temporaries left behind: ${left}")
  endif()
endif()
message(STATUS "exit ${rc} as expected:\n${err}")
