// The HTML report renders in a real browser: headless Chromium takes a
// screenshot of it, and the PNG has the window's size. Skipped, saying so,
// where Chromium is not installed (tools/test installs it).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int sh(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::uint32_t big_endian(const std::string& s, std::size_t at) {
  return (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at])) << 24) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 1])) << 16) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 2])) << 8) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 3]));
}

}  // namespace

TEST_SUITE("reports") {
TEST_CASE("the HTML report of a comparison is self-contained and renders in headless Chromium") {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("rsim-html-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto html = (dir / "report.html").string();
  REQUIRE(sh(fmt::format("cd '{}' && '{}' compare scenarios/quickstart.yaml --html '{}' >/dev/null", RSIM_SOURCE_DIR,
                         RSIM_BINARY, html)) == 0);
  const std::string page = slurp(html);
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.find("<svg class=\"gantt\"") != std::string::npos);
  CHECK(page.find("<svg class=\"downtime\"") != std::string::npos);
  CHECK(page.find("cooperative/cooperative-sticky") != std::string::npos);
  CHECK(page.find("http://") == std::string::npos);  // nothing fetched from anywhere
  CHECK(page.find("https://") == std::string::npos);

  std::string chromium;
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (std::filesystem::exists(candidate)) chromium = candidate;
  if (chromium.empty()) {
    MESSAGE("skipped the rendering check: Chromium is not installed (tools/test installs Debian's chromium)");
    std::filesystem::remove_all(dir);
    return;
  }
  const auto png = (dir / "report.png").string();
  const int rc = sh(fmt::format(
      "timeout 120 '{}' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync --user-data-dir='{}' "
      "--window-size=1200,900 --screenshot='{}' 'file://{}' >/dev/null 2>&1",
      chromium, (dir / "profile").string(), png, html));
  CHECK(rc == 0);
  const std::string image = slurp(png);
  REQUIRE(image.size() > 1000);
  CHECK(image.substr(1, 3) == "PNG");
  CHECK(image.substr(12, 4) == "IHDR");
  CHECK(big_endian(image, 16) == 1200);
  CHECK(big_endian(image, 20) == 900);
  std::filesystem::remove_all(dir);
}
}
