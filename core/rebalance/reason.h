#pragma once
// Why a proposal was made, as clauses that a console can word in its own language. A clause is a code and its
// arguments in order; an argument is one of
//
//   "web"                            a name, shown as it is
//   12                               a count
//   {"n": 2000, "unit": "gpu"}       an amount of a resource: "cpu" (millicores), "memory" (MiB), "gpu"
//                                    (milli-devices), "npu" (NPU cores), "fpga" (FPGA slots)
//   {"ms": 1764921600000}            a time (Unix epoch ms)
//   {"term": "memory"}               a word from `reasonTerms()`
//
// `Proposal::reason` is the English the clauses make (`english`: each clause's form with its arguments, clauses
// joined by "; "), so the two never disagree. The forms are marked for Qt Linguist (context "Reason") where they are
// defined; the console translates them and shows a reason whose clauses it cannot read (an older daemon's, which
// has none, or a form it does not know) by its English.
//
// Thread affinity: none; plain values and constant tables.

#include "core/model/types.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::rebalance {

struct Clause {
    std::string code;
    nlohmann::json args = nlohmann::json::array();
    bool operator==(const Clause&) const = default;
};
using Why = std::vector<Clause>;

// A clause's English with %1, %2, ... for its arguments, or a term's English.
struct ReasonForm {
    std::string_view code;
    std::string_view english;
};
std::span<const ReasonForm> reasonForms();
std::span<const ReasonForm> reasonTerms();
// The form of `code`, the term (or unit: "unit-gpu") of `code`; nullptr when there is none.
const ReasonForm* reasonForm(std::string_view code);
const ReasonForm* reasonTerm(std::string_view code);

// Arguments.
nlohmann::json amountArg(double value, std::string_view unit); // rounded down to a whole unit, as figures are shown
nlohmann::json timeArg(std::int64_t unixMs);
nlohmann::json termArg(std::string_view term);

// `code` with `args`; the code must be one of `reasonForms()` (checked by the tests, not at run time).
Clause clause(std::string_view code, nlohmann::json::array_t args = {});

// `form` with each %1...%9 replaced by its argument in one pass (an argument that holds "%2", a hostile name, is kept
// as it is); a placeholder with no argument is left as it is. Forms, translated ones included, may order their
// placeholders as their language wants. UTF-8 in, UTF-8 out.
std::string fillForm(std::string_view form, const std::vector<std::string>& args);

// "09:30 UTC".
std::string clockTime(std::int64_t unixMs);
// One argument in English: "2000 milli-devices", "09:30 UTC", "memory", "web", "12".
std::string englishArg(const nlohmann::json& arg);
std::string english(const Why& why);

// The clauses in another language: `translate` gives the text, in that language, of a form, a term, a unit
// ("%1 mCPU") or the joiners "; " and " or ", from its English (the English itself where it has none); numbers and
// names are as `englishArg` writes them, times in UTC. nullopt when a clause's code is no known form or an argument is
// none of the kinds above (a newer daemon's): the caller shows the English then.
using Translate = std::function<std::string(std::string_view english)>;
std::optional<std::string> worded(const Why& why, const Translate& translate);

// [{"code": ..., "args": [...]}, ...]
nlohmann::json toJson(const Why& why);
// The error names the clause (as `field`, `field[i]`) and what is wrong with it (an unknown code is not an error: a
// newer daemon may have it).
Expected<Why> whyFromJson(const nlohmann::json& json, std::string_view field = "why");

} // namespace tidepool::rebalance
