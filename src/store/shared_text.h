// Immutable text shared by reference. A copy costs a reference count, not
// the bytes; and the text may be a view into memory something else owns (the
// mapped build state) and keeps alive with it. A thousand-model build state
// holds megabytes of stage metrics that a no-op build never reads: loading
// them as views instead of strings, and handing them on by reference, saves
// copying them twice.
#pragma once

#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace winml::store {

class SharedText {
 public:
  SharedText() : SharedText(std::string()) {}
  SharedText(std::string text) {  // NOLINT: implicit, as a string is
    auto owned = std::make_shared<const std::string>(std::move(text));
    view_ = *owned;
    owner_ = std::move(owned);
  }
  SharedText(const char* text) : SharedText(std::string(text)) {}  // NOLINT
  // A string literal, referred to in place.
  template <std::size_t N>
  static SharedText literal(const char (&text)[N]) {
    return SharedText(nullptr, std::string_view(text, N - 1));
  }
  // `view` stays valid while `owner` lives.
  SharedText(std::shared_ptr<const void> owner, std::string_view view) : owner_(std::move(owner)), view_(view) {}

  std::string_view view() const { return view_; }
  operator std::string_view() const { return view_; }  // NOLINT
  std::string str() const { return std::string(view_); }
  const char* data() const { return view_.data(); }
  std::size_t size() const { return view_.size(); }
  bool empty() const { return view_.empty(); }
  std::size_t find(std::string_view s) const { return view_.find(s); }

  friend bool operator==(const SharedText& a, const SharedText& b) { return a.view_ == b.view_; }
  friend bool operator==(const SharedText& a, std::string_view b) { return a.view_ == b; }
  friend bool operator==(const SharedText& a, const char* b) { return a.view_ == b; }
  friend std::ostream& operator<<(std::ostream& os, const SharedText& t) { return os << t.view_; }

 private:
  std::shared_ptr<const void> owner_;
  std::string_view view_;
};

}  // namespace winml::store
