#pragma once
// Text as a terminal shows it: how many columns a UTF-8 string takes, how to make a daemon-supplied string safe to
// print, and how to cut one to a width. Tables pad by these widths, so that Chinese, Japanese and Korean names and
// emoji (two columns each) and combining accents (none) keep the columns aligned.
//
// The widths follow the rules terminals use (`wcwidth`): East Asian Wide and Fullwidth characters and the emoji
// shown as pictures take two columns, combining marks and zero-width format characters none, the rest one. Emoji
// sequences joined with U+200D or a variation selector count as the sum of their parts, as `wcwidth` counts them.
//
// Thread affinity: none; pure functions. Self-contained (the standard library only), so that a unit test can build
// it without the rest of tidepoolctl.

#include <cstddef>
#include <string>
#include <string_view>

namespace tidepool::ctl {

// `text` with every character that could take over a terminal or reorder what it shows written visibly instead, as
// \uXXXX: C0 and C1 control characters (newline, escape, ...), DEL, the bidirectional overrides, embeddings,
// isolates and marks (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) and the line and paragraph separators
// (U+2028, U+2029). A byte that is not part of valid UTF-8 is written as \xNN. The result is printable text that
// reads in one direction; backslashes are kept as they are, so that the function is idempotent.
std::string terminalSafe(std::string_view text);

// The columns `text` takes on a terminal once made safe by `terminalSafe` (an escaped character counts as its
// escape's width).
std::size_t displayWidth(std::string_view text);

// `text` made safe by `terminalSafe` and, when it is wider than `columns`, cut to at most `columns` columns ending
// in "...": never inside a UTF-8 character or an escape, and with the combining marks of the last character kept.
std::string clipToWidth(std::string_view text, std::size_t columns);

// The columns one code point takes: 0, 1 or 2 (characters `terminalSafe` escapes are not judged here).
int codePointWidth(char32_t c);

} // namespace tidepool::ctl
