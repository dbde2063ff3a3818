#include "shared/http/request_parser.hpp"

#include <charconv>

#include "shared/util/strings.hpp"

namespace fed::http {
namespace {

bool is_token_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_token_char(c)) return false;
  }
  return true;
}

Unexpected malformed(std::string message) {
  return fail(ErrorCode::Invalid, "malformed request: " + std::move(message));
}

}  // namespace

std::size_t find_head_end(std::string_view buffer) {
  const std::size_t pos = buffer.find("\r\n\r\n");
  return pos == std::string_view::npos ? pos : pos + 4;
}

Result<RequestHead> parse_request_head(std::string_view head) {
  RequestHead out;
  Request& req = out.request;

  std::size_t eol = head.find("\r\n");
  if (eol == std::string_view::npos) return malformed("no request line");
  const std::string_view line = head.substr(0, eol);
  head.remove_prefix(eol + 2);

  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return malformed("request line must be 'METHOD /path HTTP/1.1'");
  }
  req.method = std::string(line.substr(0, sp1));
  req.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  req.version = std::string(line.substr(sp2 + 1));
  if (!is_token(req.method)) return malformed("bad method");
  if (req.target.empty() || req.target.front() != '/') {
    return malformed("the target must be a path starting with '/'");
  }
  for (char c : req.target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return malformed("bad target");
  }
  if (req.version != "HTTP/1.1" && req.version != "HTTP/1.0") {
    return malformed("unsupported version '" + req.version + "'");
  }
  const std::size_t q = req.target.find('?');
  req.path = req.target.substr(0, q);
  if (q != std::string::npos) req.query = req.target.substr(q + 1);

  bool have_length = false;
  while (true) {
    eol = head.find("\r\n");
    if (eol == std::string_view::npos) return malformed("headers not terminated by a blank line");
    const std::string_view field = head.substr(0, eol);
    head.remove_prefix(eol + 2);
    if (field.empty()) break;
    if (field.front() == ' ' || field.front() == '\t') {
      return malformed("folded header lines are not accepted");
    }
    const std::size_t colon = field.find(':');
    if (colon == std::string_view::npos || !is_token(field.substr(0, colon))) {
      return malformed("bad header line");
    }
    std::string name = util::to_lower(field.substr(0, colon));
    std::string value(util::trim(field.substr(colon + 1)));
    if (name == "content-length") {
      std::size_t n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || value.empty()) {
        return malformed("bad Content-Length '" + value + "'");
      }
      if (have_length && n != out.content_length) return malformed("conflicting Content-Length");
      have_length = true;
      out.content_length = n;
    } else if (name == "transfer-encoding") {
      out.chunked = true;
    }
    req.headers.emplace_back(std::move(name), std::move(value));
  }
  return out;
}

}  // namespace fed::http
