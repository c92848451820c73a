#include "gpumeter/pattern.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpumeter/detail/escape.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter {
namespace {

constexpr int kUnbounded = -1;

// The parsed pattern: an alternation of sequences of quantified atoms.
struct Piece {
  int node = 0;
  int min = 1;
  int max = 1;  // kUnbounded for * and +
};
struct Node {
  enum Kind { byte_set, line_start, line_end, group } kind = byte_set;
  int set = 0;
  std::vector<std::vector<Piece>> alternatives;  // a group's
};

using ByteSet = std::array<bool, 256>;

class Parser {
 public:
  Parser(std::string_view pattern, std::string_view option) : text_(pattern), option_(option) {}

  std::vector<Node> nodes;
  std::vector<ByteSet> sets;

  int parse() {
    const int root = group(0);
    if (at_ < text_.size()) fail("a ')' closes no group (at byte " + std::to_string(at_ + 1) + ")");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw ConfigError(std::string(option_),
                      "the pattern " + quoted_text(text_, 60) +
                          " is not a valid regular expression of the subset read: " + why +
                          ". Patterns are a regular-expression subset (literal text, . ^ $, "
                          "[classes], \\d \\w \\s, groups, |, * + ? {n,m}) matched in linear time");
  }

  bool more() const { return at_ < text_.size(); }
  char peek() const { return text_[at_]; }

  int add_set(const ByteSet& s) {
    sets.push_back(s);
    return static_cast<int>(sets.size()) - 1;
  }
  int add_node(Node n) {
    nodes.push_back(std::move(n));
    return static_cast<int>(nodes.size()) - 1;
  }

  // An alternation up to the matching ')' or the end; `depth` groups enclose it.
  int group(std::size_t depth) {
    Node g;
    g.kind = Node::group;
    g.alternatives.emplace_back();
    while (more() && peek() != ')') {
      if (peek() == '|') {
        ++at_;
        g.alternatives.emplace_back();
        continue;
      }
      Piece p;
      p.node = atom(depth);
      quantifier(p);
      g.alternatives.back().push_back(p);
    }
    return add_node(std::move(g));
  }

  int atom(std::size_t depth) {
    const char c = text_[at_++];
    switch (c) {
      case '(': {
        if (depth + 1 > kMaxPatternDepth) {
          fail("groups nest deeper than " + std::to_string(kMaxPatternDepth) + " levels");
        }
        if (more() && peek() == '?') {
          if (at_ + 1 < text_.size() && text_[at_ + 1] == ':') {
            at_ += 2;
          } else {
            fail("lookaround and named groups ('(?') are outside the subset");
          }
        }
        const int inner = group(depth + 1);
        if (!more()) fail("a '(' is never closed");
        ++at_;  // ')'
        return inner;
      }
      case '[':
        return add_node(Node{Node::byte_set, class_set(), {}});
      case '.': {
        ByteSet s{};
        s.fill(true);
        s['\n'] = s['\r'] = false;
        return add_node(Node{Node::byte_set, add_set(s), {}});
      }
      case '^':
        return add_node(Node{Node::line_start, 0, {}});
      case '$':
        return add_node(Node{Node::line_end, 0, {}});
      case '*':
      case '+':
      case '?':
        fail(std::string("'") + c + "' at byte " + std::to_string(at_) + " repeats nothing");
      case '\\': {
        ByteSet s{};
        escape(s);
        return add_node(Node{Node::byte_set, add_set(s), {}});
      }
      default: {
        ByteSet s{};
        s[static_cast<unsigned char>(c)] = true;
        return add_node(Node{Node::byte_set, add_set(s), {}});
      }
    }
  }

