"""What the command-line (tests/cli), MPI (tests/mpi) and Python (tests/python)
tests share: where the datasets, the tools and mpirun are, scratch directories,
and the checks of a tool's exit code and message.

- Datasets: ../shared/datasets from the checkout root, or SNAPML_DATA_DIR.
- Tools (snap-train, snap-criteo-gen, mpi_kill_probe, ...): SNAPML_TOOL_<NAME>
  (ctest sets it to the target it built, tests/CMakeLists.txt), else on PATH
  (installed with the Python package), else in a build*/ folder of the checkout.
- mpirun: SNAPML_MPIRUN (a command line; ctest sets CMake's MPIEXEC), else on
  PATH; always with --oversubscribe (K ranks share this machine's cores) and the
  variables that let OpenMPI run as root (CI runs as root).
A missing dataset, tool or mpirun skips its test, or fails it under CI=true.
"""

import os
import pathlib
import shlex
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
DATA_DIR = pathlib.Path(os.environ.get("SNAPML_DATA_DIR", REPO.parent / "shared" / "datasets"))
DATASETS = ["heart_scale", "a9a", "a9a.t", "w8a", "mushrooms", "news20.multiclass"]
# Set by an MPI launcher in its ranks: a test's own child must not believe it is one.
LAUNCHER_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_NTASKS")
# Where a build tree keeps each tool that is not installed with the package.
_BUILD_FOLDERS = ("snapml/cli", "datasets", "tests/cli", "tests/mpi")


def skip_or_fail(message):
    """Skips the test, or fails it under CI=true (where nothing may be missing)."""
    __tracebackhide__ = True
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


# ---- datasets ----------------------------------------------------------------

def dataset_path(name):
    """The path of a shared dataset; skips (fails under CI=true) when it is missing."""
    path = DATA_DIR / name
    if not path.exists():
        skip_or_fail(f"dataset {name} not found in {DATA_DIR} (set SNAPML_DATA_DIR)")
    return path


def dataset(name):
    """dataset_path(name) as a str: a tool's argument, a fragment of its message."""
    return str(dataset_path(name))


_cache = {}


def load_dataset(name, n_features=None):
    """(X, y) of a shared dataset read by scikit-learn's loader, cached per session."""
    from sklearn.datasets import load_svmlight_file

    key = (name, n_features)
    if key not in _cache:
        _cache[key] = load_svmlight_file(str(dataset_path(name)), n_features=n_features)
    return _cache[key]


def int32_indices(X):
    """A CSR copy with 32-bit indices: scikit-learn's liblinear and saga accept no
    other, and its svmlight loader may give 64-bit ones."""
    import numpy as np

    X = X.tocsr(copy=True)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


# ---- tools -------------------------------------------------------------------

def cli_tool(name):
    """The path of a built tool (SNAPML_TOOL_<NAME>, PATH, build*/), or None."""
    given = os.environ.get("SNAPML_TOOL_" + name.upper().replace("-", "_"))
    if given:
        return os.path.abspath(given)
    found = shutil.which(name)
    if found:
        return found
    for build in sorted(REPO.glob("build*")):
        for folder in _BUILD_FOLDERS:
            candidate = build / folder / name
            if candidate.exists():
                return str(candidate)
    return None


def tool_path(name):
    """cli_tool(name); skips (fails under CI=true) when the tool is not built."""
    path = cli_tool(name)
    if path is None:
        skip_or_fail(f"{name} not found: build it (cmake --build build --target {name}) or set "
                     f"SNAPML_TOOL_{name.upper().replace('-', '_')}")
    return path


def run(program, *args, cwd=None, timeout=300, env=None):
    """Runs a program with text output captured; `env` adds to the environment.
    The result also carries the wall-clock `seconds` it took."""
    started = time.monotonic()
    result = subprocess.run([str(program), *map(str, args)], capture_output=True, text=True, timeout=timeout,
                            cwd=cwd, env=None if env is None else {**os.environ, **env})
    result.seconds = time.monotonic() - started
    return result


