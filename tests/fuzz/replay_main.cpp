// The fuzz targets' main outside a libFuzzer build: runs LLVMFuzzerTestOneInput once on each file
// named (directories: each file in them), so every build replays the committed corpora, crash
// regressions included, as part of the unit suite. A crash or sanitizer report fails the run;
// an unreadable input is an error, never a silent pass.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool run_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    return false;
  }
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  // A copy of exactly `size` bytes, as libFuzzer passes them: reads past the end are caught.
  std::vector<std::uint8_t> data(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(data.data(), data.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t inputs = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    if (std::filesystem::is_directory(arg)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::directory_iterator(arg)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        ok = run_file(f) && ok;
        ++inputs;
      }
    } else {
      ok = run_file(arg) && ok;
      ++inputs;
    }
  }
  if (inputs == 0) {
    std::fprintf(stderr, "replay: no input (give corpus files or directories)\n");
    return 2;
  }
  std::printf("replay: %zu inputs, no crash\n", inputs);
  return ok ? 0 : 1;
}
