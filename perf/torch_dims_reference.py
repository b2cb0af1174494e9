#!/usr/bin/env python3
"""PyTorch baseline of bench_genred_dims: Gaussian sums and k nearest neighbours, chunked.

usage: torch_dims_reference.py sum     --dim D --width W --sigma S --size M N [--compile]
       torch_dims_reference.py argkmin --dim D --width K --sigma S --size M N [--compile]
       options: --device cuda|cpu (cuda), --budget-mib B (largest temporary block, 4096),
                --seconds T (time spent on timed runs, about 3),
                --precision tf32|fp32|bf16 (the products' precision, tf32)

The points are those of bench_genred_dims (points() below computes the same hash, so the
benchmark and this script see bit-identical float data without a file): x (M x D) and y (N x D)
uniform in [0, 1), weights b (N x W, column 0 when W = 1). Each block of rows and columns
computes the squared distances the way a PyTorch user writes them, |x|^2 + |y|^2 - 2 x @ y.T,
with TF32 matrix products on (--precision fp32: off, float's own products, the accuracy of
Tessera's default split products; bf16: the points and weights rounded to bfloat16 and both
products in bfloat16 with float accumulation, as Tessera's bf16 rows); then
exp(-d2 / (2 sigma^2)) @ b, summed over the column blocks (sum), or topk(K) of each block,
merged with the best K so far (argkmin). Blocks are sized so
that one block's temporaries stay under --budget-mib (and a quarter of the free GPU memory).
--compile runs the block function under torch.compile (its compilation happens in the warm-up
runs, outside the timing).

Prints one line: "pairs_per_s <rate> M <m> N <n>", M * N over the median wall-clock time of the
timed runs (the GPU synchronised around each, as the benchmark times Tessera's calls). Exits 77
(the benchmark row is skipped) without torch or, for --device cuda, without a CUDA device; 2 for
bad arguments; 1, with a message on stderr, when a run fails.
"""
import argparse
import sys
import time

try:
    import torch
except ImportError:
    torch = None

SKIP = 77  # exit status: the benchmark row is skipped

_MASK32 = 0xFFFFFFFF
_GOLDEN = 0x9E3779B9


def unit_values(stream, index):
    """The benchmark's uniform value in [0, 1) for (stream, index): a 32-bit integer hash in
    int64 arithmetic (every product stays below 2^63), the top 24 bits of the result scaled by
    2^-24, so that float32 holds it exactly. index: an int64 tensor."""
    h = (index + stream * _GOLDEN) & _MASK32
    h = h ^ (h >> 16)
    h = (h * 0x7FEB352D) & _MASK32
    h = h ^ (h >> 15)
    h = (h * 0x2C1B3C6D) & _MASK32
    h = h ^ (h >> 16)
    return (h >> 8).to(torch.float32) * 2.0**-24


def points(stream, rows, cols, device, block_rows=1 << 16):
    """rows x cols float32 values of `stream`: value (r, c) is unit_values(stream, r * cols + c),
    as bench_genred_dims computes them (streams 1: x, 2: y, 3: the 64 weights per point)."""
    out = torch.empty(rows, cols, dtype=torch.float32, device=device)
    for r0 in range(0, rows, block_rows):
        r1 = min(rows, r0 + block_rows)
        index = torch.arange(r0 * cols, r1 * cols, dtype=torch.int64, device=device)
        out[r0:r1] = unit_values(stream, index).view(r1 - r0, cols)
    return out


def problem(dim, width, size_m, size_n, device, weights):
    """x, y and (weights=True) b as bench_genred_dims builds them: b is the first `width`
    columns of the 64 weights per point (width 1 or 64)."""
    x = points(1, size_m, dim, device)
    y = points(2, size_n, dim, device)
    b = points(3, size_n, 64, device)[:, :width].contiguous() if weights else None
    return x, y, b