def snap(tool, *args, **kwargs):
    """run() of snap-<tool>: snap("train", ...), snap("predict", ...), snap("convert", ...)."""
    return run(tool_path(f"snap-{tool}"), *args, **kwargs)


def libgomp_spin_counts(command, **env):
    """Runs `command` with OMP_DISPLAY_ENV=verbose and without GOMP_SPINCOUNT and
    OMP_WAIT_POLICY unless `env` sets them: GOMP_SPINCOUNT as each libgomp start
    showed it (a tool that restarts itself shows two), and the run's result."""
    environment = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    environment.update(env, OMP_DISPLAY_ENV="verbose")
    result = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=60)
    shown = [line.split("=", 1)[1].strip().strip("'") for line in result.stderr.splitlines()
             if line.strip().startswith("GOMP_SPINCOUNT")]
    return shown, result


# ---- mpirun ------------------------------------------------------------------

def mpirun_command():
    """mpirun and its options, without -n; skips (fails under CI=true) without it."""
    given = os.environ.get("SNAPML_MPIRUN")
    command = shlex.split(given) if given else [shutil.which("mpirun")]
    if command[0] is None:
        skip_or_fail("mpirun not found (apt-get install openmpi-bin libopenmpi-dev)")
    if "--oversubscribe" not in command:
        command.insert(1, "--oversubscribe")
    return command


def mpirun_env(**extra):
    """The environment of an mpirun child: root allowed, passive OpenMP waiting (the
    ranks share two cores), the datasets' folder, no launcher variables of ours."""
    env = {k: v for k, v in os.environ.items() if k not in LAUNCHER_VARIABLES}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_WAIT_POLICY="passive",
               SNAPML_DATA_DIR=str(DATA_DIR), **extra)
    return env


def mpirun(ranks, *args, timeout=120, env=None):
    """run() of `mpirun -n ranks args...` (args may hold ':' and further -n for MPMD)."""
    started = time.monotonic()
    result = subprocess.run([*mpirun_command(), "-n", str(ranks), *map(str, args)], capture_output=True, text=True,
                            timeout=timeout, env=mpirun_env(**(env or {})))
    result.seconds = time.monotonic() - started
    return result


# ---- checks of a tool's run --------------------------------------------------

def check(condition, message):
    """assert, with the message built by the caller (a tool's output, a command line)."""
    __tracebackhide__ = True
    if not condition:
        raise AssertionError(message)


def expect_exit(result, code, *fragments, stream="stderr"):
    """The run exited with `code` and its `stream` holds every fragment."""
    __tracebackhide__ = True
    text = getattr(result, stream)
    check(result.returncode == code,
          f"exit {result.returncode}, expected {code}\nstdout: {result.stdout}\nstderr: {result.stderr}")
    for fragment in fragments:
        check(fragment in text, f"{fragment!r} not in {stream}: {text!r}")
    return result


def ok(result):
    """The run exited 0."""
    __tracebackhide__ = True
    return expect_exit(result, 0, stream="stdout")


# ---- files -------------------------------------------------------------------

def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def read_lines(path):
    with open(path) as f:
        return f.read().splitlines()


# ---- fixtures ----------------------------------------------------------------

@pytest.fixture
def scratch():
    """An empty directory (a str), removed after the test: tests/cli's large
    generated files must not pile up as pytest's tmp_path keeps its last runs."""
    with tempfile.TemporaryDirectory(prefix="snapml-test-") as path:
        yield path


@pytest.fixture
def ctrl_c_handled():
    """Python's Ctrl-C handler on SIGINT for the test, the previous one after it:
    a shell starts a job in the background without job control with SIGINT
    ignored, and Python then leaves it ignored, so a test that interrupts a fit
    with SIGINT would see no KeyboardInterrupt however the fit checks for one."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
