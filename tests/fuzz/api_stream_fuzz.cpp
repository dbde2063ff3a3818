// What the API server sends: a watch stream (newline-delimited events, in arbitrary chunks) and
// an AdmissionReview posted to a webhook. The first byte picks one; for the watch stream the
// second byte is the chunk size.

#include <nlohmann/json.hpp>

#include "shared/kube/admission_review.hpp"
#include "shared/kube/watch_decoder.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fed;
  auto in = fuzz::text(data, size);
  if (fuzz::take_selector(in) % 2 == 0) {
    const std::size_t chunk = std::max<std::size_t>(1, fuzz::take_selector(in));
    kube::LineSplitter lines;
    std::size_t seen = 0;
    for (std::size_t at = 0; at < in.size(); at += chunk) {
      const bool more = lines.feed(in.substr(at, chunk), [&](std::string_view line) {
        FED_FUZZ_CHECK(!line.empty() && line.find('\n') == std::string_view::npos);
        seen += line.size();
        (void)kube::parse_watch_event(line);
        return true;
      });
      FED_FUZZ_CHECK(more);
    }
    FED_FUZZ_CHECK(seen + lines.buffered() <= in.size());
  } else {
    auto review = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (review.is_discarded()) return 0;
    for (const char* kind : {"Pod", "Namespace"}) {
      if (auto request = kube::parse_admission_request(review, kind)) {
        (void)kube::admission_allowed(*request);
      }
    }
  }
  return 0;
}
