#include "gpumeter/detail/error_class.hpp"

#include <string_view>
#include <vector>

#include "gpumeter/error_catalogue.hpp"

namespace gpumeter {

std::string_view to_string(ErrorClass error_class) {
  switch (error_class) {
    case ErrorClass::wrong:
      return "wrong";
    case ErrorClass::refused:
      return "refused";
    case ErrorClass::not_measured:
      return "not measured";
    case ErrorClass::failed:
      return "failed";
  }
  return "failed";
}

const std::vector<ErrorEntry>& error_table() {
  static const std::vector<ErrorEntry> table{
#define GPUMETER_ENTRY(Name, error_class, exit_code, base, fields, doc) \
  {#Name, ErrorClass::error_class},
#define GPUMETER_NO_FIELD(...)
      GPUMETER_ERRORS(GPUMETER_ENTRY, GPUMETER_NO_FIELD, )
#undef GPUMETER_ENTRY
#undef GPUMETER_NO_FIELD
      // The base class: an error of the case's own code or set-up, as is any name not known.
      {"Error", ErrorClass::failed},
  };
  return table;
}

int exit_code_of_error(std::string_view error_name) {
#define GPUMETER_EXIT(Name, error_class, exit_code, base, fields, doc) \
  if (error_name == #Name) return exit_code;
#define GPUMETER_NO_FIELD(...)
  GPUMETER_ERRORS(GPUMETER_EXIT, GPUMETER_NO_FIELD, )
#undef GPUMETER_EXIT
#undef GPUMETER_NO_FIELD
  return error_name == "std::exception" ? kExitInternal : kExitFailed;
}

int exit_code_of_error(const std::exception& error) {
  return exit_code_of_error(error_name(error));
}

ErrorClass error_class_of(std::string_view error_name) {
  for (const ErrorEntry& e : error_table()) {
    if (e.name == error_name) return e.error_class;
  }
  return ErrorClass::failed;
}

}  // namespace gpumeter
