#!/usr/bin/env bash
# Fails when a doctest case belongs to none of the suites meson runs: such a
# case compiles and passes by hand but never runs under `meson test`.
# Usage: every_case_in_a_suite.sh UNIT_TESTS SUITE,SUITE,..
set -euo pipefail
unsuited=$("$1" --test-suite-exclude="$2" --list-test-cases --no-version | grep -v '^\[doctest\]' | grep -v '^=*$' || true)
if [ -n "$unsuited" ]; then
  echo "test cases in no suite that meson runs ($2):"
  echo "$unsuited"
  exit 1
fi
echo "every test case is in one of: $2"
