#!/usr/bin/env python3
"""The round trip of Tessera's pairwise outputs through numpy and scipy (and masspcf).

Runs the writer program (scipy_roundtrip_writer.cpp) into a temporary directory, optionally
under a launcher such as "mpiexec -n 3", then checks every file it wrote:

- numpy loads it with the promised dtype ('<f8', or '<f4' for float outputs), shape and C
  order, also memory-mapped (numpy.load(path, mmap_mode='r'));
- scipy.spatial.distance.squareform of a pdist file is the matrix of direct distances: the L1,
  L2 and L3 distances of the PCFs, integrated here from the input files (0 before a function's
  first breakpoint), and scipy.spatial.distance.pdist itself for point vectors, under
  'euclidean', 'sqeuclidean', 'cosine' and a function that is not symmetric (scipy evaluates
  F(X[i], X[j]) for i < j);
- an l2_kernel file read in np.triu_indices order (M[np.triu_indices(n)] = v, and its transpose)
  is the matrix of direct inner products; a cdist file is the dense (4, 9, 5) array of direct
  distances;
- where masspcf is installed, its pdist, l2_kernel and cdist of the functions that start at 0
  (masspcf's convention) give the same matrices.

Exits 77 (CTest's SKIP_RETURN_CODE) when numpy or scipy cannot be imported.

Usage: scipy_roundtrip.py WRITER [LAUNCHER...]
"""

import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from scipy.spatial.distance import pdist, squareform
except ImportError as error:
    print(f"skipped: {error}")
    sys.exit(77)

N_PCFS = 37
FAILURES = []


def check(ok, what):
    if not ok:
        FAILURES.append(what)
        print(f"FAIL: {what}")


def load(directory, name, dtype, shape):
    """Loads name.npy, checking its header (dtype, C order, shape) and that it maps."""
    path = os.path.join(directory, name + ".npy")
    with open(path, "rb") as f:
        version = np.lib.format.read_magic(f)
        read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                       else np.lib.format.read_array_header_2_0)
        header_shape, fortran_order, header_dtype = read_header(f)
    check(version == (1, 0), f"{name}: .npy version {version}, expected (1, 0)")
    check(not fortran_order, f"{name}: fortran_order is set")
    check(header_dtype == np.dtype(dtype), f"{name}: dtype {header_dtype}, expected {dtype}")
    check(header_shape == shape, f"{name}: shape {header_shape}, expected {shape}")
    a = np.load(path)
    check(a.dtype == np.dtype(dtype) and a.shape == shape and a.flags.c_contiguous,
          f"{name}: numpy.load gave {a.dtype} {a.shape}")
    mapped = np.load(path, mmap_mode="r")
    check(np.array_equal(np.asarray(mapped), a), f"{name}: the memory map differs")
    return a.astype(np.float64)


def close(got, want, rtol, what):
    ok = got.shape == want.shape and np.allclose(got, want, rtol=rtol, atol=rtol)
    worst = np.max(np.abs(got - want)) if got.shape == want.shape and got.size else 0
    check(ok, f"{what}: differs from the direct values (largest difference {worst})")


def pcfs(directory, name):
    """The functions as a list of (times, values) from the input files."""
    offsets = load(directory, name + "_offsets", "<f8", (N_PCFS + 1,)).astype(np.int64)
    points = load(directory, name + "_breakpoints", "<f8", (int(offsets[-1]), 2))
    return [(points[offsets[k]:offsets[k + 1], 0], points[offsets[k]:offsets[k + 1], 1])
            for k in range(N_PCFS)]


def integral(f, g, integrand):
    """Integral of integrand(f(t), g(t)) over the real line: f is 0 before its first
    breakpoint and v_k on [t_k, t_k+1); the last values are 0 (the writer's functions end so)."""
    times = np.union1d(f[0], g[0])
    def value(h):
        k = np.searchsorted(h[0], times[:-1], side="right") - 1
        return np.where(k >= 0, h[1][np.maximum(k, 0)], 0.0)
    return float(np.sum(np.diff(times) * integrand(value(f), value(g))))


