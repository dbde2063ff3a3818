#pragma once
// A fake API server on 127.0.0.1 answering GET /version, and a kubeconfig in a temporary
// directory whose contexts point at it ("fake"), at a closed port ("closed") and at nothing.

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "shared/http/server.hpp"

namespace fed::plugin::test {

inline constexpr const char* kServerVersionJson =
    R"({"major":"1","minor":"29","gitVersion":"v1.29.2","gitCommit":"4b8e819355d791d96b7e9d9efe4cbafae2311c88","platform":"linux/amd64"})";

class FakeCluster {
 public:
  FakeCluster() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fed-plugin-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir_ = tmpl;
    http::ServerOptions o;
    o.bind_address = "127.0.0.1:0";
    o.name = "fake-apiserver";
    auto server = http::Server::create(o);
    REQUIRE(server);
    server_ = std::move(server).value();
    server_->handle("/version", [](const http::Request&) {
      return http::Response::json(200, kServerVersionJson);
    });
    REQUIRE(server_->start());
    std::ofstream(kubeconfig()) << "apiVersion: v1\n"
                                   "kind: Config\n"
                                   "clusters:\n"
                                   "- name: fake\n"
                                   "  cluster:\n"
                                   "    server: http://127.0.0.1:"
                                << server_->port()
                                << "\n"
                                   "- name: closed\n"
                                   "  cluster:\n"
                                   "    server: http://127.0.0.1:1\n"
                                   "users:\n"
                                   "- name: someone\n"
                                   "  user:\n"
                                   "    token: not-a-secret\n"
                                   "contexts:\n"
                                   "- name: fake\n"
                                   "  context: {cluster: fake, user: someone}\n"
                                   "- name: closed\n"
                                   "  context: {cluster: closed, user: someone}\n"
                                   "current-context: fake\n";
    std::ofstream(dir_ / "broken.yaml") << "clusters: [\n";
  }
  ~FakeCluster() {
    server_->stop();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string kubeconfig() const { return (dir_ / "kubeconfig").string(); }
  std::string broken_kubeconfig() const { return (dir_ / "broken.yaml").string(); }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<http::Server> server_;
};

}  // namespace fed::plugin::test
