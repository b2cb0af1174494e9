// The reductions of tessera::genred.
//
// F denotes the formula's value for one (i, j) pair, a vector of dimension D. Every reduction
// acts on each of the D components independently, except the weighted ones, which read
// F = [f, g_1 .. g_G] (D = 1 + G): a scalar score f and a weight vector g.
//
// Output Views ("values" are of the formula's scalar type, "indices" of any integer type):
//
// | reduction          | outputs                     | columns | empty range           |
// |--------------------|-----------------------------|---------|-----------------------|
// | Sum                | values                      | D       | 0                     |
// | Min, Max           | values                      | D       | +inf, -inf            |
// | ArgMin, ArgMax     | indices                     | D       | -1                    |
// | MinArgMin          | values, indices             | D, D    | +inf, -1              |
// | MaxArgMax          | values, indices             | D, D    | -inf, -1              |
// | KMin{k}            | values                      | k*D     | +inf                  |
// | ArgKMin{k}         | indices                     | k*D     | -1                    |
// | KMinArgKMin{k}     | values, indices             | k*D,k*D | +inf, -1              |
// | LogSumExp          | values                      | D       | -inf                  |
// | LogSumExpWeighted  | values: log sum_j e^f g     | G       | -inf                  |
// | SumSoftMaxWeight   | values: sum e^f g / sum e^f | G       | 0                     |
//
// K-reductions write column kk * D + d for the kk-th smallest value of component d (the output
// row read as a k-by-D matrix), ascending. Ties are broken by the smaller index, in every scheme,
// so results do not depend on tiling. A range with fewer than k entries fills the rest with the
// empty-range values. NaN values of F are never selected by the min/max family.
// LogSumExpWeighted needs positive weights (the log of a non-positive sum is NaN or -inf).
#pragma once

namespace tessera {

/// a_i = sum_j F_ij.
struct Sum {};
/// a_i = min_j F_ij.
struct Min {};
/// a_i = max_j F_ij.
struct Max {};
/// a_i = argmin_j F_ij (smallest j among ties).
struct ArgMin {};
/// a_i = argmax_j F_ij (smallest j among ties).
struct ArgMax {};
/// Both min_j F_ij and its argmin.
struct MinArgMin {};
/// Both max_j F_ij and its argmax.
struct MaxArgMax {};
/// The k smallest values of F_i., ascending; 1 <= k <= the reduced extent.
struct KMin {
  int k;  ///< Number of values kept per output component.
};
/// The indices of the k smallest values of F_i. (k-nearest neighbours when F is a distance).
struct ArgKMin {
  int k;  ///< Number of indices kept per output component.
};
/// Both the k smallest values and their indices.
struct KMinArgKMin {
  int k;  ///< Number of values and of indices kept per output component.
};
/// a_i = log sum_j exp(F_ij), computed stably with a running maximum.
struct LogSumExp {};
/// a_i = log sum_j exp(f_ij) g_ij with F = [f, g]: a G-vector.
struct LogSumExpWeighted {};
/// a_i = sum_j exp(f_ij) g_ij / sum_j exp(f_ij) with F = [f, g]: a softmax-weighted mean.
struct SumSoftMaxWeight {};

}  // namespace tessera
