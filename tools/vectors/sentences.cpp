#include "tools/vectors/sentences.hpp"

#include <algorithm>
#include <cctype>

namespace rsim::vectors {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<std::string> split(const std::string& s, std::string_view seps) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char ch : s) {
    if (ch == '{') ++depth;
    if (ch == '}') --depth;
    if (depth == 0 && seps.find(ch) != std::string_view::npos) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += ch;
    }
  }
  out.push_back(trim(cur));
  out.erase(std::remove(out.begin(), out.end(), std::string()), out.end());
  return out;
}

std::string without_comment(const std::string& s) {
  const auto open = s.find(" (");
  return trim(open == std::string::npos ? s : s.substr(0, open));
}

std::string without_remarks(const std::string& s) {
  std::string out;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (depth == 0 && s[i] == ' ' && i + 1 < s.size() && s[i + 1] == '(') {
      depth = 1;
      ++i;
    } else if (depth > 0) {
      depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
    } else {
      out += s[i];
    }
  }
  return trim(out);
}

namespace {
bool word_char(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_' || ch == '-' || ch == '\''; }
}  // namespace

std::vector<std::string> tokenize(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (cur.size() > 2 && cur.compare(cur.size() - 2, 2, "'s") == 0) cur.resize(cur.size() - 2);  // "worker1's load"
    while (!cur.empty() && (cur.back() == '-' || cur.back() == '\'')) cur.pop_back();
    if (!cur.empty()) out.push_back(cur);
    cur.clear();
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (word_char(ch)) {
      cur += ch;
    } else if (ch == '.' && i + 1 < s.size() && s[i + 1] == '.' && !cur.empty()) {
      cur += "..";  // a range inside a word
      ++i;
    } else {
      flush();
      if (std::isspace(static_cast<unsigned char>(ch)) == 0 && ch != '.') out.emplace_back(1, ch);
    }
  }
  flush();
  return out;
}

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool is_number(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; });
}

}  // namespace rsim::vectors
