# Included by stages/CMakeLists.txt once every library a stage runs exists.
set(WINML_SRC ${CMAKE_SOURCE_DIR}/src)
# Code digests (stages/code_digest.h): one unit per library, made of its own
# files and those of every winml library it links (winml_link_closure, from
# src/link_closure.cmake), and one per stage adapter.

# The files of one library: its sources (object libraries it takes in
# included), the header of each, and the header-only files of their folders.
function(winml_library_files target out)
  get_target_property(dir ${target} SOURCE_DIR)
  get_target_property(sources ${target} SOURCES)
  set(files "")
  foreach(s IN LISTS sources)
    if(s MATCHES "^\\$<TARGET_OBJECTS:([^>]+)>$")
      winml_library_files(${CMAKE_MATCH_1} objects)
      list(APPEND files ${objects})
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH s BASE_DIRECTORY ${dir} NORMALIZE OUTPUT_VARIABLE abs)
    cmake_path(IS_PREFIX WINML_SRC ${abs} NORMALIZE inside)
    if(NOT inside)
      continue()  # generated (the embedded rules enter keys by their own text)
    endif()
    list(APPEND files ${abs})
    cmake_path(REPLACE_EXTENSION abs LAST_ONLY .h OUTPUT_VARIABLE header)
    if(EXISTS ${header})
      list(APPEND files ${header})
    endif()
    cmake_path(GET abs PARENT_PATH folder)
    file(GLOB headers CONFIGURE_DEPENDS ${folder}/*.h)
    foreach(h IN LISTS headers)
      cmake_path(REPLACE_EXTENSION h LAST_ONLY .cpp OUTPUT_VARIABLE own_source)
      if(NOT EXISTS ${own_source})
        list(APPEND files ${h})
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES files)
  set(${out} ${files} PARENT_SCOPE)
endfunction()

set(WINML_CODE_UNITS_FILE ${CMAKE_CURRENT_BINARY_DIR}/code_units.txt)
set(unit_lines "")
set(all_code_files "")
foreach(lib winml_base winml_store winml_ep winml_config winml_model winml_export winml_runtime
            winml_passes winml_analyze winml_quant winml_compile)
  set(closure ${lib})
  winml_link_closure(${lib} closure)
  foreach(member IN LISTS closure)
    winml_library_files(${member} files)
    foreach(f IN LISTS files)
      file(RELATIVE_PATH rel ${WINML_SRC} ${f})
      string(APPEND unit_lines "${lib}|${rel}\n")
      list(APPEND all_code_files ${f})
    endforeach()
  endforeach()
endforeach()
file(GLOB adapters CONFIGURE_DEPENDS ${WINML_SRC}/stages/*_stage.cpp
     ${WINML_SRC}/stages/*_stages.cpp ${WINML_SRC}/stages/auto_optimize.cpp
     ${WINML_SRC}/stages/stage.cpp)
foreach(cpp IN LISTS adapters)
  cmake_path(GET cpp STEM stem)
  foreach(f ${cpp} ${WINML_SRC}/stages/${stem}.h)
    file(RELATIVE_PATH rel ${WINML_SRC} ${f})
    string(APPEND unit_lines "stages/${stem}|${rel}\n")
    list(APPEND all_code_files ${f})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES all_code_files)
file(CONFIGURE OUTPUT ${WINML_CODE_UNITS_FILE} CONTENT "${unit_lines}")
set(WINML_CODE_DIGESTS_CPP ${CMAKE_CURRENT_BINARY_DIR}/code_digests.cpp)
add_custom_command(
  OUTPUT ${WINML_CODE_DIGESTS_CPP}
  COMMAND ${CMAKE_COMMAND} -DROOT=${WINML_SRC} -DUNITS=${WINML_CODE_UNITS_FILE}
          -DOUT=${WINML_CODE_DIGESTS_CPP} -P ${WINML_SRC}/stages/code_digest.cmake
  DEPENDS ${all_code_files} ${WINML_CODE_UNITS_FILE} ${WINML_SRC}/stages/code_digest.cmake
  COMMENT "Digesting the code of each stage")
target_sources(winml_stages PRIVATE ${WINML_CODE_DIGESTS_CPP})
