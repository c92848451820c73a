# Records, tables and the gpumeter command (P10, B2): the programs the CLI tests run. Included
# from tests/unit/CMakeLists.txt (the unit tests of records are its unit_records).

# Writes known records for the CLI test (and regenerates tests/data/record_v2.json).
add_executable(gpumeter_make_record ${PROJECT_SOURCE_DIR}/tests/cli/make_record.cpp)
target_include_directories(gpumeter_make_record PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(gpumeter_make_record PRIVATE gpumeter_record)
gpumeter_warnings(gpumeter_make_record)

add_test(NAME cli_report
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/cli/test_report.sh
          $<TARGET_FILE:gpumeter> $<TARGET_FILE:gpumeter_make_record>)
set_tests_properties(cli_report PROPERTIES LABELS "unit;cli" TIMEOUT 60)
