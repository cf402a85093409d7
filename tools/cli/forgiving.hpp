// What the command line gets wrong, answered with what was probably meant:
// an unknown subcommand or option gets a did-you-mean (as YAML keys do), a
// value that is not a non-negative integer says so.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace rsim::cli {

// argv[1] is not an option and names no subcommand: the message; else none.
std::optional<std::string> unknown_subcommand(const CLI::App& app, int argc, char** argv);

// A parse error in words: an option the subcommand does not have is named
// with the closest one it has; other errors as CLI11 says them.
std::string explain(CLI::App& app, const CLI::ParseError& e);

// For --seed and the like: CLI11's own check prints a range to 1e308.
const CLI::Validator& non_negative_integer();

// A value from a fixed list: "unknown WHAT 'x' (did you mean 'y'?); one of: a, b".
CLI::Validator one_of(std::string what, std::vector<std::string> names);

}  // namespace rsim::cli
