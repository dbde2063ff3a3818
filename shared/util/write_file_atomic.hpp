#pragma once
// Replacing a file so that a crash at any moment leaves either the old or the new contents,
// never a mix or an empty file: for configuration that a daemon reads at start (the kubelet's).

#include <sys/types.h>
#include <filesystem>
#include <string_view>

#include "shared/result/result.hpp"

namespace fed::util {

// Writes `data` to a temporary file beside `path`, fsyncs it, renames it over `path` and fsyncs
// the directory, so the rename itself survives a power cut. The new file gets `mode`. On any
// error the temporary file is removed and `path` is untouched; the message names the path and
// the step that failed.
Status write_file_atomic(const std::filesystem::path& path, std::string_view data,
                         mode_t mode = 0644);

// Removes `path` (absent is fine) and fsyncs its directory, so the removal is durable before the
// caller's next step (a restart that must not find the file).
Status remove_file_durable(const std::filesystem::path& path);

}  // namespace fed::util
