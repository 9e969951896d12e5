# clport's perplexity against llama.cpp's (measurements/llama_cpp_perplexity.py through the
# anchor venv's llama-cpp-python) on one model file, text and context: the same chunks and scored
# tokens, and the two values within 0.02% of each other.
# -DCLPORT= -DPYTHON= -DSCRIPT= -DMODEL= -DTEXT= -DBYTES= (the text's first bytes) -DCTX= -DDEVICE=
# -DWORK= (a folder for the cut text)
file(MAKE_DIRECTORY ${WORK})
file(READ ${TEXT} text LIMIT ${BYTES})
set(cut ${WORK}/text.txt)
file(WRITE ${cut} "${text}")

# "Final estimate: PPL = X +/- E (C chunks, S scored tokens)" of one tool's run.
function(final_estimate who out_ppl out_counts)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX MATCH "Final estimate: PPL = ([0-9.]+) \\+/- [0-9.]+ \\(([0-9]+ chunks, [0-9]+ scored tokens)\\)"
         found "${out}")
  if(NOT rc EQUAL 0 OR NOT found)
    message(FATAL_ERROR "${who}'s perplexity failed (exit ${rc}):\n${out}\n${err}")
  endif()
  set(${out_ppl} ${CMAKE_MATCH_1} PARENT_SCOPE)
  set(${out_counts} "${CMAKE_MATCH_2}" PARENT_SCOPE)
endfunction()

final_estimate("llama.cpp" llama_ppl llama_counts ${PYTHON} ${SCRIPT} ${MODEL} ${cut} ${CTX})
final_estimate("clport" clport_ppl clport_counts ${CLPORT} perplexity -m ${MODEL} -f ${cut} -c ${CTX} --device ${DEVICE})
message(STATUS "perplexity: llama.cpp ${llama_ppl} (${llama_counts}), clport on ${DEVICE} ${clport_ppl} (${clport_counts})")
if(NOT llama_counts STREQUAL clport_counts)
  message(FATAL_ERROR "the two tools scored different tokens: llama.cpp ${llama_counts}, clport ${clport_counts}")
endif()

# CMake's math is integer only: each value in ten-thousandths (both tools print 4 decimals).
function(ten_thousandths value out)
  string(REGEX MATCH "^([0-9]+)\\.?([0-9]*)$" parsed "${value}")
  set(fraction "${CMAKE_MATCH_2}0000")
  string(SUBSTRING "${fraction}" 0 4 fraction)
  math(EXPR scaled "${CMAKE_MATCH_1} * 10000 + 1${fraction} - 10000")
  set(${out} ${scaled} PARENT_SCOPE)
endfunction()
ten_thousandths(${llama_ppl} llama_scaled)
ten_thousandths(${clport_ppl} clport_scaled)
math(EXPR diff "${clport_scaled} - ${llama_scaled}")
if(diff LESS 0)
  math(EXPR diff "0 - ${diff}")
endif()
math(EXPR diff_x10000 "${diff} * 10000")
math(EXPR bound_x10000 "${llama_scaled} * 2")
if(diff_x10000 GREATER bound_x10000)
  message(FATAL_ERROR "clport's perplexity ${clport_ppl} is more than 0.02% from llama.cpp's ${llama_ppl}")
endif()
