/*
 * The core-dispatch shim of tests/kokkos_programs: the part of Kokkos core
 * that dualview does not provide (docs/CPP.md), so that third-party Kokkos
 * programs compile UNCHANGED against dualview's Kokkos-named headers. It is
 * force-included (`-include shim/dispatch.hpp`) before the program's own
 * code, with shim/ on the include path for its Kokkos_Sort.hpp.
 * Extended from tests/kokkos_client/dispatch_shim.hpp; written for these
 * tests, no Kokkos source. Everything runs serially on the host, whatever
 * execution space a policy names (the test device's memory is host memory),
 * so every space has concurrency() == 1 and each team has one thread.
 *
 *   RangePolicy<Args...>(b, e)        Args: an execution space and/or a work tag (IndexType, Schedule: ignored)
 *   TeamPolicy<Args...>(league, team[, vector])  same Args; team_size is 1
 *     .set_scratch_size(level, PerTeam(b)[, PerThread(b)]); the functor's
 *     team_shmem_size(team_size) is added to level 0, as in Kokkos
 *   member_type: league_rank/size, team_rank/size, team_shmem, team_scratch,
 *                thread_scratch, team_barrier
 *   TeamThreadRange / ThreadVectorRange / TeamVectorRange, single(PerTeam/PerThread)
 *   parallel_for / parallel_reduce (sum into a scalar, a struct with +=, or
 *   the functor's value_type with init/join) / parallel_scan
 *   atomic_fetch_add / _sub / _max / _min, atomic_add / sub / increment /
 *   decrement, atomic_exchange, atomic_compare_exchange (plain, serial)
 *   Kokkos::AUTO
 */
#ifndef DUALVIEW_KOKKOS_PROGRAMS_DISPATCH_HPP
#define DUALVIEW_KOKKOS_PROGRAMS_DISPATCH_HPP

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace Kokkos {

namespace shim {
/// The execution space and the work tag among a policy's template arguments.
template <class Exec, class Tag, class... Args>
struct policy_args {
  using exec = Exec;
  using tag = Tag;
};
template <class Exec, class Tag, class A, class... Rest>
struct policy_args<Exec, Tag, A, Rest...>
    : std::conditional_t<is_execution_space<A>::value, policy_args<A, Tag, Rest...>,
                         std::conditional_t<is_index_type<A>::value || is_schedule_type<A>::value, policy_args<Exec, Tag, Rest...>,
                                            policy_args<Exec, A, Rest...>>> {};

/// f(i...) or f(Tag(), i...).
template <class Tag, class F, class... A>
inline void call(const F& f, A&&... a) {
  if constexpr (std::is_void_v<Tag>) f(std::forward<A>(a)...);
  else f(Tag(), std::forward<A>(a)...);
}

template <class F, class = void>
struct has_shmem_size : std::false_type {};
template <class F>
struct has_shmem_size<F, std::void_t<decltype(std::declval<const F&>().team_shmem_size(1))>> : std::true_type {};
template <class F, class = void>
struct has_value_type : std::false_type {};
template <class F>
struct has_value_type<F, std::void_t<typename F::value_type>> : std::true_type {};
template <class F, class T, class = void>
struct has_init : std::false_type {};
template <class F, class T>
struct has_init<F, T, std::void_t<decltype(std::declval<const F&>().init(std::declval<T&>()))>> : std::true_type {};
template <class F, class T, class = void>
struct has_final : std::false_type {};
template <class F, class T>
struct has_final<F, T, std::void_t<decltype(std::declval<const F&>().final(std::declval<T&>()))>> : std::true_type {};
}  // namespace shim

/// Kokkos::AUTO: "let the back end choose" (here: one).
struct AUTO_t {
  constexpr operator int() const { return 1; }
};
inline constexpr AUTO_t AUTO{};

template <class... Args>
struct RangePolicy {
  using traits = shim::policy_args<DefaultExecutionSpace, void, Args...>;
  using execution_space = typename traits::exec;
  using work_tag = typename traits::tag;
  using index_type = std::int64_t;
  using member_type = index_type;
  RangePolicy(std::int64_t b, std::int64_t e) : begin_(b), end_(e) {}
  RangePolicy(const execution_space&, std::int64_t b, std::int64_t e) : begin_(b), end_(e) {}
  std::int64_t begin() const { return begin_; }
  std::int64_t end() const { return end_; }

 private:
  std::int64_t begin_, end_;
};

/// Kokkos' PerTeam(bytes) / PerThread(bytes) requests (single() takes them too).
struct ScratchRequest {
  std::size_t per_team = 0, per_thread = 0;
};
struct PerTeamTag;
struct PerThreadTag;
template <class Member, class Which>
struct SingleOf {
  const Member& team;
};
inline ScratchRequest PerTeam(std::size_t b) { return {b, 0}; }
inline ScratchRequest PerThread(std::size_t b) { return {0, b}; }
template <class Member, class = std::enable_if_t<!std::is_integral_v<Member>>>
SingleOf<Member, PerTeamTag> PerTeam(const Member& t) {
  return {t};
}
template <class Member, class = std::enable_if_t<!std::is_integral_v<Member>>>
SingleOf<Member, PerThreadTag> PerThread(const Member& t) {
  return {t};
}
template <class Member, class W, class F>
void single(const SingleOf<Member, W>&, const F& f) {
  f();
}
template <class Member, class W, class F, class T>
void single(const SingleOf<Member, W>&, const F& f, T& v) {
  f(v);
}

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
  template <class T>
  void team_broadcast(T&, int) const {}
  template <class T>
  T team_reduce(const T& v) const {
    return v;
  }

 private:
  int league_rank_, league_size_;
  scratch_memory_space team_, team1_;
};

