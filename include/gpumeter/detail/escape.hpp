#pragma once
// Text that came from a record (names, params, messages, run ids), made inert for the output it
// lands in (docs/rules.md, "a record is evidence: strict reader"). One rule per output, used by
// every renderer and message: `gpumeter report`, `compare` and `merge`, the benchmark programs'
// tables, a record reader's errors, the device lock's notes, and a report of your own. The only
// sanitizer: nothing else escapes text (the Python plot calls inert_text through the module). A
// record adds no line, cell, block, emphasis, code span, link, HTML, script or formula to what
// gpumeter prints; every character it holds is shown.
#include <cstddef>
#include <string>
#include <string_view>

namespace gpumeter {

// For a terminal or a log: every character a terminal would obey, or a reader would not see, as
// an escape: C0 controls and DEL as \xNN (a newline too); C1 controls (U+0080 to U+009F), the
// bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A to
// U+202E, U+2066 to U+2069), and the characters that show nothing or end a line (U+00AD, U+180E,
// U+200B to U+200D, U+2028, U+2029, U+2060 to U+2065, U+206A to U+206F, U+FEFF, U+FFF9 to
// U+FFFB) as \uNNNN. Everything else is kept as it is.
std::string inert_text(std::string_view text);

// Where record text lands in markdown: inside a line (a table cell, the rest of a sentence), or
// at the start of a line's content (a list item's text), where a marker would open a block.
enum class MarkdownPlace { within_line, line_start };

// For markdown (CommonMark with GitHub's tables, strikethrough and math): controls as
// inert_text() shows them, then a backslash before every character that could act as markup:
//   \ | < [ & * ` ~ $   anywhere: escapes, cells, HTML, links and images, entities, emphasis,
//                       code, strikethrough, math;
//   _                   unless between two letters or digits (snake_case cannot emphasize, so
//                       names keep their look);
//   at a line's start, a block marker: # > - + (after spaces or not), and the '.' or ')' of an
//   ordered list ("1." or "1)").
// A markdown renderer shows each escaped character as the character itself.
std::string markdown_text(std::string_view text, MarkdownPlace place = MarkdownPlace::within_line);

// For CSV: controls as inert_text() shows them (so no cell spans lines), a leading = + - @ or
// one of their fullwidth or small forms (＝ ＋ － ＠ ﹦ ﹢ ﹣ ﹫) prefixed with ' (a spreadsheet
// that opens the file runs no formula from a record), and RFC 4180 quoting where the cell holds
// a comma or a quote.
std::string csv_cell(std::string_view text);

// For HTML and the SVG inside it, as element text or a quoted attribute's value: controls as
// inert_text() shows them, then & < > " ' as character references, so record text opens no tag,
// attribute, entity or script, and reads as it was written.
std::string html_text(std::string_view text);

// Where record text lands in a CI annotation (a GitHub Actions workflow command,
// "::error title=PROPERTY::MESSAGE"): the message, or a property's value.
enum class CiAnnotationPart { message, property };

// For a CI annotation: controls as inert_text() shows them, so the text holds no line end and
// starts no command of its own, then '%' as %25 (the runner decodes %0A into a line end) and, in
// a property, ':' and ',' as %3A and %2C (they end the property).
std::string ci_annotation_text(std::string_view text,
                               CiAnnotationPart part = CiAnnotationPart::message);

// For a message that quotes record text or a value: in double quotes, '"' and '\' escaped with a
// backslash, controls as inert_text() shows them, and text beyond `max_bytes` cut and marked
// "...", so a forged value stays one short harmless line: quoted_text("a\"b\n") is
// "\"a\\\"b\\x0a\"".
std::string quoted_text(std::string_view text, std::size_t max_bytes = std::string_view::npos);

// For text from a file or another process (a command line, a lock file's note): line and
// argument separators (newline, carriage return, tab, NUL) read as one space, trailing spaces
// dropped, other controls as inert_text() shows them, and text beyond `max_bytes` cut and marked
// "...".
std::string one_line(std::string_view text, std::size_t max_bytes = std::string_view::npos);

}  // namespace gpumeter