def block_shape(m, n, k, bytes_per_pair, budget_bytes):
    """Rows and columns per block: whole rows of N columns when at least min(M, 256) of them fit
    in the budget, else 256 rows and as many columns as fit (at least k)."""
    pairs = max(1, budget_bytes // bytes_per_pair)
    rows = min(m, pairs // n)
    if rows >= min(m, 256):
        return rows, n
    rows = min(m, 256)
    return rows, min(n, max(k, pairs // rows))


def dot(x, y):
    """x @ y.T in float, from the operands' own type (bfloat16 operands: a bfloat16 product
    accumulated in float)."""
    return (x @ y.T).float()


def sum_block(x, x2, y, y2, b, gamma):
    """exp(-gamma |x_i - y_j|^2) @ b for one block, distances by a matrix product."""
    d2 = x2[:, None] + y2[None, :] - 2 * dot(x, y)
    return (torch.exp(-gamma * d2).to(b.dtype) @ b).float()


def knn_block(x, x2, y, y2, k):
    """The k smallest squared distances of one block and their column indices."""
    d2 = x2[:, None] + y2[None, :] - 2 * dot(x, y)
    return d2.topk(k, dim=1, largest=False)


def gaussian_sum(x, y, b, sigma, shape, block):
    """a = sum_j exp(-|x_i - y_j|^2 / (2 sigma^2)) b_j, block by block."""
    rows, cols = shape
    gamma = 1.0 / (2 * sigma * sigma)
    x2, y2 = (x.float() ** 2).sum(1), (y.float() ** 2).sum(1)
    out = torch.zeros(x.shape[0], b.shape[1], dtype=torch.float32, device=x.device)
    for r0 in range(0, x.shape[0], rows):
        r1 = min(x.shape[0], r0 + rows)
        for c0 in range(0, y.shape[0], cols):
            c1 = min(y.shape[0], c0 + cols)
            out[r0:r1] += block(x[r0:r1], x2[r0:r1], y[c0:c1], y2[c0:c1], b[c0:c1], gamma)
    return out


def arg_k_min(x, y, k, shape, block):
    """The indices of the k nearest y_j of every x_i: each block's topk, merged with the best k
    of the blocks before it."""
    rows, cols = shape
    x2, y2 = (x.float() ** 2).sum(1), (y.float() ** 2).sum(1)
    out = torch.empty(x.shape[0], k, dtype=torch.int64, device=x.device)
    for r0 in range(0, x.shape[0], rows):
        r1 = min(x.shape[0], r0 + rows)
        best_d = best_i = None
        for c0 in range(0, y.shape[0], cols):
            c1 = min(y.shape[0], c0 + cols)
            d, i = block(x[r0:r1], x2[r0:r1], y[c0:c1], y2[c0:c1], min(k, c1 - c0))
            i = i + c0
            if best_d is not None:
                d, i = torch.cat([best_d, d], 1), torch.cat([best_i, i], 1)
                d, pick = d.topk(k, dim=1, largest=False)
                i = i.gather(1, pick)
            best_d, best_i = d, i
        out[r0:r1] = best_i
    return out


def median_seconds(run, device, seconds, warmups):
    """The median wall-clock time of run() (the device synchronised before and after, as the
    benchmark fences around Tessera's calls) over enough calls to take about `seconds` (1 to 10
    calls), after `warmups` untimed calls."""

    def timed():
        if device.type == "cuda":
            torch.cuda.synchronize()
        begin = time.perf_counter()
        run()
        if device.type == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - begin

    for _ in range(warmups):
        run()
    times = [timed()]
    times += [timed() for _ in range(min(9, int(seconds / max(times[0], 1e-6))))]
    times.sort()
    return times[len(times) // 2]


def report(m, n, seconds):
    """The one line the benchmark reads."""
    print(f"pairs_per_s {m * n / seconds:.6e} M {m} N {n}", flush=True)


def parser(description):
    """The arguments shared with keops_reference.py."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("kind", choices=["sum", "argkmin"])
    p.add_argument("--dim", type=int, required=True, help="dimension D of the points")
    p.add_argument("--width", type=int, required=True, help="weights W (sum: 1 or 64) or K")
    p.add_argument("--sigma", type=float, required=True, help="the Gaussian's sigma (sum)")
    p.add_argument("--size", type=int, nargs=2, required=True, metavar=("M", "N"))
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    p.add_argument("--seconds", type=float, default=3.0, help="time for the timed runs")
    return p


def check_arguments(p, args):
    """Rejects values the problem cannot have (exit 2, argparse's message)."""
    m, n = args.size
    if args.dim < 1 or m < 1 or n < 1:
        p.error(f"--dim and --size must be positive (got {args.dim}, {m} {n})")
    if args.kind == "sum" and args.width not in (1, 64):
        p.error(f"sum takes --width 1 or 64 (got {args.width})")
    if args.kind == "argkmin" and not 1 <= args.width <= n:
        p.error(f"argkmin takes 1 <= --width (K) <= N (got {args.width}, N = {n})")
    if not args.sigma > 0:
        p.error(f"--sigma must be positive (got {args.sigma})")


def device_or_skip(name):
    """The torch device, or exit 77 with the reason when torch or the GPU is missing."""
    if torch is None:
        print("torch is not installed", file=sys.stderr)
        sys.exit(SKIP)
    if name == "cuda" and not torch.cuda.is_available():
        print("torch has no CUDA device", file=sys.stderr)
        sys.exit(SKIP)
    return torch.device(name)


def main():
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--compile", action="store_true", help="run the blocks under torch.compile")
    p.add_argument("--budget-mib", type=int, default=4096, help="largest block's temporaries")
    p.add_argument("--precision", choices=["tf32", "fp32", "bf16"], default="tf32",
                   help="the products' precision (see above)")
    args = p.parse_args()
    check_arguments(p, args)
    if args.budget_mib < 1:
        p.error(f"--budget-mib must be positive (got {args.budget_mib})")
    device = device_or_skip(args.device)
    m, n = args.size
    budget = args.budget_mib << 20
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = args.precision == "tf32"
        budget = min(budget, torch.cuda.mem_get_info()[0] // 4)
    try:
        x, y, b = problem(args.dim, args.width, m, n, device, args.kind == "sum")
        if args.precision == "bf16":
            x, y = x.bfloat16(), y.bfloat16()
            b = b.bfloat16() if b is not None else None
        # three float temporaries per pair: distances, their exp or topk's work, the product
        shape = block_shape(m, n, args.width, 12, budget)
        if args.kind == "sum":
            block = torch.compile(sum_block, dynamic=False) if args.compile else sum_block
            run = lambda: gaussian_sum(x, y, b, args.sigma, shape, block)
        else:
            block = torch.compile(knn_block, dynamic=False) if args.compile else knn_block
            run = lambda: arg_k_min(x, y, args.width, shape, block)
        seconds = median_seconds(run, device, args.seconds, 2 if args.compile else 1)
    except Exception as error:  # the benchmark shows the last line
        print(f"torch_dims_reference.py: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    report(m, n, seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
