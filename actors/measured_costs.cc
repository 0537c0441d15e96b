#include "actors/measured_costs.h"

#include "devices/device_name.h"

namespace tact {

Status RecordStepStats(const std::vector<NodeExecStats>& nodes, MeasuredCostModel* model) {
  for (const NodeExecStats& n : nodes) {
    StatusOr<DeviceName> device = DeviceName::Parse(n.device);
    if (!device.ok() || device->type.empty()) {
      return errors::InvalidArgument("stats of node '", n.node_name, "' name device '", n.device,
                                     "', not a full device name");
    }
    model->Record(n.node_name, device->type, static_cast<double>(n.end_ns - n.start_ns) * 1e-9,
                  n.output_bytes);
  }
  return Status::OK();
}

}  // namespace tact
