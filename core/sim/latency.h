#pragma once
// Response time of replicated request serving, as an M/M/c queue: Poisson arrivals at `λ` requests/s, `c` replicas
// each serving one request at a time with exponential service times of mean `1/μ`. The sojourn time T = W + S has
// P(W > 0) = Erlang C, W | W > 0 ~ Exp(cμ − λ) and S ~ Exp(μ), so its distribution is known in closed form. The
// scenario simulator uses it per simulated minute for the hot tier's inference replicas; exponential service is the
// pessimistic textbook choice (a coefficient of variation of 1).
//
// Thread affinity: none; pure functions.

#include <cstddef>
#include <optional>
#include <vector>

namespace tidepool::sim {

struct QueueMinute {
    double arrivalsPerS = 0; // λ
    std::size_t servers = 0; // c, replicas serving
    double weight = 0; // how many requests this minute stands for (its share of the mixture)
};

// P(W > 0) for an M/M/c queue with offered load a = λ/μ; 1 when the queue is unstable (a ≥ c).
double erlangC(std::size_t servers, double offeredLoad);
// P(T ≤ t); 0 for an unstable queue (its backlog grows without bound).
double sojournCdf(const QueueMinute& minute, double serviceRatePerS, double t);
// The `q` quantile of the response time over a mixture of minutes weighted by their requests, in seconds;
// nullopt when it lies beyond `capS` (unstable minutes weigh more than 1 − q).
std::optional<double> sojournQuantile(
    const std::vector<QueueMinute>& minutes, double serviceRatePerS, double q, double capS = 60.0);

} // namespace tidepool::sim
