#include "shared/log/log.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace fed::log {
namespace {

// Renders each record as {"ts":..., "level":..., "msg":...}; nlohmann does the escaping
// that a pattern string cannot.
class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    using namespace std::chrono;
    const auto ms = duration_cast<milliseconds>(msg.time.time_since_epoch()).count();
    nlohmann::json j;
    j["ts"] = static_cast<double>(ms) / 1000.0;
    j["level"] = std::string(spdlog::level::to_string_view(msg.level).data(),
                             spdlog::level::to_string_view(msg.level).size());
    j["msg"] = std::string(msg.payload.data(), msg.payload.size());
    if (msg.logger_name.size() != 0) {
      j["logger"] = std::string(msg.logger_name.data(), msg.logger_name.size());
    }
    const std::string line =
        j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

spdlog::level::level_enum level_for(int verbosity) {
  if (verbosity < 0) return spdlog::level::warn;
  if (verbosity == 0) return spdlog::level::info;
  if (verbosity == 1) return spdlog::level::debug;
  return spdlog::level::trace;
}

}  // namespace

Result<Format> parse_format(std::string_view s) {
  if (s == "text") return Format::Text;
  if (s == "json") return Format::Json;
  return fail(ErrorCode::Invalid,
              "--log-format: unknown value '" + std::string(s) + "'; use 'text' or 'json'");
}

void init(const Options& options) {
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("", sink);
  if (options.format == Format::Json) {
    logger->set_formatter(std::make_unique<JsonFormatter>());
  } else {
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%L%$ %v");
  }
  logger->set_level(level_for(options.verbosity));
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace fed::log