template <class... Args>
class TeamPolicy {
 public:
  using traits = shim::policy_args<DefaultExecutionSpace, void, Args...>;
  using execution_space = typename traits::exec;
  using work_tag = typename traits::tag;
  using member_type = TeamMember<execution_space>;
  TeamPolicy(int league_size, int /*team_size: one thread runs each team*/, int /*vector_length*/ = 1)
      : league_(league_size) {}
  TeamPolicy(const execution_space&, int league_size, int team_size, int vector_length = 1)
      : TeamPolicy(league_size, team_size, vector_length) {}
  TeamPolicy& set_scratch_size(int level, ScratchRequest r) {
    bytes_[level == 1 ? 1 : 0] += r.per_team + r.per_thread;
    return *this;
  }
  TeamPolicy& set_scratch_size(int level, ScratchRequest team, ScratchRequest thread) {
    return set_scratch_size(level, ScratchRequest{team.per_team + thread.per_thread, 0});
  }
  int league_size() const { return league_; }
  int team_size() const { return 1; }
  std::size_t scratch_size(int level) const { return bytes_[level == 1 ? 1 : 0]; }
  template <class F, class Tag>
  int team_size_max(const F&, const Tag&) const {
    return 1;
  }
  template <class F, class Tag>
  int team_size_recommended(const F&, const Tag&) const {
    return 1;
  }

 private:
  int league_;
  std::size_t bytes_[2] = {0, 0};
};

template <class Member>
struct TeamRange {
  const Member& team;
  std::int64_t begin, end;
};
template <class Member, class I>
TeamRange<Member> TeamThreadRange(const Member& t, I n) {
  return {t, 0, static_cast<std::int64_t>(n)};
}
template <class Member, class I, class J>
TeamRange<Member> TeamThreadRange(const Member& t, I b, J e) {
  return {t, static_cast<std::int64_t>(b), static_cast<std::int64_t>(e)};
}
template <class Member, class I>
TeamRange<Member> ThreadVectorRange(const Member& t, I n) {
  return {t, 0, static_cast<std::int64_t>(n)};
}
template <class Member, class I, class J>
TeamRange<Member> ThreadVectorRange(const Member& t, I b, J e) {
  return {t, static_cast<std::int64_t>(b), static_cast<std::int64_t>(e)};
}
template <class Member, class I>
TeamRange<Member> TeamVectorRange(const Member& t, I n) {
  return {t, 0, static_cast<std::int64_t>(n)};
}
template <class Member, class I, class J>
TeamRange<Member> TeamVectorRange(const Member& t, I b, J e) {
  return {t, static_cast<std::int64_t>(b), static_cast<std::int64_t>(e)};
}

// ---- parallel_for ------------------------------------------------------------------

template <class... A, class F>
void parallel_for(const std::string&, const RangePolicy<A...>& p, const F& f) {
  using Tag = typename RangePolicy<A...>::work_tag;
  for (std::int64_t i = p.begin(); i < p.end(); ++i) shim::call<Tag>(f, i);
}
template <class... A, class F>
void parallel_for(const RangePolicy<A...>& p, const F& f, const std::string& = "") {
  parallel_for(std::string(), p, f);
}
template <class I, class F, class = std::enable_if_t<std::is_integral_v<I>>>
void parallel_for(const std::string&, I n, const F& f) {
  for (I i = 0; i < n; ++i) f(i);
}
template <class I, class F, class = std::enable_if_t<std::is_integral_v<I>>>
void parallel_for(I n, const F& f, const std::string& = "") {
  parallel_for(std::string(), n, f);
}

