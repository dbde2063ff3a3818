// Client certificates, as the API server presents them to a kubelet: required when the server
// has a client CA, verified, and their subject handed to the handlers.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>

#include "shared/http/server.hpp"
#include "shared/pki/certificates.hpp"
#include "tests/unit/shared/http/test_client.hpp"

using namespace std::chrono_literals;
using fed::http::ChunkWriter;
using fed::http::Request;
using fed::http::Response;
using fed::http::Server;
using fed::http::ServerOptions;
using fed::http::TlsFiles;
using fed::http::test::body_of;
using fed::http::test::decode_chunked;
using fed::http::test::issue_client_cert;
using fed::http::test::status_line;
using fed::http::test::TempDir;
using fed::http::test::tls_send;
using fed::http::test::TlsClientFiles;
using fed::http::test::write_file;
using fed::pki::CertifiedKey;

namespace {

constexpr const char* kWho = "GET /who HTTP/1.1\r\nHost: localhost\r\n\r\n";

CertifiedKey must(fed::Result<CertifiedKey> made) {
  REQUIRE(made);
  return std::move(made).value();
}

// A cluster CA that signs the server's certificate and the API server's client certificate,
// another CA that the server does not trust, and client certificates from each, as files.
struct Pki {
  TempDir dir;
  CertifiedKey cluster_ca = must(fed::pki::make_ca("cluster-ca", 1h));
  CertifiedKey other_ca = must(fed::pki::make_ca("other-ca", 1h));
  std::string client_ca_file = (dir.path / "client-ca.crt").string();
  TlsFiles server{(dir.path / "tls.crt").string(), (dir.path / "tls.key").string(), client_ca_file};
  TlsClientFiles apiserver{(dir.path / "ca.crt").string(), (dir.path / "apiserver.crt").string(),
                           (dir.path / "apiserver.key").string()};
  TlsClientFiles anonymous{apiserver.ca_file, "", ""};
  TlsClientFiles foreign{apiserver.ca_file, (dir.path / "foreign.crt").string(),
                         (dir.path / "foreign.key").string()};

  Pki() {
    REQUIRE_FALSE(dir.path.empty());
    const CertifiedKey serving = must(fed::pki::make_serving(cluster_ca, {"localhost"}, 1h));
    write_file(server.cert_file, serving.cert_pem);
    write_file(server.key_file, serving.key_pem);
    write_file(client_ca_file, cluster_ca.cert_pem);
    write_file(apiserver.ca_file, cluster_ca.cert_pem);
    const CertifiedKey api = issue_client_cert(cluster_ca, "kube-apiserver-kubelet-client",
                                               {"system:masters", "fed:operators"});
    REQUIRE_FALSE(api.cert_pem.empty());
    write_file(apiserver.cert_file, api.cert_pem);
    write_file(apiserver.key_file, api.key_pem);
    const CertifiedKey intruder = issue_client_cert(other_ca, "intruder", {"system:masters"});
    REQUIRE_FALSE(intruder.cert_pem.empty());
    write_file(foreign.cert_file, intruder.cert_pem);
    write_file(foreign.key_file, intruder.key_pem);
  }
};

// "CN|O1,O2" for a request with a peer, "anonymous" without.
std::string describe(const Request& r) {
  if (!r.peer) return "anonymous";
  std::string out = r.peer->common_name + "|";
  for (std::size_t i = 0; i < r.peer->organizations.size(); ++i) {
    out += (i == 0 ? "" : ",") + r.peer->organizations[i];
  }
  return out;
}

std::unique_ptr<Server> started(const TlsFiles& tls, std::atomic<int>& calls) {
  ServerOptions o;
  o.bind_address = "127.0.0.1:0";
  o.name = "kubelet";
  o.tls = tls;
  auto created = Server::create(o);
  REQUIRE(created);
  auto server = std::move(created).value();
  server->handle("/who", [&calls](const Request& r) {
    ++calls;
    return Response::text(200, describe(r));
  });
  server->handle_prefix("/containerLogs/", [&calls](const Request& r) {
    ++calls;
    Response response;
    response.stream = [who = describe(r)](const ChunkWriter& write) {
      write("log of ");
      write(who);
    };
    return response;
  });
  REQUIRE(server->start());
  return server;
}

}  // namespace

TEST_CASE("client certificates: required, verified, and their subject reaches the handler") {
  Pki pki;
  std::atomic<int> calls{0};
  auto server = started(pki.server, calls);

  const auto ok = tls_send(server->port(), pki.apiserver, kWho);
  CHECK(ok.handshake_ok);
  CHECK(status_line(ok.answer) == "HTTP/1.1 200 OK");
  CHECK(body_of(ok.answer) == "kube-apiserver-kubelet-client|system:masters,fed:operators\n");

  // Streaming over TLS, as `kubectl logs -f` through the API server.
  const auto logs = tls_send(server->port(), pki.apiserver,
                             "GET /containerLogs/default/web/app?follow=true HTTP/1.1\r\n\r\n");
  CHECK(decode_chunked(body_of(logs.answer)) ==
        "log of kube-apiserver-kubelet-client|system:masters,fed:operators");
  CHECK(calls == 2);

  // No certificate, or one from a CA the server does not trust: the handshake fails (with TLS
  // 1.3 the client only learns it on its first read) and no handler runs.
  const auto none = tls_send(server->port(), pki.anonymous, kWho);
  CHECK(none.answer.empty());
  const auto intruder = tls_send(server->port(), pki.foreign, kWho);
  CHECK(intruder.answer.empty());
  CHECK(calls == 2);
}

TEST_CASE("client certificates: the client CA bundle is reloaded when it changes") {
  Pki pki;
  std::atomic<int> calls{0};
  auto server = started(pki.server, calls);
  CHECK(body_of(tls_send(server->port(), pki.foreign, kWho).answer).empty());

  // Trust only the other CA from now on.
  write_file(pki.client_ca_file, pki.other_ca.cert_pem);
  std::filesystem::last_write_time(pki.client_ca_file,
                                   std::filesystem::last_write_time(pki.client_ca_file) + 5s);
  CHECK(body_of(tls_send(server->port(), pki.foreign, kWho).answer) == "intruder|system:masters\n");
  CHECK(tls_send(server->port(), pki.apiserver, kWho).answer.empty());
}

TEST_CASE("client certificates: without a client CA, TLS requests carry no peer identity") {
  Pki pki;
  TlsFiles no_client_auth = pki.server;
  no_client_auth.client_ca_file.clear();
  std::atomic<int> calls{0};
  auto server = started(no_client_auth, calls);
  CHECK(body_of(tls_send(server->port(), pki.apiserver, kWho).answer) == "anonymous\n");
  CHECK(body_of(tls_send(server->port(), pki.anonymous, kWho).answer) == "anonymous\n");
}

TEST_CASE("client certificates: an unreadable client CA bundle is reported at create()") {
  Pki pki;
  ServerOptions o;
  o.bind_address = "127.0.0.1:0";
  o.tls = pki.server;
  o.tls->client_ca_file = (pki.dir.path / "missing-ca.crt").string();
  auto missing = Server::create(o);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message().find("missing-ca.crt: No such file or directory") !=
        std::string::npos);

  write_file(pki.dir.path / "garbage.crt", "not a certificate\n");
  o.tls->client_ca_file = (pki.dir.path / "garbage.crt").string();
  auto garbage = Server::create(o);
  REQUIRE_FALSE(garbage);
  INFO(garbage.error().message());
  CHECK(garbage.error().message().find("TLS client CA") != std::string::npos);
  CHECK(garbage.error().code() == fed::ErrorCode::Invalid);
}
