#pragma once
// Text from a document made inert in markdown: nothing that leaves its line, table cell, code
// span or code block, or that becomes HTML, a link or emphasis. Every markdown kdrift writes
// takes its values through these.

#include <string>
#include <string_view>

namespace kdrift {

// Inline text: what could start emphasis, a link, a code span or strikethrough, end a table
// cell or escape the next character is backslash-escaped; HTML's three characters are entities.
std::string markdown_text(std::string_view value);

// A code span: nothing is escaped inside one, so a backtick (which would end it) becomes a
// quote; entities show as written there, the price of markdown whose raw text holds no markup.
std::string markdown_code(std::string_view value);

// A fenced code block of lines: each line made terminal-safe, the fence longer than any run of
// backticks inside, so that no line can close it.
std::string markdown_code_block(std::string_view text, std::string_view info = "");

}  // namespace kdrift
