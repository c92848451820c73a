# Records, tables and the gpumeter command (P10, B2). Included from tests/unit/CMakeLists.txt.
gpumeter_unit_test(test_record_io test_record_io.cpp)
target_link_libraries(test_record_io PRIVATE gpumeter_record nlohmann_json::nlohmann_json)
target_compile_definitions(test_record_io
  PRIVATE GPUMETER_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")

# A run's record kept as it goes: its journal, read back as a partial record; the record written
# once.
gpumeter_unit_test(test_run_recorder test_run_recorder.cpp)
target_link_libraries(test_run_recorder PRIVATE gpumeter_record)
target_compile_definitions(test_run_recorder
  PRIVATE GPUMETER_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")

# The reader's time, linear in its input (B7): run alone, as a timing test.
gpumeter_unit_test(test_record_scaling test_record_scaling.cpp SERIAL)
target_link_libraries(test_record_scaling PRIVATE gpumeter_record)
if(GPUMETER_SANITIZE)
  target_compile_definitions(test_record_scaling PRIVATE GPUMETER_SANITIZED)
endif()

gpumeter_unit_test(test_table test_table.cpp)
target_link_libraries(test_table PRIVATE gpumeter_report)
# The narrow table, fed the committed H200 records too.
gpumeter_unit_test(test_terminal_table test_terminal_table.cpp)
target_link_libraries(test_terminal_table PRIVATE gpumeter_report)
target_compile_definitions(test_terminal_table PRIVATE GPUMETER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

# A run's temporary files: locked by their writer, removed by a later run once it is gone.
gpumeter_unit_test(test_temporary_file test_temporary_file.cpp)
target_link_libraries(test_temporary_file PRIVATE gpumeter_record)
target_include_directories(test_temporary_file PRIVATE ${PROJECT_SOURCE_DIR}/src/record)

# The rule every numeric command-line option follows (header only).
gpumeter_unit_test(test_number_option test_number_option.cpp)
target_link_libraries(test_number_option PRIVATE CLI11::CLI11)
target_include_directories(test_number_option PRIVATE ${PROJECT_SOURCE_DIR}/src/cli)

# The reader's property (B7) on the fuzzer's seed corpus and variants of it.
gpumeter_unit_test(test_record_property test_record_property.cpp)
target_link_libraries(test_record_property PRIVATE gpumeter_report nlohmann_json::nlohmann_json)
target_include_directories(test_record_property PRIVATE ${PROJECT_SOURCE_DIR}/tests/fuzz)
target_compile_definitions(test_record_property
  PRIVATE GPUMETER_FUZZ_CORPUS_DIR="${PROJECT_SOURCE_DIR}/tests/fuzz/corpus")

# Writes known records for the CLI test (and regenerates tests/data/record_v2.json).
add_executable(gpumeter_make_record ${PROJECT_SOURCE_DIR}/tests/cli/make_record.cpp)
target_include_directories(gpumeter_make_record PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(gpumeter_make_record PRIVATE gpumeter_record)
gpumeter_warnings(gpumeter_make_record)

add_test(NAME cli_report
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/cli/test_report.sh
          $<TARGET_FILE:gpumeter> $<TARGET_FILE:gpumeter_make_record>)
set_tests_properties(cli_report PROPERTIES LABELS "unit;cli" TIMEOUT 60)

# Records altered to claim what no run gives (precision outcomes, elapsed times, rows twice,
# program sections, phases of no row, totals below their parts, N and budgets): each refused.
gpumeter_unit_test(test_impossible_records test_impossible_records.cpp)
target_link_libraries(test_impossible_records PRIVATE gpumeter_record nlohmann_json::nlohmann_json)

# Rows holding what their method or device cannot measure, and budgets their counts cannot come
# from (issue 36): each refused; every committed record still reads.
gpumeter_unit_test(test_measurable_rows test_measurable_rows.cpp)
target_link_libraries(test_measurable_rows PRIVATE gpumeter_record nlohmann_json::nlohmann_json)
target_compile_definitions(test_measurable_rows
  PRIVATE GPUMETER_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
          GPUMETER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

# The reader's JSON scanner against the JSON library's parser, its oracle.
gpumeter_unit_test(test_json_scan test_json_scan.cpp)
target_link_libraries(test_json_scan PRIVATE nlohmann_json::nlohmann_json)
target_include_directories(test_json_scan
  PRIVATE ${PROJECT_SOURCE_DIR}/src/record ${PROJECT_SOURCE_DIR}/tests/fuzz)
target_compile_definitions(test_json_scan PRIVATE GPUMETER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
