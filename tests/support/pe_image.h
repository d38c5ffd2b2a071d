#pragma once
// Kernel images as kexec_file_load sees them: an EFI-stub bzImage is a PE/COFF file, and a
// signed one has a non-empty certificate table (PE data directory 4), which sbsign fills.

#include <cstdint>
#include <string>

namespace kdrift::testing {

// A minimal PE32+ image, or PE32 when plus is false, whose certificate table holds
// certificate_bytes (0: unsigned).
inline std::string pe_kernel_image(uint32_t certificate_bytes, bool plus = true) {
  std::string image(4096, '\0');
  const auto put = [&image](size_t at, uint32_t value, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i)
      image[at + i] = static_cast<char>((value >> (8 * i)) & 0xffU);
  };
  image[0] = 'M';
  image[1] = 'Z';
  const size_t pe = 0x80;
  put(0x3c, pe, 4);
  image.replace(pe, 4, std::string("PE\0\0", 4));
  const size_t optional = pe + 24;
  put(optional, plus ? 0x20b : 0x10b, 2);
  const size_t directories = optional + (plus ? 112 : 96);
  put(directories - 4, 16, 4);  // NumberOfRvaAndSizes
  put(directories + 8 * 4, certificate_bytes != 0 ? 0x800 : 0, 4);
  put(directories + 8 * 4 + 4, certificate_bytes, 4);
  return image;
}

}  // namespace kdrift::testing
