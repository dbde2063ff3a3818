#include "agent/node/tunnel/key_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "shared/util/strings.hpp"
#include "shared/util/subprocess.hpp"

using namespace fed::tunnel;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "fed-wgkey-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path path;
};

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("the key file is created 0600 in a 0700 directory and reused on the next call") {
  TempDir dir;
  const auto path = dir.path / "wireguard" / "private.key";
  auto first = load_or_create_private_key(path.string());
  REQUIRE(first);
  CHECK(mode_of(path) == 0600);
  CHECK(mode_of(path.parent_path()) == 0700);

  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  CHECK(line == first->base64());

  auto second = load_or_create_private_key(path.string());
  REQUIRE(second);
  CHECK(*second == *first);
  // No temporary file is left behind.
  CHECK(std::distance(fs::directory_iterator(path.parent_path()), fs::directory_iterator()) == 1);
}

TEST_CASE("wg pubkey derives the same public key from the file") {
  TempDir dir;
  const auto path = dir.path / "private.key";
  auto key = load_or_create_private_key(path.string());
  REQUIRE(key);
  auto pub = public_key_of(*key);
  REQUIRE(pub);
  fed::util::SubprocessOptions opts;
  opts.argv = {"sh", "-c", "wg pubkey < '" + path.string() + "'"};
  opts.stderr_mode = fed::util::StderrMode::Capture;
  auto run = fed::util::run_subprocess(opts);
  REQUIRE(run);
  INFO("wg pubkey: " << run->describe() << " " << run->stderr_data
                     << " (wireguard-tools must be installed)");
  REQUIRE(run->succeeded());
  CHECK(fed::util::trim(run->stdout_data) == pub->base64());
}

TEST_CASE("a key file group or others may read is refused without printing the key") {
  TempDir dir;
  const auto path = dir.path / "private.key";
  auto key = load_or_create_private_key(path.string());
  REQUIRE(key);
  REQUIRE(::chmod(path.c_str(), 0644) == 0);
  auto again = load_or_create_private_key(path.string());
  REQUIRE_FALSE(again);
  CHECK(again.error().code() == fed::ErrorCode::Invalid);
  CHECK(again.error().message().find("0644") != std::string::npos);
  CHECK(again.error().message().find("chmod 600") != std::string::npos);
  CHECK(again.error().message().find(key->base64()) == std::string::npos);
}

TEST_CASE("a corrupt key file is Invalid and its content is not quoted") {
  TempDir dir;
  const auto path = dir.path / "private.key";
  {
    std::ofstream f(path);
    f << "not-a-key-at-all\n";
  }
  REQUIRE(::chmod(path.c_str(), 0600) == 0);
  auto r = load_or_create_private_key(path.string());
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == fed::ErrorCode::Invalid);
  CHECK(r.error().message().find(path.string()) != std::string::npos);
  CHECK(r.error().message().find("not-a-key") == std::string::npos);
}

TEST_CASE("an empty key path is Invalid") {
  auto r = load_or_create_private_key("");
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == fed::ErrorCode::Invalid);
}
