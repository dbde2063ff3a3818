#pragma once
// Reads a whole (small) file into memory with errors as values.

#include <filesystem>
#include <string>

#include "shared/result/result.hpp"

namespace fed::util {

// Returns the file's bytes. Errors: NotFound (no such file), Permission (not readable),
// Invalid (a directory), Internal (anything else); the message is "<path>: <reason>" so the
// caller can add which setting named the file and how to fix it.
Result<std::string> read_file(const std::filesystem::path& path);

}  // namespace fed::util
