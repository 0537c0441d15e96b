// Subcommands of `tact`. Each Add*Command registers its subcommand on `app`
// and, when the user picks it, sets `run` to the function that does the work
// (its return value is the process's exit status).
#pragma once

#include <functional>

namespace CLI {
class App;
}  // namespace CLI

namespace tact::apps {

// `tact example`: builds the paper's Figure 1 graph and prints it.
void AddExampleCommand(CLI::App& app, std::function<int()>& run);
// `tact run --graph FILE --feed n:p=f.npy --fetch n:p [--target n] --out DIR`
void AddRunCommand(CLI::App& app, std::function<int()>& run);
// `tact grad --graph FILE --y n:p --x n:p[,n:p] --out FILE [--binary]`
void AddGradCommand(CLI::App& app, std::function<int()>& run);
// `tact train --model {mlp,cnn} ...`
void AddTrainCommand(CLI::App& app, std::function<int()>& run);
// `tact export --model {mlp,cnn} --checkpoint-dir DIR --out FILE`
void AddExportCommand(CLI::App& app, std::function<int()>& run);
// `tact freeze --graph FILE --checkpoint-dir DIR --output n:p[,n:p] --out FILE`
void AddFreezeCommand(CLI::App& app, std::function<int()>& run);
// `tact graph --model {mlp,cnn} [--train] --devices N --dot out.dot`
void AddGraphCommand(CLI::App& app, std::function<int()>& run);
// `tact worker --cluster FILE --job J --task T`
void AddWorkerCommand(CLI::App& app, std::function<int()>& run);
// `tact ckpt {ls,show,verify} DIR`: HDF5 checkpoints (checkpoint/checkpoint.h).
void AddCkptCommand(CLI::App& app, std::function<int()>& run);
// `tact bench matmul ...`
void AddBenchCommand(CLI::App& app, std::function<int()>& run);

}  // namespace tact::apps
