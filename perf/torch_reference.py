#!/usr/bin/env python3
"""Tensorized PyTorch reference of bench_genred_gpu: builds the M-by-N matrix on the GPU.

usage: torch_reference.py gaussian M N D W dtype sigma
       torch_reference.py argkmin  M N D K dtype 0

The squared distances come from matrix products (|x|^2 + |y|^2 - 2 x.y^T, TF32 off), then
exp and a matrix-vector product (gaussian) or topk (argkmin): the way a PyTorch user writes it.
When M x N does not fit in a quarter of the free memory, N (then M) is reduced until it does;
pairs per second are measured at that size (median of CUDA-event timings after a warm-up).
Prints one line: "pairs_per_s <rate> M <m> N <n>". Exits 1 without a CUDA PyTorch.
"""
import sys

try:
    import torch
except ImportError:
    sys.exit(1)
if not torch.cuda.is_available():
    sys.exit(1)


def main():
    kind, m, n, d, w, dtype, sigma = sys.argv[1:8]
    m, n, d, w, sigma = int(m), int(n), int(d), int(w), float(sigma)
    dtype = getattr(torch, dtype)
    torch.backends.cuda.matmul.allow_tf32 = False
    elem = torch.tensor([], dtype=dtype).element_size()
    budget = torch.cuda.mem_get_info()[0] // 4
    while m * n * elem * 3 > budget and n > 1000:
        n //= 2
    while m * n * elem * 3 > budget and m > 1000:
        m //= 2
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.rand(m, d, device="cuda", dtype=dtype, generator=gen)
    y = torch.rand(n, d, device="cuda", dtype=dtype, generator=gen)
    b = torch.rand(n, max(w, 1), device="cuda", dtype=dtype, generator=gen)

    def sq_dist():
        return (x * x).sum(1, keepdim=True) + (y * y).sum(1) - 2 * x @ y.T

    if kind == "gaussian":
        gamma = 1.0 / (2 * sigma * sigma)

        def run():
            return torch.exp(-gamma * sq_dist()) @ b
    else:

        def run():
            return sq_dist().topk(w, dim=1, largest=False).indices

    for _ in range(3):
        run()
    times = []
    for _ in range(10):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1000)
    times.sort()
    print(f"pairs_per_s {m * n / times[len(times) // 2]:.6e} M {m} N {n}")


main()
