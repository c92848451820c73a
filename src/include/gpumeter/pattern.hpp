#pragma once
// The one matcher of a user's name pattern (a benchmark program's --filter, gpumeter run's
// --range): a regular-expression subset matched in time linear in the name and the pattern, with
// a bounded pattern. A backtracking engine (the standard library's) recurses once per character
// and per nested group, so a long pattern ended the process with a signal and no message; this
// one compiles or refuses in one line, and matches without recursion.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpumeter {

// The longest pattern read, in bytes: a name filter is a few words; 4096 leaves room for a long
// alternation of names while keeping the compiled program, and so each match, small.
inline constexpr std::size_t kMaxPatternBytes = 4096;
// The deepest nesting of groups read: the parser recurses once per level, so its stack stays a
// few kilobytes, and no name filter needs more than a few levels.
inline constexpr std::size_t kMaxPatternDepth = 64;
// The largest compiled program, in instructions: {n,m} copies its atom, so "(a{1000}){1000}"
// would otherwise be a million; a match costs at most this per byte of the name.
inline constexpr std::size_t kMaxPatternProgram = 20000;
// The largest count in {n} or {n,m}, as RE2 bounds it.
inline constexpr int kMaxPatternRepeat = 1000;

// A compiled pattern. The subset (ECMAScript's spelling): literal bytes; '.' (any byte but a
// line end); '^' and '$' (the name's start and end); classes "[a-z_]", "[^0-9]"; the escapes
// \d \D \w \W \s \S and a backslash before any punctuation; groups "(...)" and "(?:...)";
// alternation '|'; the quantifiers * + ? {n} {n,} {n,m}, greedy or lazy (a match is yes or no,
// so both read alike). Back-references, lookaround and \b are refused by name. Bytes are
// matched as bytes: a UTF-8 character is matched by its bytes in sequence.
class NamePattern {
 public:
  // Compiles `pattern`, or throws ConfigError naming `option` ("--filter") with one line: the
  // pattern (cut, quoted), the rule it breaks and what to do.
  NamePattern(std::string_view pattern, std::string_view option);

  // Whether any part of `name` matches (std::regex_search's meaning), in time proportional to
  // the name's length times the program's size.
  bool search(std::string_view name) const;

  struct Instruction {
    enum Op : unsigned char { byte_set, split, jump, line_start, line_end, match } op;
    int x = 0;  // byte_set: the set's index; split, jump: the target
    int y = 0;  // split: the second target
  };

 private:
  std::vector<Instruction> program_;
  std::vector<std::vector<bool>> sets_;  // 256 entries each
};

}  // namespace gpumeter
