#pragma once
// Display text for the core's names ("x86_64", "ready", "hot", "pending", "power-down"...), translated. Unknown
// names are shown as they are, so a newer core never shows blanks.
//
// Thread affinity: GUI thread (translators).

#include <QString>

#include <cstdint>
#include <string>

namespace tidepool::ui {

struct WorkloadRow;

QString isaLabel(const std::string& isa);
QString tierLabel(const std::string& tier);
QString nodeStateLabel(const std::string& state);
QString phaseLabel(const std::string& phase);
QString acceleratorLabel(const std::string& kind);
QString proposalKindLabel(const std::string& kind);
QString proposalStateLabel(const std::string& state);
QString riskLabel(const std::string& risk);

// One step of a proposal's plan, from its action's JSON (`rebalance::toJson(Action)`, as `ProposalRow::plan` holds
// it), as a sentence: "Set pool web's CPU quota from 4.0 cores to 5.5 cores". An action this console does not know,
// or text that is not an action, is shown as it is.
QString planStepText(const std::string& actionJson);

// A proposal's reason in this console's language, from its clauses (`rebalance::Why` as JSON, as `ProposalRow::why`
// holds it): each clause's form translated in context "Reason" (the core marks the forms), amounts of CPU and memory
// in cores and GiB, times local. Where the clauses cannot all be read (none: a proposal from before them; a form this
// build does not know; arguments that do not fit), `english` as it is.
// A proposal's service-level risk likewise (`ProposalRow::sloRiskWhy`).
QString reasonText(const std::string& whyJson, const std::string& english);

// "37.5 %"; "—" for a negative value (not known).
QString percentText(double share);
// "12.0 cores" from millicores; "unlimited" for -1.
QString coresText(std::int64_t millis);
// "64.0 GiB" from MiB; "unlimited" for -1.
QString memoryText(std::int64_t mebibytes);
// The core's clock (Unix epoch ms) as local date and time.
QString timeText(std::int64_t unixMs);

// A workload's own figures since its launch, as right-sizing sizes it (`WorkloadRow::cpuP90Millis` and its peaks):
// "Measured over 7 hours: CPU 0.4 cores at the 90th percentile, 1.2 cores at most; memory 0.7 GiB at most"; empty
// where none are measured. `nowMs` is the core's clock.
QString measuredUseText(const WorkloadRow& w, std::int64_t nowMs);

} // namespace tidepool::ui
