#include "agent/node/reconfig/cni_switch.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "shared/reconfig/cni_conflist.hpp"
#include "shared/util/read_file.hpp"

using namespace fed::reconfig;
namespace fs = std::filesystem;

namespace {

const std::string kAlt =
    R"({"cniVersion": "1.0.0", "name": "alt", "plugins": [{"type": "bridge"}]})";

struct ConfDir {
  fs::path path = fs::temp_directory_path() / ("cni-switch-test-" + std::to_string(::getpid()));
  ConfDir() {
    fs::remove_all(path);
    fs::create_directories(path);
    std::ofstream(path / "10-fedtb.conflist") << "{\"old\": true}";
  }
  ~ConfDir() { fs::remove_all(path); }
  std::string ours() const { return fed::util::read_file(path / kCniFileName).value_or(""); }
  std::string old() const { return fed::util::read_file(path / "10-fedtb.conflist").value_or(""); }
};

}  // namespace

TEST_CASE("cni switch: install sorts first, keeps the old file, and repeats as a no-op") {
  ConfDir dir;
  auto first = install_conflist(dir.path, kAlt);
  REQUIRE(first);
  CHECK(*first == CniSwitchOutcome::Installed);
  CHECK(dir.ours() == kAlt);
  CHECK(std::string(kCniFileName) < "10-fedtb.conflist");
  CHECK(dir.old() == "{\"old\": true}");
  auto again = install_conflist(dir.path, kAlt);
  REQUIRE(again);
  CHECK(*again == CniSwitchOutcome::AlreadyInstalled);
  CHECK((fs::status(dir.path / kCniFileName).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
         fs::perms::others_read));
}

TEST_CASE("cni switch: rollback removes only our file") {
  ConfDir dir;
  REQUIRE(install_conflist(dir.path, kAlt));
  auto removed = remove_conflist(dir.path);
  REQUIRE(removed);
  CHECK(*removed == CniSwitchOutcome::Removed);
  CHECK_FALSE(fs::exists(dir.path / kCniFileName));
  CHECK(dir.old() == "{\"old\": true}");
  auto again = remove_conflist(dir.path);
  REQUIRE(again);
  CHECK(*again == CniSwitchOutcome::AlreadyRemoved);
}

TEST_CASE("cni switch: a bad list or a missing directory changes nothing") {
  ConfDir dir;
  auto bad = install_conflist(dir.path, R"({"cniVersion": "1.0.0", "name": "x"})");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code() == fed::ErrorCode::Invalid);
  CHECK_FALSE(fs::exists(dir.path / kCniFileName));
  auto nowhere = install_conflist(dir.path / "missing", kAlt);
  REQUIRE_FALSE(nowhere);
  CHECK(nowhere.error().message().find("is not a directory") != std::string::npos);
  CHECK_FALSE(remove_conflist(dir.path / "missing"));
}
