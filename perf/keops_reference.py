#!/usr/bin/env python3
"""KeOps baseline of bench_genred_dims: pykeops LazyTensor Gaussian sums and k nearest neighbours.

usage: keops_reference.py sum     --dim D --width W --sigma S --size M N [--dtype float32|float16]
       keops_reference.py argkmin --dim D --width K --sigma S --size M N [--dtype float32|float16]
       options: --device cuda|cpu (cuda), --seconds T (time spent on timed runs, about 3),
                --cache DIR (KeOps' build folder, see below)

The data are bench_genred_dims' (points() of torch_dims_reference.py, the same hash), cast to
--dtype. sum: (-D2 / (2 sigma^2)).exp() @ b with D2 = ((x_i - y_j)^2).sum(), written as
(K * b_j).sum(dim=1) (what K @ b computes) so that float16 sums can name their accumulator: they
accumulate in float32 (dtype_acc); their outputs stay float16 (they overflow to inf beyond
65504, which does not change the timing). argkmin: D2.argKmin(K, dim=1). Prints one line,
"pairs_per_s <rate> M <m> N <n>" (median of the timed runs after a warm-up that compiles the
formula); exits 77 without torch or pykeops (or, for --device cuda, without a CUDA device),
2 for bad arguments, 1 with a message when KeOps fails.

Setup done here before pykeops is imported (pykeops 2.3 and keopscore 2.3, pure-Python wheels;
they also need numpy and pybind11):
  - KEOPS_CACHE_FOLDER (unless already set): --cache, default /tmp/tessera-keops-<uid>/<variant>
    (variant: nostreams, or streams under TESSERA_KEOPS_STREAMS=1). KeOps compiles two helper
    libraries into it the first time, nvrtc_jit.so (compiles formulas with nvrtc) and the
    pykeops_nvrtc Python module (launches them), then one kernel per formula; later runs reuse
    them.
  - CUDA_PATH (unless set): the toolkit holding include/cuda.h and include/nvrtc.h, found from
    CUDA_PATH, CUDA_HOME, nvcc on PATH, then /usr/local/cuda. KeOps finds libnvrtc and
    libcudart with ctypes.util.find_library (the loader's cache), and falls back to the CPU
    without them: when they cannot be found and loaded that way, the toolkit's lib64 goes into
    LD_LIBRARY_PATH and the script re-executes itself once.
  - The helpers without C++ streams. keopscore 2.3 compiles them from
    keopscore/binders/nvrtc/nvrtc_jit.cpp and keops_nvrtc.cpp (included by
    pykeops/common/keops_io/pykeops_nvrtc.cpp), which use <iostream>, <fstream> and <sstream>:
    std::ostringstream for the -arch flag and the fp16 header path, std::ofstream/std::ifstream
    for the compiled kernel, std::cerr in the error macros of keopscore/include/utils_pe.h; it
    has no option or environment variable to avoid them. The helper crashed in that stream use
    on the GPU machine, so this script writes copies of those sources with C stdio instead
    (snprintf, fopen/fwrite/fread, fprintf; a failed read or write becomes an error instead of a
    read of an uninitialised size) into <cache>/nostreams_src, and sets CXX to a small wrapper
    (<cache>/nostreams_src/cxx) that compiles the two helpers from those copies (an -I in front
    and the patched nvrtc_jit.cpp) and passes every other compiler call to the real compiler
    (CXX as it was, else g++). TESSERA_KEOPS_STREAMS=1 skips this and builds KeOps' own sources.
  - faulthandler is on, so a crash inside a helper prints the Python stack that reached it.

Install and check on a machine without a package registry (wheels in .whl/):
  python3 -m pip install --no-index --find-links .whl pykeops==2.3 keopscore==2.3
  python3 perf/keops_reference.py sum --dim 16 --width 1 --sigma 1 --size 10000 10000
"""
import ctypes
import ctypes.util
import faulthandler
import importlib.util
import os
import shutil
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts for the import below
from torch_dims_reference import (  # noqa: E402
    SKIP,
    check_arguments,
    device_or_skip,
    median_seconds,
    parser,
    problem,
    report,
)

