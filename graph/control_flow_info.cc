#include "graph/control_flow_info.h"

#include <deque>
#include <map>
#include <utility>

namespace tact {
namespace {

std::string FrameName(const std::vector<FrameDesc>& frames, int f) { return DescribeFrame(f, frames[f].name); }

}  // namespace

bool IsEnterOp(const std::string& op) { return op == "Enter" || op == "RefEnter"; }

std::string DescribeFrame(int frame, const std::string& name) {
  return frame == 0 ? std::string("the root frame") : "loop frame '" + name + "'";
}

int ControlFlowInfo::OutputFrame(const Node* node) const {
  if (child_frame[node->id()] >= 0) return child_frame[node->id()];
  const int f = frame_of[node->id()];
  return node->op() == "Exit" ? frames[f].parent : f;
}

StatusOr<ControlFlowInfo> BuildControlFlowInfo(const Graph& graph) {
  ControlFlowInfo info;
  info.frames.assign(1, FrameDesc());
  info.frame_of.assign(graph.num_node_ids(), -1);
  info.child_frame.assign(graph.num_node_ids(), -1);
  std::map<std::pair<int, std::string>, int> child_frames;
  std::deque<const Node*> queue;
  for (Node* n : graph.nodes()) {
    if (!n->in_edges().empty()) continue;
    info.frame_of[n->id()] = 0;
    queue.push_back(n);
  }
  while (!queue.empty()) {
    const Node* node = queue.front();
    queue.pop_front();
    const int frame = info.frame_of[node->id()];
    if (IsEnterOp(node->op())) {
      std::string name;
      TACT_RETURN_IF_ERROR(GetAttr(node->attrs(), "frame_name", &name));
      int64_t parallel = 10;
      if (!GetAttr(node->attrs(), "parallel_iterations", &parallel).ok()) parallel = 10;
      if (parallel < 1) {
        return errors::InvalidArgument(node->ErrorPrefix(), "parallel_iterations must be at least 1, not ",
                                       parallel);
      }
      auto it = child_frames.find({frame, name});
      if (it == child_frames.end()) {
        FrameDesc f;
        f.name = name;
        f.parent = frame;
        f.parallel_iterations = static_cast<int>(parallel);
        info.frames.push_back(std::move(f));
        it = child_frames.emplace(std::make_pair(frame, name), info.frames.size() - 1).first;
      }
      info.child_frame[node->id()] = it->second;
    } else if (node->op() == "Exit" && frame == 0) {
      return errors::InvalidArgument(node->ErrorPrefix(),
                                     "an Exit must be inside a loop's frame, but its input "
                                     "comes through no Enter");
    } else if (node->op() == "NextIteration" && frame == 0) {
      // Outside a loop nothing takes its value to a next iteration: a Run
      // that fetched it waited forever.
      return errors::InvalidArgument(node->ErrorPrefix(),
                                     "a NextIteration must be inside a loop's frame, but its input "
                                     "comes through no Enter");
    } else if (node->op() == "NextIteration") {
      info.frames[frame].is_loop = true;
    } else if (node->op() == "LoopCond") {
      info.frames[frame].loop_cond = const_cast<Node*>(node);
    }
    const int out_frame = info.OutputFrame(node);
    for (const Edge* e : node->out_edges()) {
      int& dst = info.frame_of[e->dst->id()];
      if (dst < 0) {
        dst = out_frame;
        queue.push_back(e->dst);
      } else if (dst != out_frame) {
        return errors::InvalidArgument(
            e->dst->ErrorPrefix(), "has inputs from two frames, ", FrameName(info.frames, dst), " and ",
            FrameName(info.frames, out_frame),
            " (a value enters a loop through an Enter and leaves it through an Exit)");
      }
    }
  }
  for (Node* n : graph.nodes()) {
    if (info.frame_of[n->id()] < 0) {
      return errors::InvalidArgument(n->ErrorPrefix(), "is reached from no node without inputs");
    }
  }
  return info;
}

}  // namespace tact
