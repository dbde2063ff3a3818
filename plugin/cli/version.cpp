#include "plugin/cli/version.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

#include "plugin/cli/server_version.hpp"
#include "plugin/connect/rest_config.hpp"
#include "shared/util/build_info.hpp"

namespace fed::plugin {
namespace {

// Without --request-timeout the probe still gives up, so that `version` never hangs on a
// black-holed address.
constexpr std::chrono::seconds kDefaultProbeTimeout{10};

nlohmann::json client_info() {
  return {{"gitVersion", "v" + std::string(build::version())},
          {"gitCommit", std::string(build::git_commit())}};
}

Runner wire_version(CLI::App& app) {
  auto options = std::make_shared<VersionOptions>();
  app.add_flag("--client", options->client_only,
               "Print only the client version; do not contact the API server");
  return [options](const GlobalOptions& global, Output& out) {
    return run_version(global, *options, out);
  };
}

}  // namespace

const Command kVersionCommand{
    .name = "version",
    .summary = "Print the client version and, when reachable, the API server's",
    .description =
        "Print the kubectl-fed version and git commit, then ask the API server of the current "
        "context (or --context) for its version. The client version is printed even when the "
        "server cannot be reached; the command then fails with exit code 3. Without "
        "--request-timeout the server query gives up after 10s.",
    .usage = "version [--client] [flags]",
    .examples =
        "  # Client and server versions\n"
        "  kubectl fed version\n"
        "\n"
        "  # Only the client version, as JSON\n"
        "  kubectl fed version --client -o json\n",
    .arg_values = {},
    .wire = wire_version,
};

Status run_version(const GlobalOptions& global, const VersionOptions& options, Output& out) {
  nlohmann::json doc = {{"clientVersion", client_info()}};
  const auto print_client = [&] {
    out.print(doc, [](std::ostream& os) {
      os << "Client Version: v" << build::version() << " (commit " << build::git_commit() << ")\n";
    });
  };
  if (options.client_only) {
    print_client();
    return ok();
  }

  auto config = rest_config_for(global);
  if (!config) {
    print_client();
    return std::move(config).error();
  }
  if (config->request_timeout.count() == 0) config->request_timeout = kDefaultProbeTimeout;
  out.progress("Asking " + config->server + " for its version...");
  auto server = fetch_server_version(*config);
  if (!server) {
    print_client();
    return std::move(server).error();
  }
  doc["serverVersion"] = server->info;
  out.print(doc, [&](std::ostream& os) {
    os << "Client Version: v" << build::version() << " (commit " << build::git_commit() << ")\n"
       << "Server Version: " << server->git_version << "\n";
  });
  return ok();
}

}  // namespace fed::plugin
