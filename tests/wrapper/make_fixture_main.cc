// hkim_wrapper_make_fixture SCENARIO DIR: builds a fixture sysfs tree in DIR and prints the pod's
// device-plugin environment (NAME=VALUE lines). Scenarios: barcelona, barcelona-february, oke.
#include <iostream>
#include <string>

#include "sysfs_fixture.h"

int main(int argc, char** argv) {
  using namespace hkim::wrapper::testing;
  if (argc != 3) {
    std::cerr << "usage: hkim_wrapper_make_fixture barcelona|barcelona-february|oke DIR\n";
    return 2;
  }
  const std::string scenario = argv[1];
  SysfsFixture fixture(argv[2], /*keep=*/true);
  std::vector<FixtureDevice> devices;
  std::vector<std::string> env;
  if (scenario == "barcelona" || scenario == "barcelona-february") {
    devices = BarcelonaDevices(scenario == "barcelona-february");
    for (FixtureDevice& d : devices) d.gid_slots = 255;
    env = PluginEnvironment(devices, true, true);
  } else if (scenario == "oke") {
    devices = OkeDevices();
    env = PluginEnvironment(devices, true, true, "NVIDIA_COM_RDMA-VF");
  } else {
    std::cerr << "unknown scenario " << scenario << "\n";
    return 2;
  }
  BuildPod(&fixture, devices);
  for (const std::string& line : env) std::cout << line << "\n";
  return 0;
}
