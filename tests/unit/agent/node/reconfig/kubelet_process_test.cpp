// find_node_kubelet over a /proc tree built in a temporary directory: network namespaces are
// files, and two processes share one when their ns/net is the same inode (a hard link).

#include "agent/node/reconfig/kubelet_process.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

using fed::ErrorCode;
using namespace fed::reconfig;
namespace fs = std::filesystem;

namespace {

class FakeProc {
 public:
  FakeProc() : root_(fs::temp_directory_path() / ("fake-proc-" + std::to_string(::getpid()))) {
    fs::remove_all(root_);
    fs::create_directories(root_ / "self/ns");
    write(root_ / "self/ns/net", "ours");
    fs::create_directories(root_ / "netns-other");
    write(root_ / "netns-other/net", "theirs");
  }
  ~FakeProc() { fs::remove_all(root_); }

  // A process `pid` named `comm` in state `state`, in our network namespace or another's.
  void add(int pid, const std::string& comm, bool ours, const std::string& cmdline = "",
           char state = 'S', const std::string& cgroup = "0::/\n") {
    const fs::path dir = root_ / std::to_string(pid);
    fs::create_directories(dir / "ns");
    fs::create_hard_link(ours ? root_ / "self/ns/net" : root_ / "netns-other/net", dir / "ns/net");
    write(dir / "comm", comm + "\n");
    write(dir / "stat", std::to_string(pid) + " (" + comm + ") " + state + " 1 1 1");
    write(dir / "cmdline", cmdline);
    write(dir / "cgroup", cgroup);
  }
  const fs::path& path() const { return root_; }

 private:
  static void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
  fs::path root_;
};

std::string argv(std::initializer_list<std::string> words) {
  std::string out;
  for (const auto& w : words) out += w + '\0';
  return out;
}

}  // namespace

TEST_CASE("the kubelet of this node is the one in our network namespace, with its flags") {
  FakeProc proc;
  proc.add(10, "kubelet", false, argv({"kubelet", "--config=/other.yaml"}));
  proc.add(20, "containerd", true);
  proc.add(30, "kubelet", true,
           argv({"/usr/bin/kubelet", "--config", "/var/lib/kubelet/config.yaml", "--root-dir",
                 "/data/kubelet"}),
           'S', "1:name=systemd:/system.slice/kubelet.service\n");
  auto found = find_node_kubelet(proc.path());
  REQUIRE(found.has_value());
  CHECK(found->pid == 30);
  CHECK(found->flags.config == "/var/lib/kubelet/config.yaml");
  CHECK(found->flags.root_dir == "/data/kubelet");
  CHECK_FALSE(found->flags.config_dir.has_value());
  CHECK(found->systemd == "kubelet.service");
}

TEST_CASE("no kubelet here, or several: an error that says what to pass") {
  FakeProc proc;
  proc.add(10, "kubelet", false);
  proc.add(11, "kubelet", true, "", 'Z');  // exited, not reaped yet: not running
  auto none = find_node_kubelet(proc.path());
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().code() == ErrorCode::NotFound);
  CHECK(none.error().message().find("--kubelet-config") != std::string::npos);

  proc.add(12, "kubelet", true);
  proc.add(13, "kubelet", true);
  auto several = find_node_kubelet(proc.path());
  REQUIRE_FALSE(several.has_value());
  CHECK(several.error().code() == ErrorCode::Invalid);
  CHECK(several.error().message().find("12, 13") != std::string::npos);
}

TEST_CASE("process_ended: gone, zombie or dead are ended; a command name with ') ' is not fooled") {
  FakeProc proc;
  proc.add(40, "a) Z (b", true, "", 'S');
  CHECK_FALSE(process_ended(40, proc.path()));
  proc.add(41, "kubelet", true, "", 'Z');
  CHECK(process_ended(41, proc.path()));
  CHECK(process_ended(42, proc.path()));
}
