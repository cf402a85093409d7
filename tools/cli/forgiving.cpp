#include "tools/cli/forgiving.hpp"

#include "scenarios/errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

namespace rsim::cli {

namespace {

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

std::vector<std::string_view> views(const std::vector<std::string>& names) { return {names.begin(), names.end()}; }

// The long names (`--timeline`) of a subcommand's options.
std::vector<std::string> long_options(const CLI::App& sub) {
  std::vector<std::string> names;
  for (const auto* opt : sub.get_options())
    for (const auto& n : opt->get_lnames()) names.push_back("--" + n);
  return names;
}

}  // namespace

std::optional<std::string> unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  const std::string word = argv[1];
  const auto names = subcommand_names(app);
  for (const auto& n : names)
    if (n == word) return std::nullopt;
  return fmt::format("unknown command '{}'{}; one of: {}", word, scenario::did_you_mean(word, views(names)),
                     fmt::join(names, ", "));
}

std::string explain(CLI::App& app, const CLI::ParseError& e) {
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr) {
    // Say where to read the options of the command that failed.
    const auto parsed = app.get_subcommands();
    if (parsed.empty()) return fmt::format("{}; `rebalance-sim --help` lists the commands", e.what());
    return fmt::format("{}; `rebalance-sim {} --help` lists its options", e.what(), parsed.front()->get_name());
  }
  for (auto* sub : app.get_subcommands()) {
    const auto names = long_options(*sub);
    for (const auto& extra : sub->remaining()) {
      if (extra.rfind("--", 0) != 0) continue;
      const std::string flag = extra.substr(0, extra.find('='));
      return fmt::format("{}: unknown option '{}'{}; `rebalance-sim {} --help` lists them", sub->get_name(), flag,
                         scenario::did_you_mean(flag, views(names)), sub->get_name());
    }
    if (!sub->remaining().empty())
      return fmt::format("{}: unexpected argument '{}'; `rebalance-sim {} --help` shows its usage", sub->get_name(),
                         sub->remaining().front(), sub->get_name());
  }
  return e.what();
}

const CLI::Validator& non_negative_integer() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 19 &&
                            std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
        return digits ? std::string() : fmt::format("wants a non-negative integer, got '{}'", text);
      },
      "UINT", "non-negative integer");
  return v;
}

CLI::Validator one_of(std::string what, std::vector<std::string> names) {
  return CLI::Validator(
      [what = std::move(what), names = std::move(names)](std::string& text) -> std::string {
        if (std::find(names.begin(), names.end(), text) != names.end()) return {};
        return fmt::format("unknown {} '{}'{}; one of: {}", what, text, scenario::did_you_mean(text, views(names)),
                           fmt::join(names, ", "));
      },
      "", "one of a list");
}

}  // namespace rsim::cli
