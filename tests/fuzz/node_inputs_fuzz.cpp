// What the node agent reads besides the API: wireguard-go's UAPI answers and requests, the node
// state file (file mode of the datapath), and the path probe's answer line. The first byte
// picks one. Property: a UAPI set request that parses formats back to the same request.

#include "agent/node/fabric/node_state_parse.hpp"
#include "agent/node/tunnel/uapi_text.hpp"
#include "shared/fedapi/probe_answer.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fed;
  auto in = fuzz::text(data, size);
  switch (fuzz::take_selector(in) % 5) {
    case 0:
      (void)tunnel::parse_get_response(in);
      break;
    case 1:
      (void)tunnel::parse_set_response(in);
      break;
    case 2:
      if (auto set = tunnel::parse_set_request(in)) {
        const std::string text = tunnel::format_set_request(*set);
        auto again = tunnel::parse_set_request(text);
        FED_FUZZ_CHECK(again && tunnel::format_set_request(*again) == text);
      }
      break;
    case 3:
      (void)fabric::parse_node_state(in);
      break;
    case 4:
      (void)fedapi::parse_probe_answer(std::string(in));
      break;
  }
  return 0;
}
