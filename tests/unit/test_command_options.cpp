// The gpumeter command's options (src/cli/command_options.hpp): every subcommand registers
// exactly the entries of its table, with their helps and number rules, so an option added beside
// the table fails here; an option name that several programs share keeps one meaning.
#include "command_options.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"
#include "gpumeter/candidate_verdict.hpp"
#include "gpumeter/exit_help.hpp"
#include "gpumeter/option_spec.hpp"
#include "gpumeter/option_table.hpp"
#include "number_option.hpp"

namespace gpumeter::cli {
namespace GPUMETER_THIS_FILE {

// `option`'s names as a table writes them: "--device", "-o,--output".
std::string names_of(const CLI::Option& option) {
  std::string names;
  auto add = [&names](const std::string& name) { names += (names.empty() ? "" : ",") + name; };
  for (const std::string& s : option.get_snames()) add("-" + s);
  for (const std::string& l : option.get_lnames()) add("--" + l);
  return names;
}

// The options of `sub` that a table lists: not its positional arguments, not CLI11's --help.
std::vector<const CLI::Option*> listed_options(const CLI::App& sub) {
  std::vector<const CLI::Option*> options;
  for (const CLI::Option* o : sub.get_options()) {
    if (o == sub.get_help_ptr() || o == sub.get_help_all_ptr()) continue;
    if (o->get_snames().empty() && o->get_lnames().empty()) continue;  // a positional
    options.push_back(o);
  }
  return options;
}

TEST(CommandOptions, EverySubcommandRegistersExactlyItsTableInOrder) {
  CLI::App app;
  const std::vector<Command> commands = add_commands(app);
  ASSERT_EQ(commands.size(), command_options().size()) << "a subcommand without a table entry";
  for (const CommandOptions& table : command_options()) {
    SCOPED_TRACE(std::string(table.command));
    const CLI::App* sub = app.get_subcommand(std::string(table.command));
    const std::vector<const CLI::Option*> registered = listed_options(*sub);
    std::vector<std::string> registered_names;
    std::vector<std::string> table_names;
    for (const CLI::Option* o : registered) registered_names.push_back(names_of(*o));
    for (const CommandOption& entry : table.options) table_names.emplace_back(entry.names);
    ASSERT_EQ(registered_names, table_names);
    for (std::size_t i = 0; i < registered.size(); ++i) {
      const OptionMeaning& m = table.options[i].meaning;
      SCOPED_TRACE(table_names[i]);
      EXPECT_EQ(registered[i]->get_expected_max() > 0, m.takes_value);
      // The table's help, then at most the default or note a command adds.
      EXPECT_EQ(registered[i]->get_description().rfind(m.help, 0), 0u);
      EXPECT_FALSE(m.help.empty());
    }
  }
}

// A numeric option refuses a value below its rule in check_number's words, whichever command
// has it: the rule is the entry's, not each registration's.
TEST(CommandOptions, EveryNumericOptionChecksItsTablesRule) {
  for (const CommandOptions& table : command_options()) {
    for (const CommandOption& entry : table.options) {
      if (entry.meaning.rule == nullptr) continue;
      const NumberRule& rule = *entry.meaning.rule;
      const std::string name(entry.names);
      const std::string below = bound_text(rule.min_excluded ? rule.min : rule.min - 1);
      const std::string command(table.command);
      const std::string argument = name + "=" + below;
      const char* argv[] = {"gpumeter", command.c_str(), argument.c_str()};
      std::ostringstream out;
      std::ostringstream err;
      EXPECT_EQ(run(3, argv, out, err), kExitUsage) << command << " " << argument;
      EXPECT_NE(err.str().find("gpumeter " + command + ": " + number_problem(name, below, rule)),
                std::string::npos)
          << command << " " << argument << ": " << err.str();
    }
  }
}

// An option its subcommand's table lacks, or lists as the other kind, is refused when registered.
TEST(CommandOptions, AnOptionOutsideTheTableIsRefused) {
  CLI::App app;
  CLI::App* sub = app.add_subcommand("env");
  bool json = false;
  EXPECT_NO_THROW(add_command_flag(*sub, "--json", json));
  EXPECT_THROW(add_command_flag(*sub, "--allow-contended", json), std::logic_error);
  int device = 0;
  EXPECT_THROW(add_command_flag(*app.add_subcommand("lock"), "--device", json), std::logic_error)
      << "--device takes a value";
  EXPECT_THROW(add_command_option(*app.add_subcommand("nothing"), "--device", device),
               std::logic_error);
}

// One name means one thing across the benchmark programs and every subcommand, unless it is
// listed here with what tells its meanings apart.
TEST(CommandOptions, AnOptionNameSharedByProgramsHasOneMeaning) {
  const std::set<std::string> apart = {
      "--out",      // a record's folder (a program, run), plot's figures, history's site
      "--device",   // the device to use; under run, the one the record names (the program chooses)
      "--timeout",  // a program's case limit; lock's wait for the lock (--lock-timeout elsewhere)
  };
  std::map<std::string, std::vector<OptionMeaning>> meanings;
  for (const ProgramOption& o : program_options())
    meanings[std::string(o.name)].push_back(o.meaning);
  for (const CommandOptions& table : command_options()) {
    for (const CommandOption& o : table.options) {
      meanings[std::string(o.names)].push_back(o.meaning);
    }
  }
  for (const auto& [name, list] : meanings) {
    if (apart.count(name) != 0) continue;
    for (const OptionMeaning& m : list) EXPECT_EQ(m, list.front()) << name;
  }
  // The meanings written once are those the benchmark programs and the command share.
  EXPECT_EQ(command_option("lock", "--timeout").meaning,
            find_program_option("--lock-timeout")->meaning);
  EXPECT_EQ(command_option("env", "--device").meaning, find_program_option("--device")->meaning);
  EXPECT_EQ(command_option("run", "--out").meaning, find_program_option("--out")->meaning);
  // And the shared specs (option_spec.hpp) the main job and `gpumeter evaluate` build their
  // --device and --out from are the benchmark programs' own.
  for (const char* name : {"--device", "--out"}) {
    EXPECT_EQ(option_spec(name).meaning, find_program_option(name)->meaning) << name;
  }
}

// Every subcommand's help lists its exit codes in the one table's words (exit_help.hpp): the
// sentence is made, never typed, so the codes and the general meanings cannot drift apart.
TEST(ExitCodesHelp, ASentenceFromTheTableInTheOrderGiven) {
  EXPECT_EQ(exit_codes_help({{kExitOk, "done"}, {kExitInternal}, {kExitSignalBase, "signal N"}}),
            "Exit codes: 0 done; 3 an internal error; 128+N signal N.");
  EXPECT_THROW((void)exit_codes_help({{42, "no such code"}}), std::logic_error);
  for (const int code : {kExitOk, kExitFailed, kExitUsage, kExitInternal, kExitBusy, kExitNoDevice,
                         kExitOrphaned, kExitCannotRun, kExitNotFound, kExitSignalBase}) {
    EXPECT_FALSE(exit_code_meaning(code).empty()) << code;
  }
  CLI::App app;
  (void)add_commands(app);
  for (const CommandOptions& table : command_options()) {
    const CLI::App* sub = app.get_subcommand(std::string(table.command));
    EXPECT_NE(sub->get_footer().find("Exit codes: "), std::string::npos) << table.command;
  }
  EXPECT_NE(app.get_subcommand("evaluate")->get_footer().find(evaluate_exit_codes_help()),
            std::string::npos);
  EXPECT_NE(app.get_subcommand("plot")->get_footer().find(plot_exit_codes_help()),
            std::string::npos);
}

TEST(CommandOptionsTest, EvaluatesHelpNamesEveryVerdictByItsName) {
  // The verdicts are the core's (kVerdicts, to_string): a list typed by hand left "not measured"
  // out and said "timed-out" for "timeout".
  CLI::App app;
  (void)add_commands(app);
  const std::string description = app.get_subcommand("evaluate")->get_description();
  const std::string exit_help = evaluate_exit_codes_help();
  const std::string at_0 = exit_help.substr(0, exit_help.find("; 1 "));
  for (const Verdict v : kVerdicts) {
    EXPECT_NE(description.find(std::string(to_string(v))), std::string::npos) << to_string(v);
    // Exit 0 lists the answers that are no comparison's: wrong, refused, crashed, ...
    const bool listed_at_0 = !verdict_compares(v) && evaluation_exit_code({v}) == kExitOk;
    EXPECT_EQ(at_0.find(to_string(v)) != std::string::npos, listed_at_0)
        << to_string(v) << ": " << at_0;
  }
  EXPECT_EQ(exit_help.find("timed-out"), std::string::npos);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter::cli
