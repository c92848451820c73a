# Writes _errors.pyi from the built _gpumeter module's error catalogue (cmake -P, from
# python/CMakeLists.txt). As with stubgen.cmake, a failure is a warning that says what is lost,
# not a failed build: the classes work without the stub, only type checkers see less.
file(REMOVE "${OUTPUT}")
execute_process(
  COMMAND "${PYTHON}" "${SCRIPT}" "${MODULE_DIR}" "${OUTPUT}"
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS "${OUTPUT}")
  file(REMOVE "${OUTPUT}")
  message(WARNING "gpumeter: _errors.pyi could not be written (${rc}); the package ships without "
                  "it (type checkers will not see the error classes' fields):\n${out}${err}")
endif()
