// The benchmark programs' command line (src/benchmark/options.cpp): every option is registered
// from its entry of the one option table (option_table.hpp), which the sweep's identity and the
// case processes of --isolate read too.
#include "options.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpumeter/option_table.hpp"
#include "number_option.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

// Each option CLI11 holds after add_options (its own --help aside) has an entry that says what
// CLI11 does of it (a flag, or an option with a value) and gives its help; each entry is
// registered.
TEST(OptionTable, EveryRegisteredOptionIsAnEntryAndEveryEntryIsRegistered) {
  CLI::App app;
  program::Options o;
  program::add_options(app, o, "bench");
  std::set<std::string> registered;
  for (const CLI::Option* option : app.get_options()) {
    if (option == app.get_help_ptr()) continue;
    ASSERT_FALSE(option->get_lnames().empty()) << option->get_name();
    for (const std::string& lname : option->get_lnames()) {
      const std::string name = "--" + lname;
      const ProgramOption* entry = find_program_option(name);
      ASSERT_NE(entry, nullptr) << name << " is registered without an entry";
      EXPECT_EQ(entry->meaning.takes_value, program::cli_takes_value(*option)) << name;
      EXPECT_EQ(option->get_description().rfind(entry->meaning.help, 0), 0u) << name;
      EXPECT_EQ(option->get_group().empty(), entry->role == OptionRole::internal) << name;
      registered.insert(name);
    }
  }
  for (const ProgramOption& entry : program_options()) {
    EXPECT_EQ(registered.count(std::string(entry.name)), 1u) << entry.name;
    EXPECT_EQ(entry.name.rfind("--gpumeter-", 0) == 0, entry.role == OptionRole::internal)
        << entry.name;
  }
}

// The check is add_options' own: an option registered beside them without an entry is refused.
TEST(OptionTable, AnOptionWithoutAnEntryIsRefused) {
  CLI::App app;
  std::string extra;
  app.add_option("--extra", extra, "Not in the table");
  program::Options o;
  EXPECT_THROW(program::add_options(app, o, "bench"), std::logic_error);
}

// A numeric option is checked by its entry's rule (shared with the gpumeter command's option of the
// same meaning), in check_number's words.
TEST(OptionTable, NumericOptionsAreCheckedByTheirEntrysRule) {
  int checked = 0;
  for (const ProgramOption& entry : program_options()) {
    if (entry.meaning.rule == nullptr) continue;
    const NumberRule& rule = *entry.meaning.rule;
    const std::string name(entry.name);
    const std::string below = bound_text(rule.min_excluded ? rule.min : rule.min - 1);
    CLI::App app;
    program::Options o;
    program::add_options(app, o, "bench");
    try {
      app.parse(std::vector<std::string>{name + "=" + below});
      ADD_FAILURE() << name << "=" << below << " was accepted";
    } catch (const OptionValueError& e) {
      EXPECT_EQ(std::string(e.what()), number_problem(name, below, rule));
    }
    ++checked;
  }
  EXPECT_EQ(checked, 5);  // --device, --precision, --max-time, --timeout, --lock-timeout
}

// CLI11 reads the options as the table says: a flag takes nothing, an option the next argument.
TEST(OptionTable, CliReadsValuesAsTheTableSays) {
  CLI::App app;
  program::Options o;
  program::add_options(app, o, "bench");
  // --timeout 3 --quiet --filter y (CLI11 takes the arguments last first).
  app.parse(std::vector<std::string>{"y", "--filter", "--quiet", "3", "--timeout"});
  EXPECT_TRUE(o.quiet);
  EXPECT_EQ(o.timeout_s, 3);
  EXPECT_EQ(o.filter, "y");
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
