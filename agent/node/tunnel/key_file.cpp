#include "agent/node/tunnel/key_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "shared/raii/cleanup.hpp"
#include "shared/raii/fd.hpp"
#include "shared/util/strings.hpp"

namespace fed::tunnel {
namespace {

Error errno_error(std::string_view what, const std::string& path) {
  const int e = errno;
  return Error(e == EACCES || e == EPERM ? ErrorCode::Permission : ErrorCode::Internal,
               fmt::format("{} {}: {}", what, path, std::strerror(e)));
}

Result<WgKey> read_key(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) return Unexpected(errno_error("open WireGuard private key file", path));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Unexpected(errno_error("stat", path));
  if (!S_ISREG(st.st_mode)) {
    return fail(ErrorCode::Invalid, fmt::format("WireGuard private key file {} is not a regular "
                                                "file; remove it or choose another key path",
                                                path));
  }
  if ((st.st_mode & 077) != 0) {
    return fail(ErrorCode::Invalid,
                fmt::format("WireGuard private key file {} has mode {:04o}: group or others may "
                            "read it, so the key may have leaked; delete the file (a new key is "
                            "made and published on the next start) or chmod 600 it if you are "
                            "sure it did not",
                            path, st.st_mode & 07777));
  }
  char buf[128];
  const ssize_t n = ::read(fd.get(), buf, sizeof buf);
  if (n < 0) return Unexpected(errno_error("read", path));
  auto text = util::trim(std::string_view(buf, static_cast<std::size_t>(n)));
  return WgKey::from_base64(
      text,
      "WireGuard private key file " + path + " (delete it to have a new key made and published)",
      KeySecrecy::Private);
}

// Writes `key` to a fresh temporary file, then link()s it to `path`: the key appears complete
// or not at all, and an existing file (another agent won the race) is never overwritten.
Status write_new_key(const std::string& path, const WgKey& key) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd) return Unexpected(errno_error("create", tmp));
  Cleanup remove_tmp([&] { ::unlink(tmp.c_str()); });
  const std::string line = key.base64() + "\n";
  if (::write(fd.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size()) ||
      ::fsync(fd.get()) != 0) {
    return Unexpected(errno_error("write", tmp));
  }
  if (::link(tmp.c_str(), path.c_str()) != 0 && errno != EEXIST) {
    return Unexpected(errno_error("create", path));
  }
  return ok();
}

}  // namespace

Result<WgKey> load_or_create_private_key(const std::string& path) {
  if (path.empty()) {
    return fail(ErrorCode::Invalid, "the WireGuard private key path is empty; set it");
  }
  if (::access(path.c_str(), F_OK) == 0) return read_key(path);

  const auto dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::exists(dir, ec)) {
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      return fail(ErrorCode::Internal, fmt::format("create directory {} for the WireGuard "
                                                   "private key: {}",
                                                   dir.string(), ec.message()));
    }
    ::chmod(dir.c_str(), 0700);  // a directory we made holds only the key: nobody else reads it
  }
  FED_ASSIGN_OR_RETURN(WgKey key, generate_private_key());
  FED_TRY(write_new_key(path, key));
  // Read back: when another agent created the file first, its key is the one to use.
  return read_key(path);
}

}  // namespace fed::tunnel
