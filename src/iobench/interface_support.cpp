#include "iobench/interface_support.h"

#include <libaio.h>
#include <liburing.h>

#include <cstdio>

namespace kdrift {

Result<std::string> io_uring_support() {
  io_uring ring{};
  io_uring_params params{};
  const int result = io_uring_queue_init_params(2, &ring, &params);
  if (result < 0) {
    return make_error(-result,
                      "io_uring_setup (kernel.io_uring_disabled, seccomp or an old kernel)");
  }
  int supported = 0;
  int known = 0;
  if (io_uring_probe* probe = io_uring_get_probe_ring(&ring)) {
    known = probe->last_op + 1;
    for (int op = 0; op < known; ++op) {
      if ((probe->ops[op].flags & IO_URING_OP_SUPPORTED) != 0) ++supported;
    }
    io_uring_free_probe(probe);
  }
  io_uring_queue_exit(&ring);
  char text[96];
  (void)std::snprintf(text, sizeof text, "features 0x%x, %d of %d opcodes", params.features,
                      supported, known);
  return std::string(text);
}

Result<std::string> libaio_support() {
  io_context_t context{};
  const int result = io_setup(1, &context);
  if (result < 0) return make_error(-result, "io_setup (fs.aio-max-nr may be exhausted)");
  (void)io_destroy(context);
  return std::string("io_setup works");
}

}  // namespace kdrift