# (file under keopscore/, text as in keopscore 2.3, replacement): C stdio instead of streams.
_NO_STREAMS = [
    (
        "include/utils_pe.h",
        """      std::cerr << "\\nerror: " #x " failed with error "                        \\
                << nvrtcGetErrorString(result) << '\\n'                         \\
                << '\\n';                                                       \\""",
        """      fprintf(stderr, "\\nerror: " #x " failed with error %s\\n\\n",          \\
              nvrtcGetErrorString(result));                                    \\""",
    ),
    (
        "include/utils_pe.h",
        """      std::cerr << "\\n[KeOps] error: " #x " failed with error " << msg << '\\n' \\
                << '\\n';                                                       \\
      exit(1);""",
        """      fprintf(stderr, "\\n[KeOps] error: " #x " failed with error %s\\n\\n", msg); \\
      exit(1);""",
    ),
    (
        "include/utils_pe.h",
        """      std::cerr << "\\n[KeOps] error: " #x " failed with error " << msg << '\\n' \\
                << '\\n';                                                       \\
      throw""",
        """      fprintf(stderr, "\\n[KeOps] error: " #x " failed with error %s\\n\\n", msg); \\
      throw""",
    ),
    (
        "include/utils_pe.h",
        "#include <numeric>\n",
        "#include <cstdio>\n#include <numeric>\n#include <stdexcept>\n",
    ),
    (
        "include/utils_pe.h",
        "  buffer[length] = '\\0';\n  return buffer;",
        "  if (buffer)\n    buffer[length] = '\\0';\n  return buffer;",
    ),
    (
        "binders/nvrtc/nvrtc_jit.cpp",
        "#include <fstream>\n#include <iostream>\n",
        "#include <string>\n",
    ),
    ("binders/nvrtc/nvrtc_jit.cpp", "#include <sstream>\n", ""),
    (
        "binders/nvrtc/nvrtc_jit.cpp",
        """    std::ostringstream header_path;
    header_path << cuda_include_path << "cuda_fp16.h";
    header_names[0] = "cuda_fp16.h";
    header_sources[0] = read_text_file(header_path.str().c_str());""",
        """    const std::string header_path = std::string(cuda_include_path) + "cuda_fp16.h";
    header_names[0] = "cuda_fp16.h";
    header_sources[0] = read_text_file(header_path.c_str());
    if (!header_sources[0])
      return -1;""",
    ),
    (
        "binders/nvrtc/nvrtc_jit.cpp",
        """  std::ostringstream arch_flag;
  arch_flag << "-arch=" << ARCHTAG << "_" << deviceProp_major
            << deviceProp_minor;

  char *arch_flag_char = new char[arch_flag.str().length()];
  arch_flag_char = strdup(arch_flag.str().c_str());""",
        """  char arch_flag_char[64];
  snprintf(arch_flag_char, sizeof arch_flag_char, "-arch=%s_%d%d", ARCHTAG,
           deviceProp_major, deviceProp_minor);""",
    ),
    ("binders/nvrtc/nvrtc_jit.cpp", "  delete[] arch_flag_char;\n", ""),
    (
        "binders/nvrtc/nvrtc_jit.cpp",
        """  std::ofstream wf(target_file_name, std::ofstream::binary);
  wf.write((char *)&targetSize, sizeof(size_t));
  wf.write(target, targetSize);
  wf.close();

  delete[] target;

  return 0;""",
        """  FILE *wf = fopen(target_file_name, "wb");
  const bool written = wf && fwrite(&targetSize, sizeof(size_t), 1, wf) == 1 &&
                       fwrite(target, 1, targetSize, wf) == targetSize;
  if (wf)
    fclose(wf);

  delete[] target;

  return written ? 0 : -1;""",
    ),
    (
        "binders/nvrtc/keops_nvrtc.cpp",
        "#include <fstream>\n#include <iostream>\n",
        "#include <stdexcept>\n#include <string>\n",
    ),
    ("binders/nvrtc/keops_nvrtc.cpp", "#include <sstream>\n", ""),
    (
        "binders/nvrtc/keops_nvrtc.cpp",
        """    std::ifstream rf(target_file_name, std::ifstream::binary);
    signed long int targetSize;
    rf.read((char *)&targetSize, sizeof(signed long int));
    target = new char[targetSize];
    rf.read(target, targetSize);
    rf.close();""",
        """    FILE *rf = fopen(target_file_name, "rb");
    signed long int targetSize = 0;
    if (!rf || fread(&targetSize, sizeof(signed long int), 1, rf) != 1 ||
        targetSize <= 0) {
      if (rf)
        fclose(rf);
      throw std::runtime_error(std::string("[KeOps] cannot read ") +
                               target_file_name);
    }
    target = new char[targetSize];
    const bool complete = fread(target, 1, targetSize, rf) == (size_t)targetSize;
    fclose(rf);
    if (!complete)
      throw std::runtime_error(std::string("[KeOps] truncated ") +
                               target_file_name);""",
    ),
]

