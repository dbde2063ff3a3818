#pragma once
// Helpers for the kubeconfig tests: a scratch directory, file writing, and scoped environment
// variables (the loader reads KUBECONFIG, HOME and KUBERNETES_SERVICE_* like kubectl does).

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>

namespace fed::kube::testing {

// A fresh directory under the system temp dir, removed with everything in it at scope exit.
class TempDir final {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fed-kcfg-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Writes `text` to `path`, creating parent directories.
inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  REQUIRE(out.good());
}

// Counts the lines of `path`; 0 if it does not exist.
inline int count_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Sets (or with nullopt unsets) an environment variable and restores it at scope exit.
class ScopedEnv final {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// The exec credential plugin fixture (a real shell script).
inline std::string exec_plugin_path() {
  return std::string(FED_SOURCE_DIR) + "/tests/fixtures/exec-plugin/exec-plugin.sh";
}

// Fake PEM blocks: the loader only checks that PEM text is PEM, never parses certificates.
inline const std::string kCaPem =
    "-----BEGIN CERTIFICATE-----\nY2EtZml4dHVyZQ==\n-----END CERTIFICATE-----\n";
inline const std::string kCertPem =
    "-----BEGIN CERTIFICATE-----\nY2VydC1maXh0dXJl\n-----END CERTIFICATE-----\n";
inline const std::string kKeyPem =
    "-----BEGIN PRIVATE KEY-----\na2V5LWZpeHR1cmU=\n-----END PRIVATE KEY-----\n";

}  // namespace fed::kube::testing
