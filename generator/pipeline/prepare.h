#pragma once

// What every render needs whatever the profile, set up on a second thread while the first reads the
// profile: compiling the schema into valijson and parsing the templates it uses are a large share
// of a small render, and none of it depends on the profile. The thread compiles the schema first
// (validation, the next stage, waits for it), then parses the templates the plan names, from the
// last one rendered backwards, while the rendering thread parses what it reaches first: they meet
// halfway instead of one waiting on the other. Between the two it reads the other parse-once tables
// the render reads whatever the profile (lint's, PrepareLintTables) and parses the templates nearly
// every bundle renders (plan/likely_templates.h), while the profile is validated and planned. All
// are the process's parse-once objects (ProfileSchema::Embedded, SharedEmbeddedTemplates, ...), so
// the output does not change, only which thread did the parsing.

#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "lint/lint.h"
#include "support/thread_beside.h"

namespace hkim {

class RenderPreparation {
 public:
  /// Starts the thread, which compiles the embedded schema at once, then runs `warm_ups` (other
  /// parse-once tables the render reads whatever the profile; lint's by default).
  explicit RenderPreparation(std::vector<std::function<void()>> warm_ups = {PrepareLintTables});
  /// Stops taking templates and waits for the one being parsed (if any).
  ~RenderPreparation();
  RenderPreparation(const RenderPreparation&) = delete;
  RenderPreparation& operator=(const RenderPreparation&) = delete;

  /// Parses these embedded templates (names under templates/) on the thread, the last given
  /// first; a name given before is skipped, one already parsed costs a look-up. `last`: no
  /// more will come, the thread ends once these are parsed (a large render's threads then
  /// reuse its malloc arena instead of adding one: peak memory).
  void ParseTemplates(const std::vector<std::string>& names, bool last = false);

 private:
  void Run();

  std::vector<std::function<void()>> warm_ups_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::string> waiting_;  // parsed from the back
  std::set<std::string> given_;
  bool stop_ = false;
  bool last_given_ = false;
  ThreadBeside thread_;  // last: started once the members above exist
};

}  // namespace hkim