_WRAPPER = '''#!{python}
# Written by perf/keops_reference.py: compiles KeOps' nvrtc helpers from the copies without
# C++ streams beside this file; passes every other call to {real}.
import os, sys
here, real = {here!r}, {real!r}
args, helper = [], False
for a in sys.argv[1:]:
    if a.endswith(os.path.join("binders", "nvrtc", "nvrtc_jit.cpp")):
        a, helper = os.path.join(here, "binders", "nvrtc", "nvrtc_jit.cpp"), True
    elif a.endswith(os.path.join("keops_io", "pykeops_nvrtc.cpp")):
        helper = True
    args.append(a)
os.execvp(real, [real] + (["-I" + here] if helper else []) + args)
'''


def fail(message):
    """Exit 1 with a message on stderr (the benchmark shows the last line)."""
    print(f"keops_reference.py: {message}", file=sys.stderr)
    sys.exit(1)


def find_cuda():
    """The CUDA toolkit root holding include/cuda.h and include/nvrtc.h, or None."""
    candidates = [os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME")]
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    candidates.append("/usr/local/cuda")
    for root in filter(None, candidates):
        include = os.path.join(root, "include")
        if all(os.path.isfile(os.path.join(include, h)) for h in ("cuda.h", "nvrtc.h")):
            return root
    return None


def loadable(name):
    """Whether ctypes finds and loads lib<name> the way KeOps looks for it."""
    found = ctypes.util.find_library(name)
    try:
        return found is not None and ctypes.CDLL(found) is not None
    except OSError:
        return False


def setup_cuda():
    """CUDA_PATH for KeOps' nvrtc path and, when ctypes cannot find and load libnvrtc and
    libcudart as they are, the toolkit's library folders in LD_LIBRARY_PATH: the script then
    re-executes itself once (the loader reads LD_LIBRARY_PATH at start-up only)."""
    root = find_cuda()
    if root is None:
        fail("no CUDA toolkit with include/cuda.h and include/nvrtc.h: set CUDA_PATH")
    os.environ["CUDA_PATH"] = root
    if all(loadable(name) for name in ("nvrtc", "cudart")):
        return
    if os.environ.get("TESSERA_KEOPS_REEXEC") == "1":
        fail(f"libnvrtc or libcudart of {root} cannot be loaded (LD_LIBRARY_PATH="
             f"{os.environ.get('LD_LIBRARY_PATH', '')})")
    libs = [
        d
        for d in (os.path.join(root, "lib64"), os.path.join(root, "targets", "x86_64-linux", "lib"))
        if os.path.isdir(d)
    ]
    present = [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p]
    os.environ["LD_LIBRARY_PATH"] = os.pathsep.join(libs + present)
    os.environ["TESSERA_KEOPS_REEXEC"] = "1"
    os.execv(sys.executable, [sys.executable] + sys.argv)


def write_no_streams_helpers(keopscore_dir, target):
    """Copies keopscore's include/ and binders/nvrtc/ to `target` with _NO_STREAMS applied and
    writes the compiler wrapper target/cxx; returns its path."""
    for sub in ("include", os.path.join("binders", "nvrtc")):
        shutil.copytree(
            os.path.join(keopscore_dir, sub), os.path.join(target, sub), dirs_exist_ok=True
        )
    texts = {}
    for name, old, new in _NO_STREAMS:
        if name not in texts:
            with open(os.path.join(keopscore_dir, name), encoding="utf-8") as f:
                texts[name] = f.read()
        count = texts[name].count(old)
        if count != 1:
            fail(
                f"keopscore's {name} is not the 2.3 source this script patches ({count} matches "
                f"of: {old.splitlines()[0].strip()}); set TESSERA_KEOPS_STREAMS=1 to build "
                "KeOps' own helpers"
            )
        texts[name] = texts[name].replace(old, new)
    for name, text in texts.items():
        with open(os.path.join(target, name), "w", encoding="utf-8") as f:
            f.write(text)
    wrapper = os.path.join(target, "cxx")
    real = os.environ.get("CXX") or ""
    if not real or os.path.realpath(shutil.which(real) or real) == os.path.realpath(wrapper):
        real = shutil.which("g++") or "g++"  # never the wrapper itself (an exported CXX)
    with open(wrapper, "w", encoding="utf-8") as f:
        f.write(_WRAPPER.format(python=sys.executable, here=target, real=real))
    os.chmod(wrapper, 0o755)
    return wrapper


def setup_keops(device, cache):
    """Everything KeOps needs before pykeops is imported (see the module docstring); exits 77
    when pykeops is not installed."""
    spec = importlib.util.find_spec("keopscore")
    if spec is None or importlib.util.find_spec("pykeops") is None:
        print("pykeops is not installed", file=sys.stderr)
        sys.exit(SKIP)
    streams = os.environ.get("TESSERA_KEOPS_STREAMS") == "1"
    variant = "streams" if streams else "nostreams"
    if "KEOPS_CACHE_FOLDER" not in os.environ:
        os.environ["KEOPS_CACHE_FOLDER"] = os.path.join(
            cache or f"/tmp/tessera-keops-{os.getuid()}", variant
        )
    os.makedirs(os.environ["KEOPS_CACHE_FOLDER"], exist_ok=True)
    if device == "cuda":
        setup_cuda()
        if not streams:
            target = os.path.join(os.environ["KEOPS_CACHE_FOLDER"], "nostreams_src")
            os.environ["CXX"] = write_no_streams_helpers(spec.submodule_search_locations[0], target)


def main():
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=["float32", "float16"], default="float32")
    p.add_argument("--cache", help="KeOps' cache folder (default /tmp/tessera-keops-<uid>)")
    args = p.parse_args()
    check_arguments(p, args)
    faulthandler.enable()
    device = device_or_skip(args.device)
    if device.type == "cpu" and args.dtype == "float16":
        print("KeOps computes in float16 on GPUs only", file=sys.stderr)
        sys.exit(SKIP)
    setup_keops(args.device, args.cache)
    import torch

    try:
        import pykeops
        from pykeops.torch import LazyTensor
    except ImportError as error:  # installed (setup_keops checked) but broken
        fail(f"pykeops cannot be imported: {error}")
    if device.type == "cuda" and not pykeops.config.gpu_available:
        fail("pykeops found no usable CUDA (its warnings above say why)")
    m, n = args.size
    dtype = getattr(torch, args.dtype)
    try:
        x, y, b = problem(args.dim, args.width, m, n, device, args.kind == "sum")
        x, y = x.to(dtype), y.to(dtype)
        x_i, y_j = LazyTensor(x[:, None, :]), LazyTensor(y[None, :, :])
        d2 = ((x_i - y_j) ** 2).sum(-1)
        if args.kind == "sum":
            k = (-d2 / (2 * args.sigma**2)).exp()
            b_j = LazyTensor(b.to(dtype)[None, :, :])
            acc = {"dtype_acc": "float32"} if dtype == torch.float16 else {}
            run = lambda: (k * b_j).sum(dim=1, **acc)  # k @ b, with the accumulator's type
        else:
            run = lambda: d2.argKmin(args.width, dim=1)
        seconds = median_seconds(run, device, args.seconds, 1)
    except Exception as error:  # the benchmark shows the last line
        fail(f"{type(error).__name__}: {error}")
    report(m, n, seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
