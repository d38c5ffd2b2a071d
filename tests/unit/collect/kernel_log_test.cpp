#include "collect/kernel_log.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(KernelLog, MessagesWithoutPrefixesOrDictionaries) {
  const auto messages = kernel_log_messages(
      "6,339,5140900,-;NET: Registered protocol family 10\n"
      " SUBSYSTEM=net\n"
      " DEVICE=n8\n"
      "6,340,5140901,c,caller=T1;iommu: Default domain type: Translated\n"
      "4,341,5140902,-;message; with a semicolon\n");
  EXPECT_EQ(messages, (std::vector<std::string>{"NET: Registered protocol family 10",
                                                "iommu: Default domain type: Translated",
                                                "message; with a semicolon"}));
}

TEST(KernelLog, LinesThatAreNoRecordsAreSkipped) {
  EXPECT_TRUE(kernel_log_messages("").empty());
  EXPECT_TRUE(kernel_log_messages("garbage;text\n\xff\xfe\n;\n1,2;x\na,b,c,d;y\n").empty());
}

}  // namespace
}  // namespace kdrift
