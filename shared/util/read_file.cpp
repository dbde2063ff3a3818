#include "shared/util/read_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "shared/raii/fd.hpp"

namespace fed::util {
namespace {

Unexpected errno_error(const std::filesystem::path& path, int err) {
  const ErrorCode code = err == ENOENT || err == ENOTDIR ? ErrorCode::NotFound
                         : err == EACCES || err == EPERM ? ErrorCode::Permission
                         : err == EISDIR                 ? ErrorCode::Invalid
                                                         : ErrorCode::Internal;
  return fail(code, path.string() + ": " + std::strerror(err));
}

}  // namespace

Result<std::string> read_file(const std::filesystem::path& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return errno_error(path, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0 && S_ISDIR(st.st_mode)) return errno_error(path, EISDIR);
  std::string data;
  std::array<char, 16384> buf;
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error(path, errno);
    }
    data.append(buf.data(), static_cast<std::size_t>(n));
  }
  return data;
}

}  // namespace fed::util
