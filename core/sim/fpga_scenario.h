#pragma once
// Days of an FPGA fleet in simulated time, run through the real core (the control plane, the scheduler's default
// profile with its slot packing, the SQLite store and the history recorder), to test the source document's claim that
// time-slicing raises FPGA utilisation. Only the agents are simulated, as in `scenario.h`: a launch is running at
// once, a job exits when its run time has passed.
//
// The fleet: hosts of 2 FPGAs (x86, 32 cores) whose cards have 8 time-slice slots each. The work: four kernel types,
// each a business line of its own pool, whose jobs ask for a fixed number of slots and run for a log-uniform time.
// ../shared/data has no FPGA trace, so the jobs are synthetic; only the shape of their arrival rate over the days is
// real: each kernel type's Poisson rate follows one of the load series (see `fpgaKernels`). The job list is drawn
// once from `seed`, before the core starts, so every mode and fleet size sees the very same jobs.
//
// The modes:
// - `static`: the usual practice, a bitstream per card. Each card is dedicated to one kernel type (its agent reports
//   the card's model with that kernel's name, and the kernel's jobs ask for that model) and a job takes the whole
//   card: one job per card at a time;
// - `static-shared`: cards dedicated per kernel type as above, but a kernel's jobs share its cards by slots (a
//   bitstream with several compute units of one kernel);
// - `tidepool`: every card takes any kernel in any of its slots (a shell with partial reconfiguration), jobs ask for
//   their slots only, and the scheduler packs them;
// - `tidepool-power`: `tidepool`, and the evaluation loop (`api::Rebalancer`) runs every `evaluationPeriodMs` with
//   an operator who approves every proposal, as in `scenario`: idle hosts are powered down when nothing of the FPGA
//   work waiting or the hot tier's forecast FPGA peak needs them, and powered up again for waiting work or ahead of a
//   forecast peak. A host powered down is off once it holds nothing (its agent leaves: no heartbeats, its cards not
//   counted); a host powered up boots for `bootMs` (its cards counted as powered, taking no work) before its agent
//   joins again (`PowerSwitch`, as in `scenario`).
// A static mode splits the cards among the kernel types by what each needs at its peak in that mode's terms (jobs, or
// jobs ÷ jobs per card), at least one card each (`staticCardSplit`).
//
// The load is sized once, in static's terms, for `referenceCards`: each kernel type bought an equal share of them for
// its own peak with `headroom` (the evaluation's 1.2), i.e. at its peak a type keeps share ÷ headroom jobs running
// on average (Little's law). `load` scales that. Runs with another `cards` keep the same jobs on a fleet of that
// size: the question a sweep answers is how many cards each mode needs for the same work.
//
// Thread affinity: none; a run owns its io_context, control plane and store, on the calling thread.

#include "core/model/types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::sim {

enum class FpgaMode : std::uint8_t { Invalid = 0, Static = 1, StaticShared = 2, Tidepool = 3, TidepoolPower = 4 };

// One kernel type: what it stands for, which real series shapes its arrivals, the slots its design takes and its run
// times (log-uniform between the two).
struct FpgaKernel {
    std::string name;
    std::string series; // in words, for the report
    std::int32_t slots = 1;
    std::int64_t minRunMs = 0;
    std::int64_t maxRunMs = 0;
};

// The four kernel types, in the order the cards are split among them.
const std::vector<FpgaKernel>& fpgaKernels();

struct FpgaScenarioConfig {
    FpgaMode mode = FpgaMode::Tidepool;
    std::string dataDir; // ../shared/data
    std::string dbPath; // the SQLite file the core writes (replaced)
    std::int64_t days = 8; // simulated, warm-up included
    std::int64_t warmupDays = 1; // queues fill; not measured
    std::int64_t stepMs = 60'000;
    std::uint64_t seed = 42;
    int cards = 16; // the fleet in this run, 2 per host (an odd count leaves the last host one card)
    int referenceCards = 16; // the fleet the load is sized for, in static's terms (see above)
    double load = 1.0;
    double headroom = 1.2;
    std::int64_t evaluationPeriodMs = 5 * 60'000; // `tidepool-power`: the evaluation loop's period
    std::int64_t bootMs = 5 * 60'000; // `tidepool-power`: a host powered up again boots this long (as in `scenario`)
};

struct FpgaKernelResult {
    std::string name;
    std::int32_t slots = 0;
    int cards = 0; // dedicated to it (static modes); 0 in `tidepool`
    std::size_t submitted = 0;
    std::size_t started = 0;
    double waitMeanS = 0;
    double waitP95S = 0;
};

struct FpgaScenarioResult {
    std::string mode;
    int cards = 0;
    std::int64_t measuredHours = 0;
    // Time means over the measured days, of the cards powered at the time (every card, except in `tidepool-power`).
    double slotUtilisation = 0; // slots doing a kernel's work / powered slots
    double slotAllocation = 0; // slots held by jobs (a whole card per job in `static`) / powered slots
    double cardBusy = 0; // cards holding at least one job / powered cards
    double offeredSlotLoad = 0; // the measured days' jobs' slot-time / powered slot-time: the utilisation if all ran
    // Jobs submitted in the measured days. Wait = submit → start; a job still waiting at the end counts with the
    // wait it had so far (a lower bound), so an overloaded fleet cannot hide its queue.
    std::size_t jobsSubmitted = 0;
    std::size_t jobsStarted = 0;
    std::size_t jobsFinished = 0;
    std::size_t jobsWaitingAtEnd = 0;
    std::size_t jobsRefused = 0; // submissions the core turned away (over the whole run): none expected
    double waitMeanS = 0;
    double waitP50S = 0;
    double waitP95S = 0;
    double waitP99S = 0;
    double waitMaxS = 0;
    std::vector<FpgaKernelResult> kernels;
    // Checked every step, on every card: the most jobs one card held, steps in which a card held more slots than it
    // has, held kernels of two types, or held a kernel it is not dedicated to (static modes).
    std::size_t maxJobsPerCard = 0;
    std::size_t overbookedCardSteps = 0;
    std::size_t mixedCardSteps = 0;
    std::size_t foreignKernelSteps = 0;
    std::size_t invariantViolations = 0; // hourly checks of the cluster's books that failed
    // Power, over the measured days: card-hours powered (every card all the time except in `tidepool-power`), the
    // fewest cards powered at once, and the power proposals applied (over the whole run). `waitingWhileOffSteps`
    // counts steps in which a job had waited longer than one evaluation period while a host was powered down: the
    // loop left waiting work without the cards it could have had.
    double poweredCardHours = 0;
    int minPoweredCards = 0;
    std::size_t powerDowns = 0;
    std::size_t powerUps = 0;
    std::size_t waitingWhileOffSteps = 0;
    std::int64_t wallMs = 0;
};

std::string_view toString(FpgaMode mode);
FpgaMode parseFpgaMode(std::string_view text); // Invalid when not a mode's name
// The error names the setting at fault.
Expected<void> validate(const FpgaScenarioConfig& config);
// Cards per kernel type under a static mode (in `fpgaKernels` order): one each, then each next card to the type with
// the most peak need per card it has, the need in that mode's terms (see above); empty for `tidepool`.
std::vector<int> staticCardSplit(const FpgaScenarioConfig& config);
// A whole run; the error names the file or setting at fault.
Expected<FpgaScenarioResult> runFpgaScenario(const FpgaScenarioConfig& config);

} // namespace tidepool::sim
