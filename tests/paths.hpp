// Where the tests find the source tree and the built binary (tests/meson.build
// passes both). One definition: the unity build puts several test files in
// one translation unit.
#pragma once

#include <string>

inline const std::string kSource = RSIM_SOURCE_DIR;
inline const std::string kBinary = RSIM_BINARY;