  // The escape after a backslash, added to `s`.
  void escape(ByteSet& s) {
    if (!more()) fail("the pattern ends in a lone '\\'");
    const char e = text_[at_++];
    const auto range = [&](char lo, char hi) {
      for (int b = static_cast<unsigned char>(lo); b <= static_cast<unsigned char>(hi); ++b)
        s[static_cast<std::size_t>(b)] = true;
    };
    const auto negate_of = [&](const auto& fill) {
      ByteSet t{};
      std::swap(s, t);
      fill();
      for (std::size_t b = 0; b < s.size(); ++b) s[b] = t[b] || !s[b];
    };
    const auto digit = [&] { range('0', '9'); };
    const auto word = [&] {
      range('0', '9');
      range('a', 'z');
      range('A', 'Z');
      s['_'] = true;
    };
    const auto space = [&] {
      for (const char w : std::string_view(" \t\n\r\f\v")) s[static_cast<unsigned char>(w)] = true;
    };
    switch (e) {
      case 'd':
        return digit();
      case 'D':
        return negate_of(digit);
      case 'w':
        return word();
      case 'W':
        return negate_of(word);
      case 's':
        return space();
      case 'S':
        return negate_of(space);
      case 'n':
        s['\n'] = true;
        return;
      case 't':
        s['\t'] = true;
        return;
      case 'r':
        s['\r'] = true;
        return;
      default:
        break;
    }
    const bool alnum = (e >= '0' && e <= '9') || (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z');
    if (alnum) {
      fail(std::string("'\\") + e +
           "' is outside the subset (back-references, \\b and letter escapes other than "
           "\\d \\w \\s \\n \\t \\r are not read)");
    }
    s[static_cast<unsigned char>(e)] = true;  // punctuation or a byte >= 0x80, as itself
  }

  // A class after '[': its set's index.
  int class_set() {
    ByteSet s{};
    bool negated = false;
    if (more() && peek() == '^') {
      negated = true;
      ++at_;
    }
    bool first = true;
    for (;;) {
      if (!more()) fail("a '[' is never closed");
      char c = text_[at_++];
      if (c == ']' && !first) break;
      first = false;
      if (c == '\\') {
        escape(s);
        continue;
      }
      if (at_ + 1 < text_.size() && peek() == '-' && text_[at_ + 1] != ']') {
        ++at_;
        char hi = text_[at_++];
        if (hi == '\\') {
          if (!more()) fail("the pattern ends in a lone '\\'");
          hi = text_[at_++];
        }
        if (static_cast<unsigned char>(hi) < static_cast<unsigned char>(c)) {
          fail(std::string("the range '") + c + "-" + hi + "' runs backwards");
        }
        for (int b = static_cast<unsigned char>(c); b <= static_cast<unsigned char>(hi); ++b)
          s[static_cast<std::size_t>(b)] = true;
        continue;
      }
      s[static_cast<unsigned char>(c)] = true;
    }
    if (negated) {
      for (bool& b : s) b = !b;
    }
    return add_set(s);
  }

  // A whole number of at most four digits at at_, or -1 (leaving at_ where it was).
  int count() {
    int v = 0;
    std::size_t digits = 0;
    while (more() && peek() >= '0' && peek() <= '9') {
      if (++digits > 4) fail("a repeat count is larger than " + std::to_string(kMaxPatternRepeat));
      v = v * 10 + (peek() - '0');
      ++at_;
    }
    return digits == 0 ? -1 : v;
  }

  void quantifier(Piece& p) {
    if (!more()) return;
    const char c = peek();
    if (c == '*') {
      p.min = 0;
      p.max = kUnbounded;
      ++at_;
    } else if (c == '+') {
      p.min = 1;
      p.max = kUnbounded;
      ++at_;
    } else if (c == '?') {
      p.min = 0;
      p.max = 1;
      ++at_;
    } else if (c == '{') {
      const std::size_t start = at_++;
      const int lo = count();
      int hi = lo;
      if (lo >= 0 && more() && peek() == ',') {
        ++at_;
        hi = count();
        if (hi < 0) hi = kUnbounded;
      }
      if (lo < 0 || !more() || peek() != '}') {
        at_ = start;  // not a repeat: '{' is a literal, as ECMAScript reads it
        return;
      }
      ++at_;
      if (lo > kMaxPatternRepeat || hi > kMaxPatternRepeat) {
        fail("a repeat count is larger than " + std::to_string(kMaxPatternRepeat));
      }
      if (hi != kUnbounded && hi < lo) fail("a repeat {n,m} has m < n");
      p.min = lo;
      p.max = hi;
    } else {
      return;
    }
    if (more() && peek() == '?') ++at_;  // lazy: the same yes or no
    if (more() && (peek() == '*' || peek() == '+' || peek() == '?')) {
      fail(std::string("'") + peek() + "' at byte " + std::to_string(at_ + 1) +
           " repeats a repeat");
    }
  }

  std::string_view text_;
  std::string_view option_;
  std::size_t at_ = 0;
};

// Thompson's construction of the parsed pattern, bounded in size.
class Compiler {
 public:
  Compiler(const Parser& parsed, std::string_view pattern, std::string_view option)
      : parsed_(parsed), pattern_(pattern), option_(option) {}

  std::vector<NamePattern::Instruction> program;

  int emit(NamePattern::Instruction::Op op, int x = 0, int y = 0) {
    if (program.size() >= kMaxPatternProgram) {
      throw ConfigError(std::string(option_), "the pattern " + quoted_text(pattern_, 60) +
                                                  " is not read: its repeats "
                                                  "make a program of more than " +
                                                  std::to_string(kMaxPatternProgram) +
                                                  " steps; write fewer or smaller {n,m} repeats");
    }
    program.push_back({op, x, y});
    return static_cast<int>(program.size()) - 1;
  }

