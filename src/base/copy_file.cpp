#include "base/copy_file.h"

#include "base/atomic_file.h"
#include "base/native_file.h"
#include "base/regular_file.h"

namespace winml {

void copy_file_atomic(const std::filesystem::path& from, const std::filesystem::path& to) {
  native::FileStatus st;
  const int in = open_regular_file(from, &st);
  try {
    AtomicFileWriter out(to);
    if (!native::clone_file(in, out.fd())) out.copy_from_fd(in, 0, st.size);
    out.commit();
  } catch (...) {
    native::close(in);
    throw;
  }
  native::close(in);
}

}  // namespace winml
