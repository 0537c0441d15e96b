// The exit status of a subcommand whose work is one Status: 0, or 1 after
// printing "tact <command>: <the status>" on stderr.
//
//   cmd->callback([f, &run] { run = ExitStatusOf("freeze", [f] { return Freeze(*f); }); });
#pragma once

#include <functional>
#include <string>

#include "graph/status.h"

namespace tact::apps {

std::function<int()> ExitStatusOf(std::string command, std::function<Status()> work);

}  // namespace tact::apps
