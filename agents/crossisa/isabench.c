/* isabench: the micro-benchmark the agent runs natively and through qemu-user to measure the translation slowdown
 * of each ISA pair (see slowdown.h). A deterministic CPU kernel that mixes the three kinds of work translators treat
 * differently: integer hashing (straight-line ALU), sorting (data-dependent branches, memory) and a dot product
 * (floating point). It times only its kernel, so qemu's start-up is not counted, and prints one JSON line:
 *   {"isa":"aarch64","ns":412345678,"wallNs":420000000,"rounds":250,"checksum":"9b1c0e5a7d3f2468"}
 * `ns` is the process's CPU time (under qemu, qemu's: translating included), which other load on the node disturbs far
 * less than the wall-clock time `wallNs`, printed for reference.
 * The checksum is the same on every ISA (no FMA contraction: build with -ffp-contract=off), so a translated run can
 * be checked to have computed what the native one did.
 *
 * Usage: isabench [rounds]   (default 250, about 0.4 s on a 2020s x86_64 core)
 * Plain C11 and libc only: it is built with -static by each ISA's cross compiler. */

#define _POSIX_C_SOURCE 199309L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__)
#define ISABENCH_ISA "x86_64"
#elif defined(__aarch64__)
#define ISABENCH_ISA "aarch64"
#elif defined(__riscv) && __riscv_xlen == 64
#define ISABENCH_ISA "riscv64"
#else
#define ISABENCH_ISA "unknown"
#endif

enum { kWords = 1 << 14, kHashPasses = 8, kDefaultRounds = 250, kMaxRounds = 100000 };

static uint64_t g_state;

static uint64_t nextRandom(void)
{
    /* xorshift64: the same sequence on every ISA. */
    g_state ^= g_state << 13;
    g_state ^= g_state >> 7;
    g_state ^= g_state << 17;
    return g_state;
}

static uint64_t hashWords(const uint32_t* words, size_t count)
{
    /* FNV-1a over the bytes, with a rotate to keep the multiplier busy. */
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < count; ++i) {
        uint32_t w = words[i];
        for (int b = 0; b < 4; ++b) {
            h ^= (w >> (8 * b)) & 0xffu;
            h *= 1099511628211ull;
        }
        h = (h << 5) | (h >> 59);
    }
    return h;
}

static void sortWords(uint32_t* a, long lo, long hi)
{
    /* Quicksort with an insertion sort for short runs: the branches depend on the data. */
    while (hi - lo > 16) {
        const uint32_t pivot = a[lo + (hi - lo) / 2];
        long i = lo;
        long j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                ++i;
            while (a[j] > pivot)
                --j;
            if (i <= j) {
                const uint32_t t = a[i];
                a[i] = a[j];
                a[j] = t;
                ++i;
                --j;
            }
        }
        if (j - lo < hi - i) {
            sortWords(a, lo, j);
            lo = i;
        } else {
            sortWords(a, i, hi);
            hi = j;
        }
    }
    for (long k = lo + 1; k <= hi; ++k) {
        const uint32_t v = a[k];
        long m = k - 1;
        while (m >= lo && a[m] > v) {
            a[m + 1] = a[m];
            --m;
        }
        a[m + 1] = v;
    }
}

static double dotProduct(const double* x, const double* y, size_t count)
{
    double sum = 0.0;
    for (size_t i = 0; i < count; ++i)
        sum += x[i] * y[i];
    return sum;
}

static int64_t nowNs(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char** argv)
{
    long rounds = kDefaultRounds;
    if (argc > 1) {
        char* end = NULL;
        rounds = strtol(argv[1], &end, 10);
        if (end == argv[1] || *end != '\0' || rounds < 1 || rounds > kMaxRounds) {
            fprintf(stderr, "isabench: rounds must be an integer from 1 to %d, not \"%s\"\n", kMaxRounds, argv[1]);
            return 2;
        }
    }

    static uint32_t words[kWords];
    static double x[kWords];
    static double y[kWords];

    const int64_t startCpu = nowNs(CLOCK_PROCESS_CPUTIME_ID);
    const int64_t startWall = nowNs(CLOCK_MONOTONIC);
    uint64_t checksum = 0;
    for (long r = 0; r < rounds; ++r) {
        g_state = 0x9e3779b97f4a7c15ull + (uint64_t)r;
        for (size_t i = 0; i < kWords; ++i) {
            const uint64_t v = nextRandom();
            words[i] = (uint32_t)v;
            x[i] = (double)(v >> 40) / 16777216.0; /* exact: 24-bit values */
            y[i] = (double)((v >> 8) & 0xffffffu) / 16777216.0 - 0.5;
        }
        for (int p = 0; p < kHashPasses; ++p)
            checksum ^= hashWords(words, kWords) + (uint64_t)p;
        sortWords(words, 0, kWords - 1);
        checksum = checksum * 31 + words[kWords / 2];
        const double dot = dotProduct(x, y, kWords);
        checksum = checksum * 31 + (uint64_t)(int64_t)(dot * 1048576.0);
    }
    const int64_t cpu = nowNs(CLOCK_PROCESS_CPUTIME_ID) - startCpu;
    const int64_t wall = nowNs(CLOCK_MONOTONIC) - startWall;

    printf("{\"isa\":\"%s\",\"ns\":%lld,\"wallNs\":%lld,\"rounds\":%ld,\"checksum\":\"%016llx\"}\n", ISABENCH_ISA,
        (long long)cpu, (long long)wall, rounds, (unsigned long long)checksum);
    return 0;
}
