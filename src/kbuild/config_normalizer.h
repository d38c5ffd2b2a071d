#pragma once
// What kconfig makes of a config: `make olddefconfig` fills in every symbol the file leaves out
// with its default, drops what its dependencies hide, forces what is selected and settles each
// choice on one member. The config bisect (config_plan.h) asks this of every candidate it
// builds, so that a candidate is the config the kernel build will really use.

#include <string>
#include <vector>

#include "kbuild/kconfig.h"
#include "util/result.h"

namespace kdrift {

class ConfigNormalizer {
 public:
  virtual ~ConfigNormalizer() = default;
  virtual Result<Kconfig> normalize(const Kconfig& config) = 0;
};

// The real one: writes SCRATCH/.config, runs `make -C SOURCE O=SCRATCH [ARGUMENTS] olddefconfig`
// (argv, no shell; ~1-3 s on a kernel tree) and reads SCRATCH/.config back. make's failure is an
// error with its exit status and the end of its output.
class MakeNormalizer : public ConfigNormalizer {
 public:
  // make_arguments: e.g. ARCH=x86_64 or LLVM=1, as the candidates will be built.
  MakeNormalizer(std::string source_tree, std::string scratch_dir,
                 std::vector<std::string> make_arguments = {});
  Result<Kconfig> normalize(const Kconfig& config) override;

 private:
  std::string source_tree_;
  std::string scratch_dir_;
  std::vector<std::string> make_arguments_;
};

}  // namespace kdrift
