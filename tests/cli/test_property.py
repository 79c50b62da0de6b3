"""Random option combinations of snap-train on a9a never exit 0 with a model worse
than a trivial one (issue 36; docs/reliability.md, "Random options").

Each run draws snap-train's options at random (solver type, loss and penalty,
cost, tolerance, iterations, intercept, class weights, threads and their
updates, seeds, the binary format, streaming under --max-memory, a checkpoint,
--test) and checks:
  - it ends (no hang) with exit 0, 1, 2 or 3 and, unless 0, a message on stderr;
  - exit 0 leaves a model that snap-predict reads and that, unless the run warned
    that it stopped before --tol was met (--max-iter; LIBLINEAR's behaviour, and
    the warning is how a script learns it), scores on a9a.t at least as well as
    predicting the majority class (76.4 % accuracy), or, with class weights, a
    balanced accuracy of at least 0.5 (a model weighted towards the small class
    trades accuracy for recall, legitimately).
The draws are seeded (SNAPML_PROPERTY_SEED, default 36; SNAPML_PROPERTY_RUNS,
default 80): a failure prints the command line that broke the property. About half a
minute on two cores.
"""
import os
import random
import subprocess

from conftest import check, dataset, ok, read_lines, snap, tool_path

MAJORITY = 0.7637  # a9a.t: 12435 of 16281 rows are -1


def draw(rng, paths, scratch, run):
    """One command line's options and the training file."""
    kind = rng.choice(["type", "type", "type", "loss"])
    args = []
    l1 = False
    if kind == "type":
        solver_type = rng.choice([0, 1, 2, 3, 5, 6, 7])
        args += ["-s", solver_type]
        l1 = solver_type in (5, 6)
    else:
        loss = rng.choice(["logistic", "hinge", "squared_hinge", "multinomial"])
        args += ["--loss", loss]
        if loss in ("logistic", "squared_hinge") and rng.random() < 0.3:
            args += ["--penalty", "l1"]
            l1 = True
    if l1 and rng.random() < 0.4:
        args += ["--l1-ratio", rng.choice([0.0, 0.3, 0.7, 1.0])]
    primal = kind == "type" and args[1] in (0, 2)
    if not l1 and rng.random() < 0.4:
        choice = rng.choice(["dual", "primal", "auto"])
        args += ["--solver", choice]
        primal = choice == "primal"
    args += ["-c", 2.0 ** rng.uniform(-6, 6)]
    args += ["-e", rng.choice([1e-1, 1e-2, 1e-3, 1e-4])]
    if rng.random() < 0.5:
        args += ["--max-iter", rng.choice([1, 3, 10, 100, 300])]
    if rng.random() < 0.5:
        args += ["-B", rng.choice([-1, 0.5, 1, 10])]
    weighted = False
    if rng.random() < 0.25:
        args += ["-w1", rng.choice([0.2, 2.0, 5.0]), "-w-1", rng.choice([0.5, 1.0, 3.0])]
        weighted = True
    elif rng.random() < 0.15:
        args += ["--class-weight", "balanced"]
        weighted = True
    args += ["-n", rng.choice([1, 2, 4])]
    # Mostly where SDCA runs (elsewhere it is refused, which a few draws check).
    if rng.random() < (0.3 if not (l1 or primal) else 0.03):
        args += ["--thread-updates", rng.choice(["auto", "shared", "replicas"])]
    if rng.random() < 0.2:
        args += ["--no-shrinking"]
    args += ["--seed", rng.randrange(2**32)]
    training = rng.choice([paths["text"], paths["text"], paths["snap"], paths["chunked"]])
    if training == paths["chunked"] and rng.random() < 0.6:
        args += ["--max-memory", rng.choice(["3MB", "8MB", "64MB"])]  # streams below the file's 4 MB
    if rng.random() < 0.2:
        args += ["--checkpoint", os.path.join(scratch, f"ck{run}"), "--checkpoint-interval", rng.choice([0, 60])]
    if rng.random() < 0.2:
        args += ["--test", paths["test"]]
    return [str(a) for a in args], training, weighted


def scores(truth, predicted):
    accuracy = sum(t == p for t, p in zip(truth, predicted)) / len(truth)
    recalls = []
    for label in (-1.0, 1.0):
        rows = [p for t, p in zip(truth, predicted) if t == label]
        recalls.append(sum(p == label for p in rows) / len(rows))
    return accuracy, sum(recalls) / 2


def test_random_options(scratch):
    a9a, a9a_t = dataset("a9a"), dataset("a9a.t")
    paths = {"text": a9a, "test": a9a_t, "snap": os.path.join(scratch, "a9a.snap"),
             "chunked": os.path.join(scratch, "a9a_chunked.snap")}
    ok(snap("convert", a9a, paths["snap"]))
    ok(snap("convert", "--chunk-rows", "2000", a9a, paths["chunked"]))
    with open(a9a_t) as f:
        truth = [float(line.split(None, 1)[0]) for line in f if line.strip()]
    seed = int(os.environ.get("SNAPML_PROPERTY_SEED", "36"))
    runs = int(os.environ.get("SNAPML_PROPERTY_RUNS", "80"))
    rng = random.Random(seed)
    exits = {}
    unconverged = 0
    for run in range(runs):
        args, training, weighted = draw(rng, paths, scratch, run)
        model = os.path.join(scratch, f"m{run}")
        command = [tool_path("snap-train"), *args, training, model]
        shown = " ".join(command)
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"run {run} (seed {seed}) did not end within 120 s: {shown}")
        exits[result.returncode] = exits.get(result.returncode, 0) + 1
        check(result.returncode in (0, 1, 2, 3), f"run {run}: exit {result.returncode}: {shown}\n{result.stderr}")
        if result.returncode != 0:
            check(result.stderr.strip() != "", f"run {run}: exit {result.returncode} without a message: {shown}")
            check(not os.path.exists(model), f"run {run}: a refused run wrote a model: {shown}")
            continue
        out = os.path.join(scratch, f"p{run}")
        predicted = ok(snap("predict", "-q", a9a_t, model, out))
        check(predicted.returncode == 0, f"run {run}: snap-predict failed on the model of {shown}")
        accuracy, balanced = scores(truth, [float(v) for v in read_lines(out)])
        if "stopped at --max-iter" in result.stderr:
            unconverged += 1  # said so: the model is what --max-iter allowed
        elif weighted:
            check(balanced >= 0.5, f"run {run}: balanced accuracy {balanced:.4f} < 0.5: {shown}")
        else:
            check(accuracy >= MAJORITY, f"run {run}: accuracy {accuracy:.4f} below the majority class's "
                                        f"{MAJORITY}: {shown}")
        os.unlink(model)
    print(f"seed {seed}, {runs} runs, exit codes {dict(sorted(exits.items()))}, {unconverged} stopped before --tol "
          "and said so")
    check(exits.get(0, 0) >= runs // 2, f"fewer than half the runs trained: {exits}")

