#pragma once
// Parses the head of an HTTP/1.x request (request line and headers); pure, so limits and
// malformed input are unit-tested without sockets.

#include <cstddef>
#include <string_view>

#include "shared/http/message.hpp"
#include "shared/result/result.hpp"

namespace fed::http {

struct RequestHead {
  Request request;                 // body empty; filled by the caller
  std::size_t content_length = 0;  // 0 when absent
  bool chunked = false;            // Transfer-Encoding was sent (the server refuses it: 411)
};

// Where the head ends in `buffer`: the offset just after the blank line, or npos.
std::size_t find_head_end(std::string_view buffer);

// Parses `head` (request line, header lines, the final blank line; CRLF line ends).
// An Invalid error says what is malformed; the server answers 400 with it.
Result<RequestHead> parse_request_head(std::string_view head);

}  // namespace fed::http
