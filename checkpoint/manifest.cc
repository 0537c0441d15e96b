#include "checkpoint/manifest.h"

#include <nlohmann/json.hpp>
#include <regex>

#include "checkpoint/checksum.h"

namespace tact::checkpoint_internal {
namespace {
constexpr const char* kFormat = "tact-checkpoint-1";
}  // namespace

std::string ShardFileName(int64_t step, int shard, int num_shards) {
  return "ckpt-" + std::to_string(step) + ".shard-" + std::to_string(shard) + "-of-" +
         std::to_string(num_shards) + ".h5";
}

std::string ManifestFileName(int64_t step) { return "ckpt-" + std::to_string(step) + ".manifest"; }

std::optional<CheckpointFileName> ParseCheckpointFileName(const std::string& name) {
  static const std::regex kShard(R"(ckpt-(\d{1,18})\.shard-(\d{1,6})-of-(\d{1,6})\.h5)");
  static const std::regex kManifest(R"(ckpt-(\d{1,18})\.manifest)");
  std::smatch m;
  CheckpointFileName out;
  if (std::regex_match(name, m, kManifest)) {
    out.manifest = true;
    out.step = std::stoll(m[1]);
    return out;
  }
  if (std::regex_match(name, m, kShard)) {
    out.step = std::stoll(m[1]);
    out.shard = std::stoi(m[2]);
    out.num_shards = std::stoi(m[3]);
    if (out.shard < out.num_shards) return out;
  }
  return std::nullopt;
}

namespace {

bool IsChecksumHex(const std::string& hex) {
  return hex.size() == 16 && hex.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

std::string SerializeManifest(const Manifest& m) {
  nlohmann::ordered_json shards = nlohmann::ordered_json::array();
  for (const ManifestShard& s : m.shards) {
    nlohmann::ordered_json shard = {{"file", s.file},
                                    {"bytes", s.bytes},
                                    {"checksum", ChecksumHex(s.checksum)},
                                    {"variables", s.variables}};
    if (s.metadata_checksum) {
      nlohmann::ordered_json extents = nlohmann::ordered_json::array();
      for (const ByteExtent& e : s.metadata_extents) extents.push_back({e.offset, e.length});
      shard["metadata"] = {{"checksum", ChecksumHex(*s.metadata_checksum)}, {"extents", extents}};
    }
    shards.push_back(shard);
  }
  const nlohmann::ordered_json j = {{"format", kFormat},
                                    {"step", m.step},
                                    {"wall_time", m.wall_time},
                                    {"num_shards", m.shards.size()},
                                    {"shards", shards}};
  return j.dump(1) + "\n";
}

StatusOr<Manifest> ParseManifest(const std::string& text, const std::string& path) {
  auto bad = [&path](const std::string& why) {
    return errors::DataLoss("checkpoint manifest '", path, "' is damaged: ", why);
  };
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return bad("not JSON");
  if (j.value("format", "") != kFormat) return bad("format is not " + std::string(kFormat));
  Manifest m;
  try {
    m.step = j.at("step").get<int64_t>();
    m.wall_time = j.at("wall_time").get<double>();
    const size_t n = j.at("num_shards").get<size_t>();
    const nlohmann::json& shards = j.at("shards");
    if (!shards.is_array() || shards.size() != n || n == 0) return bad("shards do not match num_shards");
    for (const nlohmann::json& s : shards) {
      ManifestShard e;
      e.file = s.at("file").get<std::string>();
      e.bytes = s.at("bytes").get<int64_t>();
      e.variables = s.at("variables").get<int64_t>();
      const std::string hex = s.at("checksum").get<std::string>();
      if (!IsChecksumHex(hex)) return bad("checksum '" + hex + "' of " + e.file);
      e.checksum = std::stoull(hex, nullptr, 16);
      if (s.contains("metadata")) {
        const std::string meta_hex = s.at("metadata").at("checksum").get<std::string>();
        if (!IsChecksumHex(meta_hex)) return bad("metadata checksum '" + meta_hex + "' of " + e.file);
        e.metadata_checksum = std::stoull(meta_hex, nullptr, 16);
        int64_t end = 0;
        for (const nlohmann::json& x : s.at("metadata").at("extents")) {
          const ByteExtent extent{x.at(0).get<int64_t>(), x.at(1).get<int64_t>()};
          if (extent.offset < end || extent.length <= 0 || extent.length > e.bytes - extent.offset) {
            return bad("metadata extent [" + std::to_string(extent.offset) + ", +" +
                       std::to_string(extent.length) + ") of " + e.file + " is out of order or beyond its " +
                       std::to_string(e.bytes) + " bytes");
          }
          end = extent.offset + extent.length;
          e.metadata_extents.push_back(extent);
        }
      }
      m.shards.push_back(std::move(e));
    }
  } catch (const nlohmann::json::exception& e) {
    return bad(e.what());
  }
  for (size_t i = 0; i < m.shards.size(); ++i) {
    const std::string expected = ShardFileName(m.step, static_cast<int>(i), static_cast<int>(m.shards.size()));
    if (m.shards[i].file != expected) return bad("shard " + std::to_string(i) + " is '" + m.shards[i].file + "', not '" + expected + "'");
  }
  return m;
}

}  // namespace tact::checkpoint_internal