/// A team loop: each team in turn, with fresh scratch buffers: the policy's
/// requests plus the functor's team_shmem_size(team_size) at level 0.
template <class... A, class F>
void parallel_for(const std::string&, const TeamPolicy<A...>& p, const F& f) {
  using P = TeamPolicy<A...>;
  using Exec = typename P::execution_space;
  using Tag = typename P::work_tag;
  using S = typename Exec::scratch_memory_space;
  std::size_t b0 = p.scratch_size(0);
  if constexpr (shim::has_shmem_size<F>::value) b0 += f.team_shmem_size(p.team_size());
  const std::size_t b1 = p.scratch_size(1);
  std::vector<std::max_align_t> l0(b0 / sizeof(std::max_align_t) + 1);
  std::vector<std::max_align_t> l1(b1 / sizeof(std::max_align_t) + 1);
  for (int t = 0; t < p.league_size(); ++t) {
    const typename P::member_type m(t, p.league_size(), S(l0.data(), b0), S(l1.data(), b1));
    shim::call<Tag>(f, m);
  }
}
template <class... A, class F>
void parallel_for(const TeamPolicy<A...>& p, const F& f, const std::string& = "") {
  parallel_for(std::string(), p, f);
}

template <class Member, class F>
void parallel_for(const TeamRange<Member>& r, const F& f) {
  for (std::int64_t i = r.begin; i < r.end; ++i) f(i);
}
template <class Member, class F, class T>
void parallel_reduce(const TeamRange<Member>& r, const F& f, T& result) {
  T acc{};
  for (std::int64_t i = r.begin; i < r.end; ++i) f(i, acc);
  result = acc;
}
/// parallel_scan over a team range: f(i, partial, final), serially, twice (as Kokkos may).
template <class Member, class F>
void parallel_scan(const TeamRange<Member>& r, const F& f) {
  for (int pass = 0; pass < 2; ++pass) {
    double partial = 0;  // untyped team scans accumulate doubles here
    for (std::int64_t i = r.begin; i < r.end; ++i) f(i, partial, pass == 1);
  }
}

// ---- parallel_reduce -----------------------------------------------------------------

namespace shim {
template <class F, class T>
void reduce_init(const F& f, T& acc) {
  if constexpr (has_init<F, T>::value) f.init(acc);
  else acc = T{};
}
template <class F, class T>
void reduce_final(const F& f, T& acc) {
  if constexpr (has_final<F, T>::value) f.final(acc);
}
/// The value a functor reduces into: its value_type, or else the result's type.
template <class F, class R, class = void>
struct reduce_value {
  using type = R;
};
template <class F, class R>
struct reduce_value<F, R, std::enable_if_t<has_value_type<F>::value && !std::is_pointer_v<typename F::value_type>>> {
  using type = typename F::value_type;
};
template <class R>
void store(R& out, const R& v) {
  out = v;
}
template <class DT, class... P, class T>
void store(const View<DT, P...>& out, const T& v) {
  out() = v;
}
template <class R>
struct result_of {
  using type = R;
};
template <class DT, class... P>
struct result_of<View<DT, P...>> {
  using type = typename View<DT, P...>::non_const_value_type;
};
}  // namespace shim

