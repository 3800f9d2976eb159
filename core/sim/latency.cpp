#include "core/sim/latency.h"

#include <cmath>

namespace tidepool::sim {

double erlangC(std::size_t servers, double offeredLoad)
{
    if (servers == 0 || offeredLoad >= static_cast<double>(servers))
        return 1.0;
    if (offeredLoad <= 0)
        return 0.0;
    // Erlang B by its stable recursion, then C from B.
    double b = 1.0;
    for (std::size_t k = 1; k <= servers; ++k)
        b = offeredLoad * b / (static_cast<double>(k) + offeredLoad * b);
    const double rho = offeredLoad / static_cast<double>(servers);
    return b / (1.0 - rho * (1.0 - b));
}

double sojournCdf(const QueueMinute& minute, double serviceRatePerS, double t)
{
    const double mu = serviceRatePerS;
    const double a = static_cast<double>(minute.servers) * mu - minute.arrivalsPerS; // the wait's rate
    if (minute.servers == 0 || a <= 0)
        return 0.0;
    if (t <= 0)
        return 0.0;
    const double waits = erlangC(minute.servers, minute.arrivalsPerS / mu);
    const double serviceOnly = 1.0 - std::exp(-mu * t);
    // Exp(a) + Exp(mu): hypoexponential; the equal-rate case is Erlang-2.
    const double both = std::abs(a - mu) < 1e-9 * mu
        ? 1.0 - std::exp(-mu * t) * (1.0 + mu * t)
        : 1.0 - (mu * std::exp(-a * t) - a * std::exp(-mu * t)) / (mu - a);
    return (1.0 - waits) * serviceOnly + waits * both;
}

std::optional<double> sojournQuantile(
    const std::vector<QueueMinute>& minutes, double serviceRatePerS, double q, double capS)
{
    double total = 0;
    for (const QueueMinute& m : minutes)
        total += m.weight;
    if (total <= 0)
        return 0.0;
    const auto cdf = [&](double t) {
        double sum = 0;
        for (const QueueMinute& m : minutes)
            if (m.weight > 0)
                sum += m.weight * sojournCdf(m, serviceRatePerS, t);
        return sum / total;
    };
    if (cdf(capS) < q)
        return std::nullopt;
    double lo = 0, hi = capS;
    for (int i = 0; i < 60 && hi - lo > 1e-6; ++i) {
        const double mid = (lo + hi) / 2;
        (cdf(mid) < q ? lo : hi) = mid;
    }
    return hi;
}

} // namespace tidepool::sim
