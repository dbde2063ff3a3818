// Streamed answers (Response::stream) in HTTP/1.1 chunked framing, for long-lived responses such
// as `kubectl logs -f` whose length is unknown when the head is sent.
#include "shared/http/connection.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <exception>
#include <string>

namespace fed::http::detail {
namespace {

// "<hex size>\r\n<data>\r\n", assembled so that a chunk costs one write (one TLS record when
// small) rather than three.
std::string frame(std::string_view data) {
  char size[20];
  const int n = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  std::string out;
  out.reserve(static_cast<std::size_t>(n) + data.size() + 2);
  out.append(size, static_cast<std::size_t>(n));
  out.append(data);
  out.append("\r\n");
  return out;
}

}  // namespace

bool write_streamed(Transport& t, const Response& response, BodyMode body, const Limits& limits,
                    const std::string& remote, std::string_view server_name) {
  if (t.write_all(serialize(response), Clock::now() + limits.io_timeout, OnStop::Finish) !=
      IoStatus::Ok) {
    return false;
  }
  if (body == BodyMode::Omit) return true;

  // Once a write fails or sees the stop, the framing may be cut mid-chunk: every later write is
  // refused and the last chunk is not sent, so the client sees a truncated answer, not an end.
  bool good = true;
  const ChunkWriter writer = [&](std::string_view data) {
    if (!good) return false;
    // Empty data still goes through write_all, which checks the stop without writing.
    const std::string chunk = data.empty() ? std::string() : frame(data);
    good = t.write_all(chunk, Clock::now() + limits.io_timeout, OnStop::Abort) == IoStatus::Ok;
    return good;
  };
  try {
    response.stream(writer);
  } catch (const std::exception& e) {
    spdlog::error("{} server: stream to {} threw: {}", server_name, remote, e.what());
    return false;
  } catch (...) {
    spdlog::error("{} server: stream to {} threw a non-standard exception", server_name, remote);
    return false;
  }
  if (!good) {
    spdlog::debug("{} server: stream to {} ended early (client gone, timeout or stop)", server_name,
                  remote);
    return false;
  }
  return t.write_all("0\r\n\r\n", Clock::now() + limits.io_timeout, OnStop::Abort) == IoStatus::Ok;
}

}  // namespace fed::http::detail
