"""snap-train's GPU options on any machine: --gpu trains on a GPU or fails clearly
(exit 1, nothing saved), --max-gpu-memory, and the CPU tools' independence of the
CUDA libraries (the GPU backend is a plugin). Run by ctest as cli.snap_train.gpu,
cli.snap_train.gpu_plugin, and cli.snap_train.gpu_find_C (registered by
tests/gpu: over the emulated CUDA runtime's plugin, SNAPML_GPU_BACKEND)."""

import os
import re
import shutil

import pytest

from conftest import check, dataset, expect_exit, run, snap, tool_path


def test_gpu(scratch):
    heart = dataset("heart_scale")
    model = os.path.join(scratch, "m")
    result = snap("train", "--gpu", "-n", "1", heart, model)
    has_gpu = shutil.which("nvidia-smi") and run("nvidia-smi", "-L").returncode == 0
    if result.returncode == 0:
        check(has_gpu, "--gpu succeeded on a machine without a visible GPU: a silent CPU run")
    else:
        check(result.returncode == 1, f"--gpu failed with exit {result.returncode}: {result.stderr}")
        check(re.search(r"CUDA|GPU", result.stderr), f"unclear --gpu error: {result.stderr!r}")
        check(not os.path.exists(model), "a failed --gpu run saved a model")
    expect_exit(snap("train", "--devices", "0", heart, model), 1, "--gpu")
    # The hinge loss (-s 3) trains by dual coordinate ascent only, and the
    # GPU dual solver has not passed a device run: refused before any device is
    # touched, on any machine, naming the CPU solver (snapml/solver_factory.h).
    for solver in ("3",):
        hinge = snap("train", "--gpu", "-s", solver, heart, model)
        check(hinge.returncode == 1, f"--gpu -s {solver}: exit {hinge.returncode}: {hinge.stderr}")
        check("hinge loss trains by dual coordinate ascent only" in hinge.stderr and "on the CPU" in hinge.stderr,
              f"unclear --gpu -s {solver} refusal: {hinge.stderr!r}")
        check(not os.path.exists(model), "a refused --gpu run saved a model")
    # The dual logistic (-s 7) on the GPU trains by the Newton solver there
    # (the same problem), or fails as --gpu alone does without a GPU.
    dual = snap("train", "--gpu", "-s", "7", "-n", "1", heart, model)
    check(dual.returncode == result.returncode, f"--gpu -s 7: exit {dual.returncode}: {dual.stderr}")
    # A GPU memory budget the data fits trains as --gpu alone does (or fails as it
    # does, without a GPU); one too small even to stream it is refused (exit 1).
    budget_model = os.path.join(scratch, "budget.model")
    fits = snap("train", "--gpu", "--max-gpu-memory", "1G", "-n", "1", heart, budget_model)
    check(fits.returncode == result.returncode, f"--max-gpu-memory 1G: exit {fits.returncode}: {fits.stderr}")
    tiny = snap("train", "--gpu", "--max-gpu-memory", "1k", heart, os.path.join(scratch, "tiny.model"))
    check(tiny.returncode == 1, f"--max-gpu-memory 1k: exit {tiny.returncode}")
    if result.returncode == 0:
        check("too small to stream" in tiny.stderr and "snap-convert --chunk-rows" in tiny.stderr,
              f"unclear --max-gpu-memory error: {tiny.stderr!r}")


def test_gpu_plugin(scratch):
    """The CPU tools do not link the CUDA libraries: the GPU backend is a plugin
    loaded on the first GPU request (snapml/impl/gpu_backend.h), and a missing plugin
    is an error naming where it was looked for."""
    for tool in ("train", "predict", "convert"):
        libraries = run("ldd", tool_path(f"snap-{tool}")).stdout
        for cuda in ("libcudart", "libcublas", "libcusparse"):
            check(cuda not in libraries, f"snap-{tool} links {cuda}: {libraries}")
    heart = dataset("heart_scale")
    model = os.path.join(scratch, "m")
    missing = "/no/such/dir/libsnapml_gpu.so"
    result = snap("train", "--gpu", heart, model, env={"SNAPML_GPU_BACKEND": missing})
    check(result.returncode == 1, f"--gpu without its plugin: exit {result.returncode}: {result.stderr}")
    check(missing in result.stderr or "no CUDA backend" in result.stderr,
          f"--gpu without its plugin does not say where it looked: {result.stderr!r}")
    check(not os.path.exists(model), "a failed --gpu run saved a model")



def test_gpu_find_C(scratch):
    """`-C --gpu` searches C on the GPU, each fold's rows uploaded once for the whole
    path: every C's line and the CPU search's best C. Every search crashed at its
    second C (the kept folds' rows moved as their vector grew; device run of
    2026-11-27). Over the emulated runtime here, a GPU where there is one."""
    if not os.environ.get("SNAPML_GPU_BACKEND"):
        pytest.skip("no GPU plugin named (ctest names the emulated one where CUDA was found)")
    heart = dataset("heart_scale")
    gpu = snap("train", "-s", "0", "-C", "--gpu", "-n", "1", heart)
    check(gpu.returncode == 0, f"-C --gpu: exit {gpu.returncode}: {gpu.stderr}")
    cpu = snap("train", "-s", "0", "-C", "-n", "1", heart)
    check(cpu.returncode == 0, f"-C: exit {cpu.returncode}: {cpu.stderr}")
    lines = [re.findall(r"log2c=\s*(\S+)", r.stdout) for r in (gpu, cpu)]
    check(len(lines[0]) > 2 and lines[0] == lines[1], f"the Cs tried differ: GPU {lines[0]}, CPU {lines[1]}")
    best = [re.search(r"Best C = (\S+)", r.stdout) for r in (gpu, cpu)]
    check(best[0] and best[1] and best[0].group(1) == best[1].group(1),
          f"best C: GPU {gpu.stdout[-200:]!r}, CPU {cpu.stdout[-200:]!r}")
