# Embeds OpenCL C files into a C++ source at build time (no Python): the generated file defines
# a table {name, source} looked up by name at run time. Re-generated whenever a .cl file changes.
#
#   clport_embed_kernels(OUTPUT <generated.cpp> SYMBOL <c identifier> BASE_DIR <dir> FILES <...>)
# defines, in the generated file, `extern "C++" const clport::EmbeddedKernel <SYMBOL>[]` and
# `<SYMBOL>_count` (see core/include/clport_plugin/embedded_kernel.h).
set(CLPORT_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_kernels_script.cmake)

function(clport_embed_kernels)
  cmake_parse_arguments(ARG "" "OUTPUT;SYMBOL;BASE_DIR" "FILES" ${ARGN})
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${ARG_OUTPUT} -DSYMBOL=${ARG_SYMBOL}
            -DBASE_DIR=${ARG_BASE_DIR} "-DFILES=${ARG_FILES}" -P ${CLPORT_EMBED_SCRIPT}
    DEPENDS ${ARG_FILES} ${CLPORT_EMBED_SCRIPT}
    COMMENT "Embedding OpenCL kernels into ${ARG_OUTPUT}"
    VERBATIM)
endfunction()
