#include "support/thread_beside.h"

#include <sched.h>

#include <new>
#include <system_error>
#include <utility>

namespace hkim {

ThreadBeside::ThreadBeside(std::function<void()> body) : body_(std::move(body)) {
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes) != 0) throw std::bad_alloc();
  const int here = sched_getcpu();
  if (here >= 0 && sched_getaffinity(0, sizeof allowed_, &allowed_) == 0 &&
      CPU_COUNT(&allowed_) > 1 && CPU_ISSET(here, &allowed_)) {
    cpu_set_t elsewhere = allowed_;
    CPU_CLR(here, &elsewhere);
    narrowed_ = pthread_attr_setaffinity_np(&attributes, sizeof elsewhere, &elsewhere) == 0;
  }
  int error = pthread_create(&thread_, &attributes, Start, this);
  if (error != 0 && narrowed_) {  // affinity refused (a restricted container): a plain thread
    narrowed_ = false;
    pthread_attr_destroy(&attributes);
    pthread_attr_init(&attributes);
    error = pthread_create(&thread_, &attributes, Start, this);
  }
  pthread_attr_destroy(&attributes);
  if (error != 0) throw std::system_error(error, std::generic_category(), "pthread_create");
  started_ = true;
}

ThreadBeside::~ThreadBeside() { Join(); }

void ThreadBeside::Join() {
  if (started_) pthread_join(thread_, nullptr);
  started_ = false;
}

void* ThreadBeside::Start(void* self) {
  auto& thread = *static_cast<ThreadBeside*>(self);
  if (thread.narrowed_) sched_setaffinity(0, sizeof thread.allowed_, &thread.allowed_);
  thread.body_();
  return nullptr;
}

}  // namespace hkim
