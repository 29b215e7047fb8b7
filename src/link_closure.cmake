# winml_link_closure(<target> <out>): the winml libraries <target> links,
# directly or through others, appended to the list <out> names. The code
# digests (pipeline/code_units.cmake) and the layering check (layering.cmake)
# both read the architecture from these links.
function(winml_link_closure target out)
  set(seen ${${out}})
  get_target_property(links ${target} LINK_LIBRARIES)
  foreach(l IN LISTS links)
    if(TARGET ${l} AND l MATCHES "^winml_" AND NOT l IN_LIST seen)
      list(APPEND seen ${l})
      winml_link_closure(${l} seen)
    endif()
  endforeach()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()