  void node(int index) {
    const Node& n = parsed_.nodes[static_cast<std::size_t>(index)];
    using I = NamePattern::Instruction;
    switch (n.kind) {
      case Node::byte_set:
        emit(I::byte_set, n.set);
        return;
      case Node::line_start:
        emit(I::line_start);
        return;
      case Node::line_end:
        emit(I::line_end);
        return;
      case Node::group:
        break;
    }
    std::vector<int> to_end;
    for (std::size_t a = 0; a < n.alternatives.size(); ++a) {
      const bool last = a + 1 == n.alternatives.size();
      int split = -1;
      if (!last) split = emit(I::split);
      if (split >= 0) program[static_cast<std::size_t>(split)].x = here();
      for (const Piece& p : n.alternatives[a]) piece(p);
      if (!last) {
        to_end.push_back(emit(I::jump));
        program[static_cast<std::size_t>(split)].y = here();
      }
    }
    for (const int j : to_end) program[static_cast<std::size_t>(j)].x = here();
  }

  void piece(const Piece& p) {
    using I = NamePattern::Instruction;
    for (int i = 0; i < p.min; ++i) node(p.node);
    if (p.max == kUnbounded) {
      const int split = emit(I::split);
      program[static_cast<std::size_t>(split)].x = here();
      node(p.node);
      emit(I::jump, split);
      program[static_cast<std::size_t>(split)].y = here();
      return;
    }
    std::vector<int> skips;
    for (int i = p.min; i < p.max; ++i) {
      const int split = emit(I::split);
      program[static_cast<std::size_t>(split)].x = here();
      skips.push_back(split);
      node(p.node);
    }
    for (const int s : skips) program[static_cast<std::size_t>(s)].y = here();
  }

  int here() const { return static_cast<int>(program.size()); }

 private:
  const Parser& parsed_;
  std::string_view pattern_;
  std::string_view option_;
};

}  // namespace

NamePattern::NamePattern(std::string_view pattern, std::string_view option) {
  if (pattern.size() > kMaxPatternBytes) {
    throw ConfigError(std::string(option), "the pattern is " + std::to_string(pattern.size()) +
                                               " bytes, more than the " +
                                               std::to_string(kMaxPatternBytes) +
                                               " read: match on a shorter part of the names");
  }
  Parser parser(pattern, option);
  const int root = parser.parse();
  Compiler compiler(parser, pattern, option);
  compiler.node(root);
  compiler.emit(Instruction::match);
  program_ = std::move(compiler.program);
  sets_.reserve(parser.sets.size());
  for (const ByteSet& s : parser.sets) sets_.emplace_back(s.begin(), s.end());
}

bool NamePattern::search(std::string_view name) const {
  // The set of program counters alive at a position (Thompson's simulation, no backtracking):
  // each position costs at most one visit per instruction.
  std::vector<int> now;
  std::vector<int> next;
  std::vector<int> stack;
  std::vector<std::size_t> seen(program_.size(), 0);
  std::size_t generation = 0;
  const auto add = [&](std::vector<int>& list, int start, std::size_t pos) {
    stack.push_back(start);
    while (!stack.empty()) {
      const int pc = stack.back();
      stack.pop_back();
      std::size_t& mark = seen[static_cast<std::size_t>(pc)];
      if (mark == generation) continue;
      mark = generation;
      const Instruction& in = program_[static_cast<std::size_t>(pc)];
      switch (in.op) {
        case Instruction::jump:
          stack.push_back(in.x);
          break;
        case Instruction::split:
          stack.push_back(in.y);
          stack.push_back(in.x);
          break;
        case Instruction::line_start:
          if (pos == 0) stack.push_back(pc + 1);
          break;
        case Instruction::line_end:
          if (pos == name.size()) stack.push_back(pc + 1);
          break;
        case Instruction::byte_set:
        case Instruction::match:
          list.push_back(pc);
          break;
      }
    }
  };
  ++generation;
  add(now, 0, 0);
  for (std::size_t pos = 0;; ++pos) {
    for (const int pc : now) {
      if (program_[static_cast<std::size_t>(pc)].op == Instruction::match) return true;
    }
    if (pos == name.size()) return false;
    ++generation;
    next.clear();
    const auto byte = static_cast<unsigned char>(name[pos]);
    for (const int pc : now) {
      const Instruction& in = program_[static_cast<std::size_t>(pc)];
      if (in.op == Instruction::byte_set && sets_[static_cast<std::size_t>(in.x)][byte]) {
        add(next, pc + 1, pos + 1);
      }
    }
    add(next, 0, pos + 1);  // a match may begin at any position
    std::swap(now, next);
  }
}

}  // namespace gpumeter
