#include "util/tarball.h"

#include <gtest/gtest.h>

#include "util/archive_tree.h"

namespace kdrift {
namespace {

TEST(Tarball, WritesFilesDirectoriesSymlinksAsTheyAreReadBack) {
  auto bytes = make_tar_gz({{"sys", TarMember::Type::kDirectory, {}},
                            {"sys/a", TarMember::Type::kFile, std::string("x\0y", 3)},
                            {"sys/b", TarMember::Type::kSymlink, "a"}});
  ASSERT_TRUE(bytes.ok());
  auto tree = ArchiveTree::read_bytes(*bytes);
  ASSERT_TRUE(tree.ok()) << tree.error().describe();
  ASSERT_NE(tree->find("/sys/a"), nullptr);
  EXPECT_EQ(tree->find("/sys/a")->data, std::string("x\0y", 3));
  EXPECT_EQ(tree->find("/sys/b")->type, ArchiveTree::Node::Type::kSymlink);
  EXPECT_EQ(tree->find("/sys/b")->data, "a");
  EXPECT_EQ(tree->find("/sys")->type, ArchiveTree::Node::Type::kDirectory);
}

}  // namespace
}  // namespace kdrift
