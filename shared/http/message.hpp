#pragma once
// HTTP/1.1 request and response values exchanged between the Server and its handlers.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fed::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method;          // "GET", "POST", ...
  std::string target;          // as sent: "/readyz?verbose"
  std::string path;            // target before '?', not percent-decoded: "/readyz"
  std::string query;           // target after '?': "verbose"
  std::string version;         // "HTTP/1.1" or "HTTP/1.0"
  Headers headers;             // names lower-cased, in arrival order
  std::string body;            // exactly Content-Length bytes
  std::string remote_address;  // "127.0.0.1:53422", for logs

  // The first header named `name` (any case), if present.
  std::optional<std::string_view> header(std::string_view name) const;
};

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  Headers headers;  // extra headers; Content-Type, Content-Length and Connection are set by the
                    // server
  std::string body;

  // A plain-text response; a trailing newline is added when missing, as curl users expect.
  static Response text(int status, std::string body);
  // A JSON response with `body` already serialised.
  static Response json(int status, std::string body);
};

// Serves one request. Runs on a connection thread: must be thread-safe, should be quick, and
// must not throw (the server answers 500 and logs if one does).
using Handler = std::function<Response(const Request&)>;

// "OK", "Not Found", ...; "Unknown" for codes the server does not send.
std::string_view reason_phrase(int status);

// The status line, headers and (unless `body` is Omit, for HEAD) body, with Content-Length and
// Connection: close, ready to write to the socket.
enum class BodyMode { Include, Omit };
std::string serialize(const Response& response, BodyMode body = BodyMode::Include);

}  // namespace fed::http
