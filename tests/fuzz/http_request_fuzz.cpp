// An HTTP/1.1 request head as the project's server reads it from a socket (health, metrics,
// webhooks, the virtual kubelet): where the head ends, then its parse.

#include "shared/http/request_parser.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fed;
  const auto in = fuzz::text(data, size);
  const std::size_t end = http::find_head_end(in);
  if (end == std::string_view::npos) return 0;
  FED_FUZZ_CHECK(end <= in.size());
  (void)http::parse_request_head(in.substr(0, end));
  return 0;
}
