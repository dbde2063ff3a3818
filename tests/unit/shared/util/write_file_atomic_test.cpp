#include "shared/util/write_file_atomic.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "shared/util/read_file.hpp"

using fed::ErrorCode;
using fed::util::remove_file_durable;
using fed::util::write_file_atomic;
namespace fs = std::filesystem;

namespace {

// A fresh directory under the temp dir, removed at the end of the test case.
class TempDir final {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "fed-write-atomic-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string slurp(const fs::path& p) {
  auto text = fed::util::read_file(p);
  REQUIRE_MESSAGE(text.has_value(), text.error().message());
  return *text;
}

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("write_file_atomic writes the exact bytes with the given mode and leaves no temp file") {
  TempDir dir;
  const fs::path file = dir.path() / "config.yaml";
  const std::string data("maxPods: 50\n\0binary\xff tail", 24);
  REQUIRE(write_file_atomic(file, data, 0640).has_value());
  CHECK(slurp(file) == data);
  CHECK(mode_of(file) == 0640);  // not narrowed by the umask
  CHECK(entries(dir.path()) == std::vector<std::string>{"config.yaml"});

  REQUIRE(write_file_atomic(file, "").has_value());  // default mode 0644, empty content
  CHECK(slurp(file).empty());
  CHECK(mode_of(file) == 0644);
  CHECK(entries(dir.path()) == std::vector<std::string>{"config.yaml"});
}

TEST_CASE(
    "write_file_atomic replaces the file by rename: a reader of the old file keeps it whole") {
  TempDir dir;
  const fs::path file = dir.path() / "kubelet.json";
  REQUIRE(write_file_atomic(file, "old contents\n", 0600).has_value());
  struct stat before {};
  REQUIRE(::stat(file.c_str(), &before) == 0);
  std::ifstream reader(file);  // opened before the replacement
  REQUIRE(reader.is_open());

  REQUIRE(write_file_atomic(file, "new contents, longer than the old\n", 0644).has_value());
  struct stat after {};
  REQUIRE(::stat(file.c_str(), &after) == 0);
  CHECK(after.st_ino != before.st_ino);  // a new inode, not the old one truncated and rewritten
  CHECK(slurp(file) == "new contents, longer than the old\n");
  CHECK(mode_of(file) == 0644);
  const std::string seen((std::istreambuf_iterator<char>(reader)),
                         std::istreambuf_iterator<char>());
  CHECK(seen == "old contents\n");
  CHECK(entries(dir.path()) == std::vector<std::string>{"kubelet.json"});
}

TEST_CASE("write_file_atomic failures name the path and step and leave nothing behind") {
  TempDir dir;
  auto missing = write_file_atomic(dir.path() / "no-such-dir" / "config.yaml", "x");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code() == ErrorCode::NotFound);
  CHECK(missing.error().message().find("no-such-dir") != std::string::npos);
  CHECK(missing.error().message().find("create temporary file") != std::string::npos);
  CHECK(entries(dir.path()).empty());

  // The rename fails when a non-empty directory has the name: the temp file is removed.
  const fs::path taken = dir.path() / "taken";
  fs::create_directory(taken);
  std::ofstream(taken / "inside") << "keep";
  auto blocked = write_file_atomic(taken, "x");
  REQUIRE_FALSE(blocked.has_value());
  CHECK(blocked.error().message().find(taken.string()) != std::string::npos);
  CHECK(blocked.error().message().find("rename into place") != std::string::npos);
  CHECK(entries(dir.path()) == std::vector<std::string>{"taken"});
  CHECK(slurp(taken / "inside") == "keep");
}

TEST_CASE("remove_file_durable removes a file, accepts a missing one, reports other failures") {
  TempDir dir;
  const fs::path file = dir.path() / "cpu_manager_state";
  REQUIRE(write_file_atomic(file, "{}").has_value());
  REQUIRE(remove_file_durable(file).has_value());
  CHECK_FALSE(fs::exists(file));
  CHECK(remove_file_durable(file).has_value());  // already gone: fine
  CHECK(remove_file_durable(dir.path() / "never-existed").has_value());
  CHECK(remove_file_durable(dir.path() / "no-dir" / "state").has_value());

  const fs::path sub = dir.path() / "a-directory";
  fs::create_directory(sub);
  auto r = remove_file_durable(sub);  // unlink refuses directories
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message().find(sub.string() + ": remove") != std::string::npos);
  CHECK(fs::is_directory(sub));
}
