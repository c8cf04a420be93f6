#include "pipeline/prepare.h"

#include <exception>

#include "pipeline/pipeline.h"
#include "schema/profile_schema.h"
#include "support/diagnostics.h"

namespace hkim {

RenderPreparation::RenderPreparation(std::vector<std::function<void()>> warm_ups)
    : warm_ups_(std::move(warm_ups)), thread_([this] { Run(); }) {}

// The thread stops, then thread_'s destructor (the last member: destroyed first) waits for it.
RenderPreparation::~RenderPreparation() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
}

void RenderPreparation::ParseTemplates(const std::vector<std::string>& names, bool last) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    last_given_ = last_given_ || last;
    for (const std::string& name : names) {
      if (given_.insert(name).second) waiting_.push_back(name);
    }
  }
  wake_.notify_one();
}

void RenderPreparation::Run() {
  // Errors are not reported here: the render asks for the same schema and templates and
  // reports what they hold (each parsed once per process, its errors kept with it).
  try {
    DiagnosticSink ignored;
    ProfileSchema::Embedded(ignored);
    for (const std::function<void()>& warm_up : warm_ups_) warm_up();
    const TemplateSet* templates = SharedEmbeddedTemplates(ignored);
    while (templates) {
      std::string name;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return stop_ || last_given_ || !waiting_.empty(); });
        if (stop_ || waiting_.empty()) return;
        name = std::move(waiting_.back());
        waiting_.pop_back();
      }
      templates->Find(name);
    }
  } catch (const std::exception&) {
    // Out of memory or the like: the rendering thread does the same work and reports it.
  }
}

}  // namespace hkim
