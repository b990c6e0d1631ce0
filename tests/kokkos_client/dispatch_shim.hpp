/*
 * The dispatch shim of the kokkos_client test: what a program brings when it
 * runs Kokkos-style code on dualview, which has no kernels or policies of its
 * own (docs/CPP.md). Every policy runs serially on the host, on whatever
 * execution space it names (Serial, or the test device, whose memory is host
 * memory). Written for this test; no Kokkos source.
 *
 *   RangePolicy<Exec>(begin, end), parallel_for / parallel_reduce over it (or over a count)
 *   TeamPolicy<Exec>(league, team_size).set_scratch_size(level, PerTeam(bytes))
 *   member_type: league_rank, league_size, team_rank, team_size, team_scratch,
 *                thread_scratch, team_shmem, team_barrier
 *   TeamThreadRange(team, n) and parallel_for / parallel_scan over it
 *
 * Each team gets its own buffers of the requested sizes, and the member hands
 * out a Kokkos::ScratchMemorySpace over them (the part dualview provides).
 */
#ifndef KOKKOS_CLIENT_DISPATCH_SHIM_HPP
#define KOKKOS_CLIENT_DISPATCH_SHIM_HPP

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace Kokkos {

template <class Exec = DefaultExecutionSpace>
struct RangePolicy {
  using execution_space = Exec;
  RangePolicy(std::size_t b, std::size_t e) : begin(b), end(e) {}
  std::size_t begin, end;
};

/// Kokkos' PerTeam(bytes) / PerThread(bytes) size requests.
struct ScratchRequest {
  std::size_t per_team = 0, per_thread = 0;
};
inline ScratchRequest PerTeam(std::size_t b) { return {b, 0}; }
inline ScratchRequest PerThread(std::size_t b) { return {0, b}; }

template <class Exec>
class TeamMember {
 public:
  using execution_space = Exec;
  using scratch_memory_space = typename Exec::scratch_memory_space;
  TeamMember(int league_rank, int league_size, scratch_memory_space l0, scratch_memory_space l1)
      : league_rank_(league_rank), league_size_(league_size), team_(l0), team1_(l1) {}
  int league_rank() const { return league_rank_; }
  int league_size() const { return league_size_; }
  int team_rank() const { return 0; }
  int team_size() const { return 1; }  // one thread per team: the loops below run serially
  const scratch_memory_space& team_scratch(int level) const { return level == 1 ? team1_ : team_; }
  const scratch_memory_space& thread_scratch(int level) const { return team_scratch(level); }
  const scratch_memory_space& team_shmem() const { return team_; }
  void team_barrier() const {}

 private:
  int league_rank_, league_size_;
  scratch_memory_space team_, team1_;
};

template <class Exec = DefaultExecutionSpace>
class TeamPolicy {
 public:
  using execution_space = Exec;
  using member_type = TeamMember<Exec>;
  TeamPolicy(int league_size, int /*team_size: one thread runs each team*/) : league_(league_size) {}
  TeamPolicy& set_scratch_size(int level, ScratchRequest r) {
    bytes_[level == 1 ? 1 : 0] += r.per_team + r.per_thread;
    return *this;
  }
  TeamPolicy& set_scratch_size(int level, ScratchRequest team, ScratchRequest thread) {
    return set_scratch_size(level, ScratchRequest{team.per_team + thread.per_thread, 0});
  }
  int league_size() const { return league_; }
  std::size_t scratch_size(int level) const { return bytes_[level == 1 ? 1 : 0]; }

 private:
  int league_;
  std::size_t bytes_[2] = {0, 0};
};

template <class Member>
struct TeamThreadRangeBoundaries {
  const Member& team;
  std::size_t begin, end;
};
template <class Member>
TeamThreadRangeBoundaries<Member> TeamThreadRange(const Member& t, std::size_t n) {
  return {t, 0, n};
}
template <class Member>
TeamThreadRangeBoundaries<Member> TeamThreadRange(const Member& t, std::size_t b, std::size_t e) {
  return {t, b, e};
}

// ---- parallel_for ------------------------------------------------------------------

template <class Exec, class F>
void parallel_for(const std::string&, const RangePolicy<Exec>& p, const F& f) {
  for (std::size_t i = p.begin; i < p.end; ++i) f(i);
}
template <class Exec, class F>
void parallel_for(const RangePolicy<Exec>& p, const F& f) {
  parallel_for(std::string(), p, f);
}
template <class F>
void parallel_for(const std::string&, std::size_t n, const F& f) {
  for (std::size_t i = 0; i < n; ++i) f(i);
}
template <class F>
void parallel_for(std::size_t n, const F& f) {
  parallel_for(std::string(), n, f);
}

/// A team loop: each team in turn, with fresh scratch buffers of the requested sizes.
template <class Exec, class F>
void parallel_for(const std::string&, const TeamPolicy<Exec>& p, const F& f) {
  using S = typename Exec::scratch_memory_space;
  std::vector<std::max_align_t> l0(p.scratch_size(0) / sizeof(std::max_align_t) + 1);
  std::vector<std::max_align_t> l1(p.scratch_size(1) / sizeof(std::max_align_t) + 1);
  for (int t = 0; t < p.league_size(); ++t) {
    const typename TeamPolicy<Exec>::member_type m(t, p.league_size(), S(l0.data(), p.scratch_size(0)), S(l1.data(), p.scratch_size(1)));
    f(m);
  }
}
template <class Exec, class F>
void parallel_for(const TeamPolicy<Exec>& p, const F& f) {
  parallel_for(std::string(), p, f);
}

template <class Member, class F>
void parallel_for(const TeamThreadRangeBoundaries<Member>& r, const F& f) {
  for (std::size_t i = r.begin; i < r.end; ++i) f(i);
}

/// parallel_scan over a team range: f(i, partial, final), serially, twice (as Kokkos may).
template <class Member, class F>
void parallel_scan(const TeamThreadRangeBoundaries<Member>& r, const F& f) {
  for (int pass = 0; pass < 2; ++pass) {
    double partial = 0;  // this shim's scans accumulate doubles
    for (std::size_t i = r.begin; i < r.end; ++i) f(i, partial, pass == 1);
  }
}

// ---- parallel_reduce (a sum) ---------------------------------------------------------

template <class Exec, class F, class T>
void parallel_reduce(const std::string&, const RangePolicy<Exec>& p, const F& f, T& result) {
  T acc{};
  for (std::size_t i = p.begin; i < p.end; ++i) f(i, acc);
  result = acc;
}
template <class Exec, class F, class T>
void parallel_reduce(const RangePolicy<Exec>& p, const F& f, T& result) {
  parallel_reduce(std::string(), p, f, result);
}

}  // namespace Kokkos

#endif  // KOKKOS_CLIENT_DISPATCH_SHIM_HPP
