#pragma once
// The record's JSON parse, bounded (record_parse.cpp): a record, a journal's line or a ceilings
// file parsed into a document no larger, deeper or more ambiguous than a record may be. Internal
// to gpumeter_record.
#include <string>
#include <string_view>

#include "record_json.hpp"

namespace gpumeter::record_read {

// Told of each element of the top level's `results` array as it closes, while the document is
// parsed (ResultsAsParsed, record_reader.cpp): true when it read the element, which the parse then
// drops from the document.
class ResultTaker {
 public:
  virtual bool take(const record_json::Doc& root, const record_json::Doc& element) = 0;

 protected:
  ~ResultTaker() = default;
};

// The document of `text`, or InvalidRecord naming `path`: not JSON, or beyond a record's limits
// (record_json.hpp). `results`, where given, is told of each row as it is parsed.
record_json::Doc parse_strict(std::string_view text, const std::string& path,
                              ResultTaker* results = nullptr);

}  // namespace gpumeter::record_read
