# Runs one command with a given environment and checks its exit code and output; a crash
# (signal) never counts as the expected failure.
#   cmake -DCOMMAND="prog|arg|..." -DENV_VARS="NAME=value|..." -DUNSET="NAME|..." -DEXPECT_RC=N
#         -DEXPECT_REGEX=re [-DREJECT_REGEX=re] -P run_cli_expect.cmake
string(REPLACE "|" ";" command "${COMMAND}")
set(env_args "")
if(DEFINED UNSET AND NOT UNSET STREQUAL "")
  string(REPLACE "|" ";" unset_list "${UNSET}")
  foreach(name IN LISTS unset_list)
    list(APPEND env_args "--unset=${name}")
  endforeach()
endif()
if(DEFINED ENV_VARS AND NOT ENV_VARS STREQUAL "")
  string(REPLACE "|" ";" env_list "${ENV_VARS}")
  list(APPEND env_args ${env_list})
endif()
# One variable for both streams: they are merged in the order the program wrote them.
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${env_args} ${command}
                RESULT_VARIABLE rc OUTPUT_VARIABLE all ERROR_VARIABLE all)
# `cmake -E env` turns a child's signal into exit code 1 plus the signal's name on stderr.
if(NOT rc MATCHES "^[0-9]+$" OR all MATCHES "Segmentation fault|Aborted|Bus error|AddressSanitizer|runtime error:")
  message(FATAL_ERROR "crashed (${rc}) instead of exiting ${EXPECT_RC}:\n${all}")
endif()
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_RC}:\n${all}")
endif()
if(DEFINED EXPECT_REGEX AND NOT all MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}':\n${all}")
endif()
if(DEFINED REJECT_REGEX AND NOT REJECT_REGEX STREQUAL "" AND all MATCHES "${REJECT_REGEX}")
  message(FATAL_ERROR "output matches '${REJECT_REGEX}':\n${all}")
endif()
message(STATUS "exit ${rc} as expected:\n${all}")
