# Runs nanobind's stubgen on the built _gpumeter module (cmake -P, from python/CMakeLists.txt).
# A failure is a warning that says what is lost, not a failed build: the module works without its
# stub, only type checkers see less.
file(REMOVE "${OUTPUT}")
if(NOT STUBGEN)
  message(WARNING "gpumeter: nanobind's stubgen.py was not found; the package ships without "
                  "_gpumeter.pyi (type checkers will not see the extension's types)")
  return()
endif()
execute_process(
  COMMAND "${PYTHON}" "${STUBGEN}" -q -i "${MODULE_DIR}" -m _gpumeter -o "${OUTPUT}"
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS "${OUTPUT}")
  file(REMOVE "${OUTPUT}")
  message(WARNING "gpumeter: nanobind's stubgen failed (${rc}); the package ships without "
                  "_gpumeter.pyi (type checkers will not see the extension's types):\n${out}${err}")
endif()
