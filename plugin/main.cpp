// kubectl-fed: kubectl finds it on PATH and runs it for `kubectl fed ...`, passing the
// remaining arguments unchanged. Everything happens in run_cli(); main only adds the
// last-resort catch.

#include <spdlog/spdlog.h>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "plugin/cli/cli.hpp"
#include "plugin/cli/exit_codes.hpp"
#include "plugin/cli/output.hpp"

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return fed::plugin::run_cli(args, std::cout, std::cerr,
                                fed::plugin::Output::progress_for_stderr());
  } catch (const std::exception& e) {
    spdlog::critical("kubectl-fed: unexpected error: {}", e.what());
  } catch (...) {
    spdlog::critical("kubectl-fed: unexpected non-standard exception");
  }
  return static_cast<int>(fed::plugin::ExitCode::Failure);
}
