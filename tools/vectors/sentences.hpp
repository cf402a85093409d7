// Reading the prose of vector files: the expectations Kafka's tests assert in
// code are written as short sentences, split here into clauses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rsim::vectors {

std::string trim(std::string s);
bool starts_with(const std::string& s, std::string_view prefix);
// Splits on any of `seps` outside braces ("keeps one of {0,2}, total 3" is two
// clauses); empty pieces are dropped.
std::vector<std::string> split(const std::string& s, std::string_view seps);
// Drops a trailing " (comment)".
std::string without_comment(const std::string& s);
// Drops every " (remark)" anywhere, keeping calls written "f(x)".
std::string without_remarks(const std::string& s);

// Words and marks of a step, for reading it by structure rather than by the
// exact sentence: a word is a run of letters, digits, '_', '-', '\'' and the
// ".." of a range ("connector1-0..3" stays whole); a single '.' splits
// ("assignor.delay"); any other mark is a token of its own ("(", "+", "=",
// "{", ","). Words keep their case; `lower` is for matching keywords.
std::vector<std::string> tokenize(const std::string& s);
std::string lower(std::string s);
bool is_number(const std::string& s);

}  // namespace rsim::vectors
