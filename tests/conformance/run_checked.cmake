# Runs a command (cmake -P, COMMAND as a ;-list) and fails when it exits non-zero or when its
# output matches FAIL_REGEX: oclgrind reports invalid accesses, uninitialised reads and data
# races on stderr without changing the program's exit code.
# With EXPECT_REGEX (a ;-list) it is a negative control instead: every regex must match the
# output (the checker saw each planted defect); the exit code and FAIL_REGEX are not looked at.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
message("${err}")
if(EXPECT_REGEX)
  foreach(expected IN LISTS EXPECT_REGEX)
    if(NOT "${out}${err}" MATCHES "${expected}")
      message(FATAL_ERROR "the checker did not report '${expected}' (exit code ${rc})")
    endif()
  endforeach()
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "command exited with ${rc}")
endif()
if(FAIL_REGEX AND ("${out}${err}" MATCHES "${FAIL_REGEX}"))
  message(FATAL_ERROR "checker reported an error: '${CMAKE_MATCH_0}'")
endif()
# REQUIRE_REGEX: the output must also show it (e.g. the log line naming the code path that ran).
if(REQUIRE_REGEX AND NOT ("${out}${err}" MATCHES "${REQUIRE_REGEX}"))
  message(FATAL_ERROR "the output lacks /${REQUIRE_REGEX}/")
endif()
