# heddle_instrument(<target>...): build targets for heddle's push-button mode.
#
# With the option HEDDLE_INSTRUMENT on, each target is compiled with
# -fsanitize=thread and linked to libheddle-rt (heddle::rt), which implements
# the ThreadSanitizer ABI and the pthread API on heddle's models, instead of
# libtsan. The flag is a compile option only, so the link pulls no libtsan;
# heddle::rt brings the library and, in the build tree, its rpath. Works inside
# heddle's build and in a project that did find_package(heddle). With the
# option off, the function does nothing, so a project can call it
# unconditionally:
#   option(HEDDLE_INSTRUMENT "..." OFF)  # defined here
#   heddle_instrument(server libcache)
option(HEDDLE_INSTRUMENT "Compile targets given to heddle_instrument() for heddle (-fsanitize=thread, libheddle-rt)" OFF)

function(heddle_instrument)
  if(NOT HEDDLE_INSTRUMENT)
    return()
  endif()
  if(NOT TARGET heddle::rt)
    message(FATAL_ERROR "heddle_instrument: no target heddle::rt (find_package(heddle) first, or build inside heddle)")
  endif()
  foreach(target IN LISTS ARGN)
    target_compile_options(${target} PRIVATE -fsanitize=thread $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wno-tsan>
                                             $<$<COMPILE_LANG_AND_ID:C,GNU>:-Wno-tsan>)
    target_link_libraries(${target} PRIVATE heddle::rt)
  endforeach()
endfunction()
