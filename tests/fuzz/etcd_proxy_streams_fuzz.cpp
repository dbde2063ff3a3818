// The etcd proxy's view of the bytes it forwards, from either peer: TLS records (passthrough)
// and HTTP/2 frames (after TLS termination, during a drain). Chunk sizes come from the input,
// so a frame or record split anywhere is covered. The first byte picks the reader and side.

#include <chrono>

#include "agent/etcdproxy/h2_drain.hpp"
#include "agent/etcdproxy/tls_record_tracker.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fed;
  auto in = fuzz::text(data, size);
  const unsigned char mode = fuzz::take_selector(in);
  const std::size_t chunk = std::max<std::size_t>(1, fuzz::take_selector(in));
  if (mode % 2 == 0) {
    etcdproxy::TlsRecordTracker tracker;
    for (std::size_t at = 0; at < in.size(); at += chunk) {
      tracker.feed(in.substr(at, chunk));
      (void)tracker.at_boundary();
    }
    return 0;
  }
  const bool client_side = (mode / 2) % 2 == 0;
  etcdproxy::H2FrameSplitter splitter(client_side);
  etcdproxy::H2DrainState drain;
  const auto now = std::chrono::steady_clock::now();
  std::size_t out = 0;
  const bool drain_half_way = (mode / 4) % 2 == 1;
  for (std::size_t at = 0; at < in.size() && !splitter.failed(); at += chunk) {
    if (drain_half_way && !drain.draining() && at >= in.size() / 2) (void)drain.begin_drain();
    splitter.feed(in.substr(at, chunk));
    while (auto unit = splitter.next()) {
      FED_FUZZ_CHECK(!unit->bytes.empty());
      out += unit->bytes.size();
      if (client_side) {
        (void)drain.from_client(*unit, now);
      } else {
        drain.from_member(*unit);
      }
    }
  }
  // Units are the input cut into pieces, never more.
  FED_FUZZ_CHECK(out <= in.size());
  (void)drain.only_long_lived(now, std::chrono::seconds(1));
  return 0;
}
