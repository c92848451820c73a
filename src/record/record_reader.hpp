#pragma once
// A parsed document read as a record (record_reader.cpp): every section decoded and every
// cross-check made. Internal to gpumeter_record.
#include <vector>

#include "gpumeter/record.hpp"
#include "record_fields.hpp"

namespace gpumeter::record_read {

// `streamed`: the rows read while the document was parsed (ResultsAsParsed): results[i] is
// streamed[i] where the document's element was read and dropped (it is null there).
// `journal_header`: a journal's header or setup line, whose rows follow in other lines (the
// journal's reader checks them against the shard).
Record read_document(const Reader& r, const Doc& doc, std::vector<Result>* streamed = nullptr,
                     bool journal_header = false);

}  // namespace gpumeter::record_read
