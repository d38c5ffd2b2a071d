#include "report/shell_completion.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

CommandSpec program() {
  OptionSpec format;
  format.names = {"--format"};
  format.value_name = "TEXT";
  format.choices = {"text", "json"};
  format.completion = ValueCompletion::kChoices;
  OptionSpec profile;
  profile.names = {"--profile"};
  profile.completion = ValueCompletion::kProfile;
  OptionSpec quiet;
  quiet.names = {"-q", "--quiet"};
  quiet.description = "Say less: it's quiet";
  OptionSpec snapshots;
  snapshots.value_name = "A";
  snapshots.completion = ValueCompletion::kSnapshot;
  CommandSpec diff{{"diff"}, "Compare", {format, quiet, snapshots}, {}, false};
  CommandSpec start{{"bisect", "start"}, "Start", {profile}, {}, false};
  CommandSpec bisect{{"bisect"}, "Bisect", {}, {start}, true};
  CommandSpec hostile{{"x'; rm -rf /"}, "evil", {}, {}, false};
  return CommandSpec{{}, "kdrift", {}, {diff, bisect, hostile}, true};
}

const CompletionWords kWords{{"quick", "ydb-randwrite"}, {"iommu.strict", "bad word"}};

TEST(ShellCompletion, BashListsSubcommandsOptionsAndTheirValues) {
  const std::string bash = render_bash_completion(program(), kWords);
  EXPECT_NE(bash.find("    \"\") printf '%s\\n' diff bisect ;;\n"), std::string::npos) << bash;
  EXPECT_NE(bash.find("    \"bisect\") printf '%s\\n' start ;;\n"), std::string::npos) << bash;
  EXPECT_NE(bash.find("    \"diff\") printf '%s\\n' --help --format -q --quiet ;;\n"),
            std::string::npos)
      << bash;
  EXPECT_NE(bash.find("    \"diff --format\") echo choices text json ;;\n"), std::string::npos)
      << bash;
  EXPECT_NE(bash.find("    \"bisect start --profile\") echo profile ;;\n"), std::string::npos)
      << bash;
  EXPECT_NE(bash.find("    \"diff\") echo snapshot ;;\n"), std::string::npos) << bash;
  EXPECT_NE(bash.find("compgen -W \"quick ydb-randwrite\""), std::string::npos) << bash;
  // Flags take no value, so the walk does not skip the word after them.
  EXPECT_EQ(bash.find("\"diff --quiet\")"), std::string::npos) << bash;
  EXPECT_NE(bash.find("complete -F _kdrift kdrift\n"), std::string::npos);
}

TEST(ShellCompletion, NoWordAShellWouldReadAsCodeReachesTheScripts) {
  for (const std::string& script :
       {render_bash_completion(program(), kWords), render_zsh_completion(program(), kWords)}) {
    EXPECT_EQ(script.find("rm -rf"), std::string::npos) << script;
    EXPECT_EQ(script.find("bad word"), std::string::npos) << script;
    EXPECT_NE(script.find("iommu.strict"), std::string::npos) << script;
  }
}

TEST(ShellCompletion, ZshDescribesEachWordWithItsQuotesEscaped) {
  const std::string zsh = render_zsh_completion(program(), kWords);
  EXPECT_EQ(zsh.rfind("#compdef kdrift\n", 0), 0U) << zsh;
  EXPECT_NE(zsh.find("'diff:Compare' 'bisect:Bisect'"), std::string::npos) << zsh;
  EXPECT_NE(zsh.find("'--quiet:Say less\\: it'\\''s quiet'"), std::string::npos) << zsh;
  EXPECT_NE(zsh.find("compadd -- quick ydb-randwrite"), std::string::npos) << zsh;
}

}  // namespace
}  // namespace kdrift
