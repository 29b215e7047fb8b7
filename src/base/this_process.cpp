#include "base/this_process.h"

namespace winml {

Utf8Arguments::Utf8Arguments(int argc, char** argv) : text_(utf8_arguments(argc, argv)) {
  for (auto& a : text_) pointers_.push_back(a.data());
  pointers_.push_back(nullptr);
}

}  // namespace winml
