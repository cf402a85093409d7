// Every `$ ` example in README.md runs, in the order the README gives them,
// and prints what the README shows: the docs cannot drift from the tool.
//
// How an example's output is read (the README's own conventions):
// - a line "..." stands for any number of lines (a comment may follow it);
// - "..." inside a line stands for any text (elided columns);
// - runs of spaces match any run of spaces (column widths);
// - a command ending in "# an excerpt" shows some of its lines, in order;
// - a command with no output shown must exit 0;
// - a command marked "# not run by the tests" is only counted (it takes minutes).
// The commands run through sh in a scratch directory whose scenarios/, tests/,
// tools/ and docs/ are the sources' and whose build/ is the tested build, so
// files an example writes (baseline.json, records.jsonl) stay out of the tree.

#include "tests/paths.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {
namespace fs = std::filesystem;

struct Example {
  int line = 0;  // of the command in README.md
  std::string command;
  std::vector<std::string> output;
  bool excerpt = false;
  bool not_run = false;
};

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

// A comment the README puts after a command or an output line: two spaces or
// more, then "# ".
std::string without_comment(const std::string& s) {
  static const std::regex comment(R"(\s{2,}#\s.*$)");
  return rtrim(std::regex_replace(s, comment, ""));
}

std::vector<Example> readme_examples() {
  std::ifstream in(kSource + "/README.md");
  std::vector<Example> out;
  bool fenced = false, in_example = false;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      in_example = false;
      continue;
    }
    if (!fenced) continue;
    if (line.rfind("$ ", 0) == 0) {
      Example e;
      e.line = n;
      e.command = line.substr(2);
      out.push_back(e);
      in_example = true;
    } else if (in_example && ends_with(rtrim(out.back().command), "\\")) {
      out.back().command = rtrim(out.back().command);
      out.back().command.pop_back();
      out.back().command += " " + line;
    } else if (in_example) {
      out.back().output.push_back(line);
    }
  }
  for (auto& e : out) {
    e.excerpt = e.command.find("# an excerpt") != std::string::npos;
    e.not_run = e.command.find("# not run by the tests") != std::string::npos;
  }
  return out;
}

std::string escaped(const std::string& text) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(text, special, R"(\$&)");
}

// The expected line as a pattern: "..." is any text, spaces any spaces.
std::regex line_pattern(const std::string& expected) {
  std::string pattern;
  std::size_t from = 0;
  for (;;) {
    const auto dots = expected.find("...", from);
    std::string piece = escaped(expected.substr(from, dots == std::string::npos ? std::string::npos : dots - from));
    pattern += std::regex_replace(piece, std::regex(" +"), " +");
    if (dots == std::string::npos) break;
    pattern += ".*";
    from = dots + 3;
  }
  return std::regex(pattern);
}

bool is_gap(const std::string& expected) {
  const std::string text = without_comment(expected);
  return text.find_first_not_of(' ') != std::string::npos && text.substr(text.find_first_not_of(' ')) == "...";
}

// Whether `actual` reads as `expected`, line by line; a gap line (or every
// line boundary of an excerpt) may skip actual lines.
bool matches(const std::vector<std::string>& expected, const std::vector<std::string>& actual, bool excerpt) {
  // can[i][j]: expected[i..] matches actual[j..]
  std::vector<std::vector<char>> can(expected.size() + 1, std::vector<char>(actual.size() + 1, 0));
  for (std::size_t j = 0; j <= actual.size(); ++j) can[expected.size()][j] = excerpt || j == actual.size();
  for (std::size_t i = expected.size(); i-- > 0;) {
    const bool gap = is_gap(expected[i]);
    const std::regex pattern = gap ? std::regex() : line_pattern(without_comment(expected[i]));
    for (std::size_t j = actual.size() + 1; j-- > 0;) {
      bool ok = false;
      if (gap) ok = can[i + 1][j] || (j < actual.size() && can[i][j + 1]);
      else if (j < actual.size() && std::regex_match(rtrim(actual[j]), pattern)) ok = can[i + 1][j + 1];
      if (!ok && excerpt && !gap && j < actual.size()) ok = can[i][j + 1];
      can[i][j] = ok;
    }
  }
  return can[0][0] != 0;
}

// A scratch directory that looks like the source tree with build/ beside it.
fs::path scratch_tree() {
  const fs::path dir = fs::temp_directory_path() / fmt::format("rsim-readme-{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* sub : {"scenarios", "tests", "tools", "docs"}) fs::create_directory_symlink(fs::path(kSource) / sub, dir / sub);
  // RSIM_BINARY is BUILD/tools/rebalance-sim: build/ is BUILD.
  fs::create_directory_symlink(fs::path(kBinary).parent_path().parent_path(), dir / "build");
  return dir;
}

struct Ran {
  int code = -1;
  std::vector<std::string> lines;  // stderr, then stdout
};

Ran run_in(const fs::path& dir, const std::string& command) {
  // stderr is unbuffered and stdout a pipe: the error lines come first.
  // A newline ends the command: a trailing "# comment" cannot swallow the ")".
  const std::string shell = fmt::format("cd '{}' && ( {}\n) 2>&1", dir.string(), command);
  Ran r;
  FILE* pipe = ::popen(shell.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) text.append(buf, n);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) r.lines.push_back(line);
  return r;
}

std::string shown(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}
}  // namespace

TEST_SUITE("cli") {
TEST_CASE("the matcher reads the README's conventions, and can fail") {
  CHECK(matches({"a  b", "c ... d"}, {"a b", "c x y d"}, false));
  CHECK_FALSE(matches({"a  b"}, {"a b", "extra"}, false));
  CHECK(matches({"a", "...   # the rest", "z"}, {"a", "b", "c", "z"}, false));
  CHECK(matches({"b", "d"}, {"a", "b", "c", "d", "e"}, true));
  CHECK_FALSE(matches({"d", "b"}, {"a", "b", "c", "d"}, true));
  CHECK_FALSE(matches({"x 1.000"}, {"x 1X000"}, false));  // a dot is a dot
}

TEST_CASE("every $ example in the README runs and prints what the README shows") {
  const auto examples = readme_examples();
  REQUIRE(examples.size() >= 30);
  const fs::path dir = scratch_tree();
  int skipped = 0;
  for (const auto& e : examples) {
    if (e.not_run) {
      ++skipped;
      continue;
    }
    CAPTURE(e.line);
    CAPTURE(e.command);
    const auto r = run_in(dir, e.command);
    if (e.output.empty()) {
      INFO(shown(r.lines));
      CHECK(r.code == 0);
    } else {
      INFO("README shows:\n" << shown(e.output) << "the tool printed:\n" << shown(r.lines));
      CHECK(matches(e.output, r.lines, e.excerpt));
    }
  }
  CHECK(skipped <= 1);  // the 10,000-seed swarm
  fs::remove_all(dir);
}
}
