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

// The subject of a client certificate the server verified against its client CA bundle: what
// an authorizer needs (the API server's client certificate is CN=<user>, O=<group>...).
struct PeerIdentity {
  std::string common_name;                 // the first CN, empty when the subject has none
  std::vector<std::string> organizations;  // every O, in subject order
};

struct Request {
  std::string method;          // "GET", "POST", ...
  std::string target;          // as sent: "/readyz?verbose"
  std::string path;            // target before '?', not percent-decoded: "/readyz"
  std::string query;           // target after '?': "verbose"
  std::string version;         // "HTTP/1.1" or "HTTP/1.0"
  Headers headers;             // names lower-cased, in arrival order
  std::string body;            // exactly Content-Length bytes
  std::string remote_address;  // "127.0.0.1:53422", for logs
  // The verified client certificate's subject; nullopt on plain HTTP or when the server does
  // not ask for client certificates (TlsFiles::client_ca_file empty).
  std::optional<PeerIdentity> peer;

  // The first header named `name` (any case), if present.
  std::optional<std::string_view> header(std::string_view name) const;
};

// Writes `data` as one HTTP chunk, waiting at most the server's io_timeout. False when the
// write failed or timed out, an earlier one did, or the server is stopping: the stream should
// then return soon. Empty data writes nothing, so writer("") is a cheap probe for a stream
// that is idle (e.g. following a quiet log). Call it only from inside Response::stream, from
// one thread at a time.
using ChunkWriter = std::function<bool(std::string_view)>;

// The connection of a request whose handler takes it over (Response::take_over): raw bytes both
// ways, e.g. the SPDY or WebSocket session a relayed 101 Switching Protocols starts. The server
// writes nothing on it; the handler writes even the response head.
class TakenConnection {
 public:
  virtual ~TakenConnection() = default;
  enum class Read { Data, Idle, Closed };
  // Appends what can be read without waiting: Data, Idle (nothing ready), or Closed (end of
  // stream, an error, or the server is stopping).
  virtual Read read_available(std::string& out) = 0;
  // Writes all of `data` within the server's io_timeout; false when that failed, timed out or
  // the server is stopping.
  virtual bool write(std::string_view data) = 0;
  // The socket and the server's stop eventfd (readable once it stops), to poll for readability
  // with other sockets. Drain read_available until Idle first: TLS may hold decrypted bytes the
  // socket no longer shows.
  virtual int fd() const = 0;
  virtual int stop_fd() const = 0;
};

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  Headers headers;  // extra headers; Content-Type, Content-Length (or Transfer-Encoding) and
                    // Connection are set by the server
  std::string body;
  // When set, the answer is streamed instead of `body` (which is ignored): the server writes
  // the head with Transfer-Encoding: chunked (also to HTTP/1.0 clients, which we do not have),
  // then calls stream(writer) on the connection thread, then writes the last chunk and closes.
  // Not called for HEAD. If it throws, the error is logged and the connection closed without
  // the last chunk, so the client sees a truncated answer rather than a complete one.
  std::function<void(const ChunkWriter&)> stream;
  // When set, the server calls take_over(connection) on the connection thread instead of
  // writing any answer, then closes the connection.
  std::function<void(TakenConnection&)> take_over;

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
// Connection: close, ready to write to the socket. For a streamed response, only the head, with
// Transfer-Encoding: chunked instead of Content-Length.
enum class BodyMode { Include, Omit };
std::string serialize(const Response& response, BodyMode body = BodyMode::Include);

}  // namespace fed::http
