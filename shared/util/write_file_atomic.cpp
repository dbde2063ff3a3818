#include "shared/util/write_file_atomic.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "shared/raii/cleanup.hpp"
#include "shared/raii/fd.hpp"

namespace fed::util {
namespace {

Error errno_error(const std::filesystem::path& path, std::string_view step) {
  const int err = errno;
  const ErrorCode code = err == EACCES || err == EPERM || err == EROFS ? ErrorCode::Permission
                         : err == ENOENT                               ? ErrorCode::NotFound
                                                                       : ErrorCode::Internal;
  return Error(code, path.string() + ": " + std::string(step) + ": " + std::strerror(err));
}

// fsync of the directory makes a rename or unlink in it durable (ext4, xfs: not before).
Status sync_directory(const std::filesystem::path& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return errno_error(dir, "open directory");
  if (::fsync(fd.get()) != 0) return errno_error(dir, "fsync directory");
  return ok();
}

std::filesystem::path parent_of(const std::filesystem::path& path) {
  auto dir = path.parent_path();
  return dir.empty() ? std::filesystem::path(".") : dir;
}

}  // namespace

Status write_file_atomic(const std::filesystem::path& path, std::string_view data, mode_t mode) {
  const std::filesystem::path dir = parent_of(path);
  // Same directory, so the rename stays within one file system and is atomic.
  std::string tmpl = (dir / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  Fd fd(::mkostemp(tmpl.data(), O_CLOEXEC));
  if (!fd) return errno_error(tmpl, "create temporary file");
  const std::filesystem::path tmp = tmpl;
  Cleanup remove_tmp([&tmp] { ::unlink(tmp.c_str()); });
  if (::fchmod(fd.get(), mode) != 0) return errno_error(tmp, "chmod");
  for (std::size_t done = 0; done < data.size();) {
    const ssize_t n = ::write(fd.get(), data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error(tmp, "write");
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0) return errno_error(tmp, "fsync");
  if (::close(fd.release()) != 0) return errno_error(tmp, "close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return errno_error(path, "rename into place");
  remove_tmp.cancel();
  return sync_directory(dir);
}

Status remove_file_durable(const std::filesystem::path& path) {
  if (::unlink(path.c_str()) != 0) {
    if (errno == ENOENT) return ok();
    return errno_error(path, "remove");
  }
  return sync_directory(parent_of(path));
}

}  // namespace fed::util
