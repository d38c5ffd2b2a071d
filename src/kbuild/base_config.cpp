#include "kbuild/base_config.h"

#include "kbuild/kconfig.h"

namespace kdrift {

Result<BaseConfig> read_base_config(const std::string& path) {
  auto config = Kconfig::read(path);
  if (!config && config.error().code == 0) {
    return content_error(path + " is not a kernel config: " + config.error().context);
  }
  if (!config) return config.error();
  BaseConfig base;
  for (const KconfigValue& entry : config->entries()) {
    base.builtin += static_cast<int>(entry.value == "y");
    base.modules += static_cast<int>(entry.value == "m");
  }
  base.debug_info = config->value("DEBUG_INFO") == "y";
  base.path = path;
  base.text = config->text();
  return base;
}

}  // namespace kdrift
