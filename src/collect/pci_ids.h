#pragma once
// The PCI ID database (pci.ids), read where it lies. libpci's pci_load_name_list parses all of
// its ~40,000 entries into a hash before the first name: 13 ms and ~900 page faults, a fifth of
// a capture that names a dozen functions. This maps the file, notes in one pass where each
// vendor and class begins, and reads a name from its line when asked. The names are the ones
// pci_lookup_name gives with PCI_LOOKUP_NO_NUMBERS, cut to the same lengths; where libpci would
// refuse the whole file (a malformed line, an id listed twice) this skips the line, and the
// first entry of an id wins.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kdrift {

class PciIdDatabase {
 public:
  // pci.ids, or pci.ids.gz (inflated). Errors name the file; more than 64 MiB is one.
  static Result<PciIdDatabase> open(const std::string& path);
  // The database held in text (tests).
  static PciIdDatabase from_text(std::string text);

  // "" where the database does not know the id.
  std::string vendor(uint16_t vendor) const;
  std::string device(uint16_t vendor, uint16_t device) const;
  // The subclass's name; a class known without the subclass is "Class name [ccss]", as libpci
  // says it.
  std::string class_name(uint16_t class_and_subclass) const;

 private:
  struct Block {
    uint16_t id = 0;
    std::string_view name;
    size_t body = 0;  // where the lines nested in it begin
  };
  PciIdDatabase(std::shared_ptr<const void> storage, std::string_view text);
  // The first block of the id: an id listed twice is libpci's error, not a second entry.
  static const Block* find_block(const std::vector<Block>& blocks, uint16_t id);
  std::string_view nested_name(const std::vector<Block>& blocks, uint16_t block, uint16_t id,
                               size_t digits) const;

  std::shared_ptr<const void> storage_;  // the mapping or the inflated text
  std::string_view text_;
  std::vector<Block> vendors_;
  std::vector<Block> classes_;
};

}  // namespace kdrift
