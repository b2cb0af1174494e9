// Distance::automatic (builtin_formulas.hpp): the distance evaluation a radial kernel's call runs
// with, decided at compile time from the kernel that runs it and the call's types, and the call
// rebound to it. The dispatch layer (dispatch.hpp: launch) applies it before any kernel sees the
// call, so the kernels only ever see direct, expanded or matrix.
//
// Two rules, both traits of the execution space: PortableDistanceRule<ExecSpace>, for the
// portable kernel (always; also where the backend's kernels decline a call), read from the
// space's tuning policy (core/impl/tiling.hpp: genred_automatic_expanded_min_dim), and
// DistanceRule<ExecSpace>, for the backend's hand-written kernels (GenredBackend), which is the
// portable rule unless a backend specialises it: impl/cuda/cuda_distance_rule.hpp does for
// Tessera's CUDA kernels. docs/genred.md ("Distance::automatic") has the measurements behind each
// rule and the accuracy it promises.
#pragma once

#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/impl/genred_call.hpp>

namespace tessera {
namespace Impl {

/// The rule of Distance::automatic in the portable kernel on ExecSpace: expanded from
/// Tuning::genred_automatic_expanded_min_dim on when that is positive, else (0, every policy
/// today) direct. A rule provides
///   template <class T, class Formula, class Red, bool OuterIsI, bool Sparse, bool Uniform>
///   static constexpr Distance resolve();
/// the evaluation of a call of Formula (a RadialKernel with static D and W) in compute type T
/// with reducer Red, over j (OuterIsI) or over i, block-sparse (Sparse) or dense, whose Views all
/// hold T (Uniform) or not.
template <class ExecSpace>
struct PortableDistanceRule {
  /// expanded at D >= Tuning::genred_automatic_expanded_min_dim > 0, else direct.
  template <class T, class Formula, class Red, bool OuterIsI, bool Sparse, bool Uniform>
  static constexpr Distance resolve() {
    constexpr int min_dim = Tuning<ExecSpace>::genred_automatic_expanded_min_dim;
    return min_dim > 0 && Formula::dim >= min_dim ? Distance::expanded : Distance::direct;
  }
};

/// The rule of Distance::automatic in the hand-written kernels of ExecSpace's backend
/// (GenredBackend): the portable rule unless specialised. Enable: for specialisations that cover
/// a family of execution spaces.
template <class ExecSpace, class Enable = void>
struct DistanceRule : PortableDistanceRule<ExecSpace> {};

/// True for formulas whose evaluation Distance::automatic leaves to the dispatch layer.
template <class Formula>
inline constexpr bool has_automatic_distance = false;
template <class Profile, int D, int W>
inline constexpr bool has_automatic_distance<RadialKernel<Profile, D, W, Distance::automatic>> =
    true;

/// The evaluation that a call of the RadialKernel Formula runs with under Rule (a
/// PortableDistanceRule or DistanceRule; the other parameters as there): Formula::distance
/// unless it is automatic; then direct for run-time D or W (the staged evaluations need static
/// widths), else the rule's.
template <class Rule, class T, class Formula, class Red, bool OuterIsI, bool Sparse, bool Uniform>
constexpr Distance resolve_distance() {
  if constexpr (!has_automatic_distance<Formula>) {
    return Formula::distance;
  } else if constexpr (Formula::dim < 1 || Formula::weight_dim < 0) {
    return Distance::direct;
  } else {
    return Rule::template resolve<T, Formula, Red, OuterIsI, Sparse, Uniform>();
  }
}
/// resolve_distance's value.
template <class Rule, class T, class Formula, class Red, bool OuterIsI, bool Sparse, bool Uniform>
inline constexpr Distance resolved_distance =
    resolve_distance<Rule, T, Formula, Red, OuterIsI, Sparse, Uniform>();

/// The type of call Call with formula type Formula (the VarGroups depend on the formula's
/// dimensions only, which the Distance does not change).
template <class Call, class Formula>
struct WithFormula;
template <class T, class Index, class F, class PG, class IG, class JG, class OutputsT,
          class Sparsity, class Formula>
struct WithFormula<GenredCall<T, Index, F, PG, IG, JG, OutputsT, Sparsity>, Formula> {
  using type = GenredCall<T, Index, Formula, PG, IG, JG, OutputsT, Sparsity>;  ///< The call.
};

/// The call as a kernel under Rule runs it with reducer Red over j (OuterIsI) or over i: the
/// call itself, or, if its formula has Distance::automatic, a copy with the evaluation
/// resolved_distance gives.
template <class Rule, bool OuterIsI, class Red, class Call>
decltype(auto) with_resolved_distance(const Call& call) {
  using F = typename Call::formula_type;
  if constexpr (!has_automatic_distance<F>) {
    return (call);
  } else {
    constexpr Distance dist = resolved_distance<Rule, typename Call::scalar_type, F, Red, OuterIsI,
                                                Call::sparse, Call::stores_compute_type>;
    using Resolved          = RadialKernel<typename F::profile_type, F::dim, F::weight_dim, dist>;
    return typename WithFormula<Call, Resolved>::type{
        call.options, call.shape, Resolved(call.formula), call.formula_dim, call.params,
        call.ivars,   call.jvars, call.outputs,           call.sparsity};
  }
}

}  // namespace Impl
}  // namespace tessera
