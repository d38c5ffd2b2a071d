#include "trace/held_requests.h"

namespace kdrift {

HeldRequests settle_held_requests(const std::vector<kdrift_request_start>& held,
                                  std::optional<uint64_t> all_completed_before_ns) {
  HeldRequests out;
  for (const auto& request : held) {
    if (request.issued_ns == 0) continue;
    const bool completed = all_completed_before_ns && request.requeued == 0 &&
                           request.issued_ns < *all_completed_before_ns &&
                           request.direction < KDRIFT_DIRS;
    if (completed) {
      ++out.completed[request.direction];
      out.completed_bytes[request.direction] += request.issued_bytes;
    } else {
      ++out.in_flight;
    }
  }
  return out;
}

}  // namespace kdrift
