# Warnings for heddle's own targets (not for code that includes its headers).
function(heddle_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wno-missing-field-initializers)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 reports false -Wrestrict positives inside libstdc++'s std::string.
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(HEDDLE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
