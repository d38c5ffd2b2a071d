#include "trace/trace_session.h"

#include "util/units.h"

namespace kdrift {

Result<std::unique_ptr<TraceSession>> TraceSession::open(const std::vector<TracedDisk>& disks,
                                                         uint32_t tgid,
                                                         const TraceFeatures& features) {
  auto session = std::make_unique<TraceSession>();
  if (auto block = BlockTrace::load(disks, features)) {
    session->block_ = std::move(*block);
  } else {
    session->unavailable_["block"] = block.error().describe();
  }
  if (auto io = IoTrace::load(tgid, features)) {
    session->io_ = std::move(*io);
  } else {
    session->unavailable_["io"] = io.error().describe();
  }
  if (auto nvme = NvmeTrace::load(disks, features)) {
    session->nvme_ = std::move(*nvme);
  } else {
    session->unavailable_["nvme"] = nvme.error().describe();
  }
  if (!session->block_ && !session->io_ && !session->nvme_) {
    return make_error(ENOTSUP, session->unavailable_["block"].get<std::string>() + "; " +
                                   session->unavailable_["io"].get<std::string>());
  }
  return session;
}

Status TraceSession::attach() {
  if (block_) {
    if (auto attached = block_->attach(); !attached) return attached;
  }
  if (io_) {
    if (auto attached = io_->attach(); !attached) {
      if (block_) (void)block_->detach(std::nullopt);
      return attached;
    }
  }
  if (nvme_) {
    if (auto attached = nvme_->attach(); !attached) {
      if (block_) (void)block_->detach(std::nullopt);
      if (io_) (void)io_->detach();
      return attached;
    }
  }
  return ok_status();
}

Json TraceSession::detach(std::optional<uint64_t> all_completed_before_ns) {
  Json out = {{"programs", Json::object()}};
  if (block_) {
    Json block = block_->detach(all_completed_before_ns);
    out["block"] = std::move(block["block"]);
    out["programs"].update(block["programs"]);
  }
  if (io_) {
    Json io = io_->detach();
    out["programs"].update(io["programs"]);
    if (io.contains("io_uring")) out["io_uring"] = std::move(io["io_uring"]);
    if (io.contains("iommu")) out["iommu"] = std::move(io["iommu"]);
  }
  if (nvme_) {
    Json nvme = nvme_->detach();
    out["programs"].update(nvme["programs"]);
    out["nvme"] = std::move(nvme["nvme"]);
  }
  if (out.contains("iommu") && out.contains("block")) {
    const Json& block = out["block"];
    const uint64_t ios = block.contains("requests_completed")
                             ? block["requests_completed"].get<uint64_t>()
                             : block["bios_queued"].get<uint64_t>();
    out["iommu"]["maps_per_io"] = ratio(out["iommu"]["maps"].get<uint64_t>(), ios);
  }
  if (!unavailable_.empty()) out["unavailable"] = unavailable_;
  return out;
}

}  // namespace kdrift
