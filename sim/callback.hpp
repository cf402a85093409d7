// A move-only `void()` callable with inline storage, for the event queue.
//
// std::function copies, and calls its manager through a pointer on every move
// and destroy; an event is moved and destroyed once each, so that overhead is
// a large share of the kernel's per-event cost. Callables up to kInlineBytes
// that are nothrow-movable live inline; trivially copyable ones (the common
// `[this]` or `[this, id]` lambdas) are moved with memcpy and need no
// destructor call. Larger callables go to the heap.
#pragma once

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace rsim {

class Callback {
 public:
  static constexpr std::size_t kInlineBytes = 48;

  Callback() noexcept = default;
  Callback(std::nullptr_t) noexcept {}

  template <class F, class T = std::decay_t<F>,
            class = std::enable_if_t<!std::is_same_v<T, Callback> && std::is_invocable_r_v<void, T&>>>
  Callback(F&& f) {  // NOLINT: implicit, like std::function
    if constexpr (fits_inline<T>()) {
      ::new (static_cast<void*>(buf_)) T(std::forward<F>(f));
      ops_ = &kInlineOps<T>;
    } else {
      T* p = new T(std::forward<F>(f));
      std::memcpy(buf_, &p, sizeof p);
      ops_ = &kHeapOps<T>;
    }
  }

  Callback(Callback&& other) noexcept { take(other); }
  Callback& operator=(Callback&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  Callback& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }
  Callback(const Callback&) = delete;
  Callback& operator=(const Callback&) = delete;
  ~Callback() { reset(); }

  explicit operator bool() const noexcept { return ops_ != nullptr; }
  void operator()() { ops_->invoke(buf_); }

  void reset() noexcept {
    if (ops_ != nullptr && ops_->destroy != nullptr) ops_->destroy(buf_);
    ops_ = nullptr;
  }

 private:
  struct Ops {
    void (*invoke)(void*);
    void (*move)(void* to, void* from);  // nullptr: memcpy the buffer
    void (*destroy)(void*);              // nullptr: nothing to do
  };

  template <class T>
  static constexpr bool fits_inline() {
    return sizeof(T) <= kInlineBytes && alignof(T) <= alignof(std::max_align_t) &&
           std::is_nothrow_move_constructible_v<T>;
  }
  template <class T>
  static constexpr bool trivial() {
    return std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>;
  }

  template <class T>
  static constexpr Ops kInlineOps{
      [](void* p) { (*static_cast<T*>(p))(); },
      trivial<T>() ? nullptr
                   : +[](void* to, void* from) {
                       ::new (to) T(std::move(*static_cast<T*>(from)));
                       static_cast<T*>(from)->~T();
                     },
      trivial<T>() ? nullptr : +[](void* p) { static_cast<T*>(p)->~T(); },
  };
  template <class T>
  static constexpr Ops kHeapOps{
      [](void* p) { (**static_cast<T**>(p))(); },
      nullptr,  // the pointer is moved with memcpy
      [](void* p) { delete *static_cast<T**>(p); },
  };

  void take(Callback& other) noexcept {
    ops_ = other.ops_;
    if (ops_ == nullptr) return;
    if (ops_->move != nullptr) {
      ops_->move(buf_, other.buf_);
    } else {
      std::memcpy(buf_, other.buf_, kInlineBytes);
    }
    other.ops_ = nullptr;  // moved-from: nothing left to destroy
  }

  alignas(std::max_align_t) unsigned char buf_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace rsim
