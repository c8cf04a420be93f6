// hkim-wrapper: the in-pod RDMA/NCCL set-up program. All logic lives in the stages;
// pipeline.cc knows their order.
#include <unistd.h>

#include <iostream>

#include "cli.h"
#include "environment_scan.h"
#include "install.h"
#include "pipeline.h"

int main(int argc, char** argv) {
  using namespace hkim::wrapper;
  RunContext context;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e)
    context.environ_entries.emplace_back(*e);
  std::string error;
  if (!ParseCommandLine(std::vector<std::string>(argv + 1, argv + argc),
                        ParseEnvironment(context.environ_entries), &context.options, &error)) {
    std::cerr << "hkim-wrapper: error: " << error << "\n";
    return 2;
  }
  if (context.options.help) {
    std::cout << UsageText();
    return 0;
  }
  if (context.options.version) {
    std::cout << "hkim-wrapper " << HKIM_VERSION << "\n";
    return 0;
  }
  context.self_path = SelfPath(argv[0]);
  context.out = &std::cout;
  context.err = &std::cerr;
  return RunWrapper(context);
}
