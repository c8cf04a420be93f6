// hkimgen: one validated profile per GPU cluster → a GitOps-ready bundle.
// The sub-commands live in generator/commands/ (registry.cc lists them); main only runs them.

#include <iostream>

#include "commands/app.h"

int main(int argc, char** argv) { return hkim::RunHkimgen(argc, argv, std::cout, std::cerr); }