def lp(p):
    return lambda f, g: integral(f, g, lambda a, b: np.abs(a - b) ** p) ** (1.0 / p)


def matrix(rows, cols, op):
    return np.array([[op(f, g) for g in cols] for f in rows])


def check_pcfs(directory, name, masspcf):
    f = pcfs(directory, name)
    n = len(f)
    pairs = n * (n - 1) // 2
    for metric, p in (("l1", 1), ("l2", 2), ("l3", 3)):
        direct = matrix(f, f, lp(p))
        got = squareform(load(directory, f"{name}_pdist_{metric}", "<f8", (pairs,)))
        close(got, direct, 1e-10, f"{name} pdist {metric} (squareform)")
        if metric == "l1":
            got32 = squareform(load(directory, f"{name}_pdist_l1_f32", "<f4", (pairs,)))
            close(got32, direct, 1e-4, f"{name} pdist l1 in float (squareform)")
        if masspcf is not None:
            tensor = masspcf.PcfTensor([masspcf.Pcf(np.column_stack(h)) for h in f])
            close(got, np.asarray(masspcf.pdist(tensor, p=p).to_dense()), 1e-10,
                  f"{name} pdist {metric} against masspcf.pdist")
    gram = matrix(f, f, lambda a, b: integral(a, b, lambda x, y: x * y))
    packed = load(directory, f"{name}_l2_kernel", "<f8", (n * (n + 1) // 2,))
    m = np.empty((n, n))
    m[np.triu_indices(n)] = packed
    m.T[np.triu_indices(n)] = packed
    close(m, gram, 1e-10, f"{name} l2_kernel (np.triu_indices order)")
    cross = matrix(f[:36], f[32:], lp(1)).reshape(4, 9, 5)
    close(load(directory, f"{name}_cdist_l1", "<f8", (4, 9, 5)), cross, 1e-10, f"{name} cdist l1")
    if masspcf is not None:
        tensor = masspcf.PcfTensor([masspcf.Pcf(np.column_stack(h)) for h in f])
        close(m, np.asarray(masspcf.l2_kernel(tensor).to_dense()), 1e-10,
              f"{name} l2_kernel against masspcf.l2_kernel")
        head = masspcf.PcfTensor([masspcf.Pcf(np.column_stack(h)) for h in f[:36]])
        tail = masspcf.PcfTensor([masspcf.Pcf(np.column_stack(h)) for h in f[32:]])
        close(matrix(f[:36], f[32:], lp(1)), np.asarray(masspcf.cdist(head, tail)), 1e-10,
              f"{name} cdist l1 against masspcf.cdist")


def check_points(directory):
    x3 = load(directory, "points3", "<f8", (41, 3))
    for metric in ("euclidean", "sqeuclidean", "cosine"):
        close(load(directory, f"points3_{metric}", "<f8", (41 * 40 // 2,)), pdist(x3, metric),
              1e-12, f"pdist of points, {metric}, against scipy.spatial.distance.pdist")
    x2 = load(directory, "points2", "<f8", (41, 2))
    close(load(directory, "points2_asymmetric", "<f8", (41 * 40 // 2,)),
          pdist(x2, lambda u, v: u[0] - 2 * v[0] + u[1] * v[1]), 1e-12,
          "pdist of points, F(x, y) = x0 - 2 y0 + x1 y1, against scipy.spatial.distance.pdist")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    writer, launcher = sys.argv[1], sys.argv[2:]
    try:
        import masspcf
        print("masspcf found: comparing with it")
    except ImportError:
        masspcf = None
        print("masspcf is not installed: its comparison is skipped")
    with tempfile.TemporaryDirectory(prefix="tessera_scipy_") as directory:
        subprocess.run(launcher + [writer, directory], check=True)
        for name in ("zero_start", "free_start"):
            check_pcfs(directory, name, masspcf if name == "zero_start" else None)
        check_points(directory)
    print(f"{len(FAILURES)} failures" if FAILURES else "all checks passed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
