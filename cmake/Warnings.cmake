# Warnings on our own code (never on third-party headers, pulled in as SYSTEM). They are errors
# only where asked for (GPUMETER_WERROR, which CI's scripts/test.sh turns on): a user's compiler
# is not ours to choose, and a newer one's new warning must not stop their build.
option(GPUMETER_WERROR "Treat warnings in gpumeter's own code as errors (CI)" OFF)
function(gpumeter_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
    # GCC 12 at -O3 reports -Wrestrict inside libstdc++'s string concatenation (GCC bug 105651).
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
  if(GPUMETER_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>
                                             $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Werror --Werror all-warnings>)
  endif()
endfunction()
