#pragma once
// The one CSV primitive the loaders share: a line split at its commas. The traces Tidepool reads (openb, the load
// series, NAB, carbon intensity exports) quote nothing that holds a comma, so no quoting rules apply.
//
// Thread affinity: none; a pure function.

#include <string_view>
#include <vector>

namespace tidepool {

// The fields of `line`, views into it; an empty line is one empty field.
inline std::vector<std::string_view> splitCsvFields(std::string_view line)
{
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = line.find(',', start);
        fields.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (comma == std::string_view::npos)
            return fields;
        start = comma + 1;
    }
}

} // namespace tidepool
