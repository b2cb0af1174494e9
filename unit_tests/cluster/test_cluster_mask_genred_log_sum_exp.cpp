// ClusterMask.GenredOverMaskPattern (test_cluster_mask.cpp) for the log-sum-exp and softmax
// reductions (LogSumExp, LogSumExpWeighted, SumSoftMaxWeight), float and double, through every
// kernel that runs block-sparse calls, against the reference restricted to the mask's pairs. A
// translation unit of its own, so that the reduction families compile in parallel.
#include "cluster/cluster_mask_test_support.hpp"

void tessera_test::genred_over_mask_log_sum_exp(int space, const MaskCase& c) {
  genred_over_mask(space, c TESSERA_FOR_EACH_LOG_SUM_EXP_REDUCTION(TESSERA_NAMED_REDUCTION));
}
