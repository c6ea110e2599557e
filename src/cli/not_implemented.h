// A placeholder callback for commands that a later change implements.
#pragma once

#include <iostream>
#include <string>

#include "core/exit_codes.h"

namespace dagu::cli {

inline int NotImplemented(const std::string& command) {
  std::cerr << "dagu " << command << ": not implemented yet\n";
  return kExitSoftware;
}

}  // namespace dagu::cli