template <class... A, class F, class R>
void parallel_reduce(const std::string&, const RangePolicy<A...>& p, const F& f, R&& result) {
  using Tag = typename RangePolicy<A...>::work_tag;
  using T = typename shim::reduce_value<F, typename shim::result_of<std::decay_t<R>>::type>::type;
  T acc;
  shim::reduce_init(f, acc);
  for (std::int64_t i = p.begin(); i < p.end(); ++i) shim::call<Tag>(f, i, acc);
  shim::reduce_final(f, acc);
  shim::store(result, acc);
}
template <class... A, class F, class R>
void parallel_reduce(const RangePolicy<A...>& p, const F& f, R&& result) {
  parallel_reduce(std::string(), p, f, std::forward<R>(result));
}
template <class... A, class F, class R>
void parallel_reduce(const std::string&, const TeamPolicy<A...>& p, const F& f, R&& result) {
  using P = TeamPolicy<A...>;
  using Tag = typename P::work_tag;
  using Exec = typename P::execution_space;
  using S = typename Exec::scratch_memory_space;
  using T = typename shim::reduce_value<F, typename shim::result_of<std::decay_t<R>>::type>::type;
  std::size_t b0 = p.scratch_size(0);
  if constexpr (shim::has_shmem_size<F>::value) b0 += f.team_shmem_size(p.team_size());
  const std::size_t b1 = p.scratch_size(1);
  std::vector<std::max_align_t> l0(b0 / sizeof(std::max_align_t) + 1);
  std::vector<std::max_align_t> l1(b1 / sizeof(std::max_align_t) + 1);
  T acc;
  shim::reduce_init(f, acc);
  for (int t = 0; t < p.league_size(); ++t) {
    const typename P::member_type m(t, p.league_size(), S(l0.data(), b0), S(l1.data(), b1));
    shim::call<Tag>(f, m, acc);
  }
  shim::reduce_final(f, acc);
  shim::store(result, acc);
}
template <class... A, class F, class R>
void parallel_reduce(const TeamPolicy<A...>& p, const F& f, R&& result) {
  parallel_reduce(std::string(), p, f, std::forward<R>(result));
}
template <class I, class F, class R, class = std::enable_if_t<std::is_integral_v<I>>>
void parallel_reduce(const std::string& s, I n, const F& f, R&& result) {
  parallel_reduce(s, RangePolicy<>(0, n), f, std::forward<R>(result));
}
template <class I, class F, class R, class = std::enable_if_t<std::is_integral_v<I>>>
void parallel_reduce(I n, const F& f, R&& result) {
  parallel_reduce(std::string(), RangePolicy<>(0, n), f, std::forward<R>(result));
}

// ---- parallel_scan -------------------------------------------------------------------

template <class... A, class F>
void parallel_scan(const std::string&, const RangePolicy<A...>& p, const F& f) {
  using Tag = typename RangePolicy<A...>::work_tag;
  using T = typename shim::reduce_value<F, std::int64_t>::type;
  for (int pass = 0; pass < 2; ++pass) {
    T update;
    shim::reduce_init(f, update);
    for (std::int64_t i = p.begin(); i < p.end(); ++i) shim::call<Tag>(f, i, update, pass == 1);
  }
}
template <class... A, class F>
void parallel_scan(const RangePolicy<A...>& p, const F& f) {
  parallel_scan(std::string(), p, f);
}
template <class I, class F, class = std::enable_if_t<std::is_integral_v<I>>>
void parallel_scan(const std::string& s, I n, const F& f) {
  parallel_scan(s, RangePolicy<>(0, n), f);
}
template <class I, class F, class = std::enable_if_t<std::is_integral_v<I>>>
void parallel_scan(I n, const F& f) {
  parallel_scan(std::string(), RangePolicy<>(0, n), f);
}

// ---- atomics (serial: plain operations) ----------------------------------------------

template <class T, class U>
T atomic_fetch_add(T* p, const U& v) {
  const T old = *p;
  *p = old + v;
  return old;
}
template <class T, class U>
T atomic_fetch_sub(T* p, const U& v) {
  const T old = *p;
  *p = old - v;
  return old;
}
template <class T, class U>
T atomic_fetch_max(T* p, const U& v) {
  const T old = *p;
  if (old < v) *p = v;
  return old;
}
template <class T, class U>
T atomic_fetch_min(T* p, const U& v) {
  const T old = *p;
  if (v < old) *p = v;
  return old;
}
template <class T, class U>
T atomic_add_fetch(T* p, const U& v) {
  return *p = *p + v;
}
template <class T, class U>
void atomic_add(T* p, const U& v) {
  *p = *p + v;
}
template <class T, class U>
void atomic_sub(T* p, const U& v) {
  *p = *p - v;
}
template <class T>
void atomic_increment(T* p) {
  ++*p;
}
template <class T>
void atomic_decrement(T* p) {
  --*p;
}
template <class T, class U>
T atomic_exchange(T* p, const U& v) {
  const T old = *p;
  *p = v;
  return old;
}
template <class T, class U, class V>
T atomic_compare_exchange(T* p, const U& expected, const V& desired) {
  const T old = *p;
  if (old == expected) *p = desired;
  return old;
}
inline void memory_fence() {}

}  // namespace Kokkos

#endif  // DUALVIEW_KOKKOS_PROGRAMS_DISPATCH_HPP
