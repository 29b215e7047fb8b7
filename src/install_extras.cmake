# cmake -DBIN=<winml-make> -DOUT=<dir> [-DEMULATOR=<wine-run.sh>] -P install_extras.cmake:
# what the binary generates from its own command-line definition for
# installation (a cross-built binary runs through the emulator):
# the manual page (gzip -n: no name or time stamp, the same bytes every
# build) and the bash, zsh and fish completion scripts.
file(MAKE_DIRECTORY ${OUT})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
run(${EMULATOR} ${BIN} man OUTPUT_FILE ${OUT}/winml-make.1)
run(gzip -9nf ${OUT}/winml-make.1)
run(${EMULATOR} ${BIN} completions bash OUTPUT_FILE ${OUT}/winml-make.bash)
run(${EMULATOR} ${BIN} completions zsh OUTPUT_FILE ${OUT}/_winml-make)
run(${EMULATOR} ${BIN} completions fish OUTPUT_FILE ${OUT}/winml-make.fish)
