// What etcd members and the proxy answer: etcd's JSON gateway bodies (range, put, delete, txn,
// errors), its Prometheus text (the classifier's scrape), the proxy's status document and its
// flags' addresses. The first byte picks one.

#include "agent/etcdproxy/classifier/prom_text.hpp"
#include "agent/etcdproxy/socket_util.hpp"
#include "shared/etcd/codec.hpp"
#include "shared/etcd/proxy_status.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fed;
  auto in = fuzz::text(data, size);
  switch (fuzz::take_selector(in) % 10) {
    case 0:
      (void)etcd::codec::decode_range(in);
      break;
    case 1:
      (void)etcd::codec::decode_put(in);
      break;
    case 2:
      (void)etcd::codec::decode_delete(in);
      break;
    case 3:
      (void)etcd::codec::decode_txn(in);
      break;
    case 4:
      (void)etcd::codec::decode_header_only(in);
      (void)etcd::codec::decode_error(500, in, "fuzz");
      break;
    case 5:
      (void)etcd::codec::base64_decode(in);
      break;
    case 6:
      if (auto scrape = etcdproxy::classifier::Scrape::parse(in)) {
        (void)scrape->sum("etcd_server_is_leader");
        (void)scrape->histogram("etcd_disk_wal_fsync_duration_seconds");
        (void)scrape->label_values("etcd_server_version", "server_version");
      }
      break;
    case 7:
      (void)etcd::parse_proxy_status(in);
      break;
    case 8:
      (void)etcdproxy::parse_host_port(in);
      break;
    case 9:
      (void)etcdproxy::parse_member_url(in);
      break;
  }
  return 0;
}
