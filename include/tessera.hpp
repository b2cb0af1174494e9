// Tessera: tiled map-reduce and friends for Kokkos applications. Umbrella header.
#pragma once

#include <tessera/core/version.hpp>
#include <tessera/core/workspace.hpp>

#include <tessera/cluster/block_sparse_from_cutoff.hpp>
#include <tessera/cluster/block_sparse_ranges.hpp>
#include <tessera/cluster/cluster_mask.hpp>
#include <tessera/cluster/clustering.hpp>
#include <tessera/cluster/permute_rows.hpp>

#include <tessera/fusion/bindings.hpp>
#include <tessera/fusion/blas1.hpp>
#include <tessera/fusion/blas2.hpp>
#include <tessera/fusion/expression.hpp>
#include <tessera/fusion/expression_nodes.hpp>
#include <tessera/fusion/options.hpp>
#include <tessera/fusion/plan.hpp>
#include <tessera/fusion/report.hpp>
#include <tessera/fusion/run.hpp>
#include <tessera/fusion/step.hpp>
#include <tessera/fusion/tuner.hpp>

#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/formula.hpp>
#include <tessera/genred/genred.hpp>
#include <tessera/genred/options.hpp>
#include <tessera/genred/reductions.hpp>
#include <tessera/genred/variables.hpp>

#include <tessera/interval/exclusive_scan.hpp>
#include <tessera/interval/interval_expand.hpp>
#include <tessera/interval/interval_move.hpp>
#include <tessera/interval/interval_options.hpp>
#include <tessera/interval/load_balancing_search.hpp>
#include <tessera/interval/sequence.hpp>

#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/function_shape.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/npy_file.hpp>
#include <tessera/pairwise/pairwise.hpp>
#include <tessera/pairwise/pairwise_options.hpp>
#include <tessera/pairwise/pcf_block_op.hpp>
#include <tessera/pairwise/pcf_collection.hpp>
#include <tessera/pairwise/pcf_collection_npy.hpp>
#include <tessera/pairwise/pcf_operations.hpp>
#include <tessera/pairwise/point_block_op.hpp>
#include <tessera/pairwise/result_writers.hpp>
