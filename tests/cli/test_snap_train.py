"""End-to-end tests of snap-train and snap-predict, against LIBLINEAR's own tools.

One ctest test per test function (tests/cli/CMakeLists.txt); tests/conftest.py
finds the tools and the datasets. A missing shared dataset or a missing
liblinear-train / liblinear-predict (Debian liblinear-tools) skips the test
unless CI=true, where it fails. Every training run uses at most two threads
(-n 2), so the whole file stays within about two minutes on two cores.
"""
import csv
import os
import pty
import random
import re
import select
import shutil
import subprocess

from conftest import check, dataset, expect_exit, ok, read_lines, run, skip_or_fail, snap, tool_path, write


def liblinear(tool, *args):
    program = shutil.which(f"liblinear-{tool}")
    if program is None:
        skip_or_fail(f"liblinear-{tool} not found (apt-get install liblinear-tools)")
    result = run(program, *args)
    check(result.returncode == 0, f"liblinear-{tool} {args} failed: {result.stdout} {result.stderr}")
    return result


def accuracy_of(output):
    """The percentage in LIBLINEAR's 'Accuracy = 84.9886% (13837/16281)' line (or
    snap-train's 'Test accuracy = ...')."""
    match = re.search(r"[Aa]ccuracy = ([0-9.]+)% \((\d+)/(\d+)\)", output)
    check(match is not None, f"no accuracy line in {output!r}")
    return float(match.group(1))


def split(path, scratch, name, test_fraction, seed=0):
    """A seeded random train/test split of an svmlight file (the shared sets' rows are
    ordered by label, so taking every k-th row would not be random)."""
    generator = random.Random(seed)
    train, test = os.path.join(scratch, name + ".train"), os.path.join(scratch, name + ".test")
    with open(path) as source, open(train, "w") as a, open(test, "w") as b:
        for line in source:
            (b if generator.random() < test_fraction else a).write(line)
    return train, test


def regression_file(scratch, rows=400, features=8, seed=3):
    """y = w.x + 2 + small noise: a regression set with a known, nearly exact fit."""
    generator = random.Random(seed)
    weights = [generator.gauss(0, 1) for _ in range(features)]
    lines = []
    for _ in range(rows):
        x = [generator.gauss(0, 1) for _ in range(features)]
        y = sum(w * v for w, v in zip(weights, x)) + 2 + 0.1 * generator.gauss(0, 1)
        lines.append(f"{y:.6f} " + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(x)))
    return write(os.path.join(scratch, "regression.svm"), "\n".join(lines) + "\n")


def three_class_file(scratch, rows=300, seed=5):
    """Three separable-ish classes whose labels first appear in the order 3, 1, 2, so
    LIBLINEAR's label order (first seen) differs from the sorted one."""
    generator = random.Random(seed)
    centres = {3: (2, 0), 1: (0, 2), 2: (-2, -2)}
    lines = []
    for i in range(rows):
        label = (3, 1, 2)[i % 3]
        cx, cy = centres[label]
        lines.append(f"{label} 1:{cx + generator.gauss(0, 1):.5f} 2:{cy + generator.gauss(0, 1):.5f}")
    return write(os.path.join(scratch, "three.svm"), "\n".join(lines) + "\n")


def same_predictions(ours, theirs):
    """Equal prediction files: the same header and labels, and probabilities equal to
    the 6 digits %g prints up to the last digit (the sigmoid is rounded differently)."""
    mine, reference = read_lines(ours), read_lines(theirs)
    if len(mine) != len(reference):
        return False
    for a, b in zip(mine, reference):
        a, b = a.split(" "), b.split(" ")
        if len(a) != len(b) or a[0] != b[0]:
            return False
        if any(abs(float(x) - float(y)) > 1e-5 * max(abs(float(y)), 1e-3) for x, y in zip(a[1:], b[1:])):
            return False
    return True


def read_history(path):
    with open(path) as f:
        return list(csv.DictReader(f))


# ---- accuracy against LIBLINEAR ----------------------------------------------

def compare_with_liblinear(train_file, test_file, scratch, solver, tolerance_points):
    ours, theirs = os.path.join(scratch, "ours.model"), os.path.join(scratch, "theirs.model")
    ok(snap("train", "-s", solver, "-c", "1", "-n", "2", train_file, ours))
    ours_accuracy = accuracy_of(ok(snap("predict", test_file, ours, os.path.join(scratch, "ours.out"))).stdout)
    liblinear("train", "-q", "-s", solver, "-c", "1", train_file, theirs)
    theirs_accuracy = accuracy_of(liblinear("predict", test_file, theirs, os.path.join(scratch, "theirs.out")).stdout)
    print(f"{os.path.basename(train_file)} -s {solver}: snapml {ours_accuracy}%, LIBLINEAR {theirs_accuracy}%")
    check(abs(ours_accuracy - theirs_accuracy) <= tolerance_points,
          f"-s {solver}: snapml {ours_accuracy}% vs LIBLINEAR {theirs_accuracy}%, more than {tolerance_points} apart")


def test_a9a(scratch):
    compare_with_liblinear(dataset("a9a"), dataset("a9a.t"), scratch, "7", 0.2)


def test_w8a_mushrooms(scratch):
    train, test = split(dataset("w8a"), scratch, "w8a", 0.25)
    compare_with_liblinear(train, test, scratch, "3", 0.2)
    train, test = split(dataset("mushrooms"), scratch, "mushrooms", 0.25)  # labels 1 and 2
    compare_with_liblinear(train, test, scratch, "1", 0.2)


def test_news20(scratch):
    # LIBLINEAR -s 7 needs several minutes on news20 here, so the bar is fixed:
    # one-vs-rest logistic regression scores about 83% on a random 20% hold-out.
    train, test = split(dataset("news20.multiclass"), scratch, "news20", 0.2)
    model = os.path.join(scratch, "news20.model")
    result = ok(snap("train", "-s", "7", "-e", "0.01", "-n", "2", "--test", test, train, model))
    check("20 problems (one-vs-rest)" in result.stdout, result.stdout)
    check(accuracy_of(result.stdout) >= 80.0, f"news20 one-vs-rest accuracy too low: {result.stdout}")
    check("Test log loss = " in result.stdout and "Test AUC" not in result.stdout, result.stdout)


# ---- options -----------------------------------------------------------------

def test_cross_validation(scratch):
    a9a = dataset("a9a")
    ours = expect_exit(snap("train", "-s", "7", "-v", "5", "-n", "2", "-q", a9a, cwd=scratch), 0,
                       "Cross Validation Accuracy = ", stream="stdout").stdout
    theirs = liblinear("train", "-s", "7", "-v", "5", "-q", a9a).stdout
    value = lambda text: float(re.search(r"Cross Validation Accuracy = ([0-9.]+)%", text).group(1))
    check(abs(value(ours) - value(theirs)) <= 0.5, f"cross validation: {ours!r} vs LIBLINEAR {theirs!r}")
    check(os.listdir(scratch) == [], "-v saved a model")
    regression = regression_file(scratch)
    text = ok(snap("train", "-s", "12", "-B", "1", "-v", "4", "-n", "1", regression)).stdout
    mse = float(re.search(r"Cross Validation Mean squared error = ([0-9.e+-]+)", text).group(1))
    check(mse < 0.1, text)
    check(re.search(r"Cross Validation Squared correlation coefficient = 0\.99", text), text)
    expect_exit(snap("train", "-v", "1", regression), 1, "-v")
    expect_exit(snap("train", "-v", "3", "--test", regression, regression), 1, "excludes")
    expect_exit(snap("train", "-v", "3", regression, os.path.join(scratch, "m")), 1, "saves no model")


def test_probability_output(scratch):
    heart = dataset("heart_scale")
    ours, theirs = os.path.join(scratch, "ours.model"), os.path.join(scratch, "theirs.model")
    ok(snap("train", "-s", "0", "-B", "1", "-n", "1", heart, ours))
    liblinear("train", "-q", "-s", "0", "-B", "1", heart, theirs)
    ours_out, theirs_out = os.path.join(scratch, "ours.out"), os.path.join(scratch, "theirs.out")
    ok(snap("predict", "-b", "1", heart, ours, ours_out))
    liblinear("predict", "-b", "1", heart, theirs, theirs_out)
    ours_lines, theirs_lines = read_lines(ours_out), read_lines(theirs_out)
    check(ours_lines[0] == theirs_lines[0] == "labels 1 -1", f"headers {ours_lines[0]!r} / {theirs_lines[0]!r}")
    check(len(ours_lines) == len(theirs_lines) == 271, "one line per row after the header")
    disagreements = 0
    for mine, reference in zip(ours_lines[1:], theirs_lines[1:]):
        label, p1, p2 = mine.split(" ")
        check(abs(float(p1) + float(p2) - 1) < 1e-5, f"probabilities do not sum to 1: {mine!r}")
        check(label == ("1" if float(p1) > 0.5 else "-1"), f"label disagrees with its probabilities: {mine!r}")
        disagreements += label != reference.split(" ")[0]
    check(disagreements <= 3, f"{disagreements} labels differ from LIBLINEAR's")
    # Non-logistic models have no probabilities, as in LIBLINEAR.
    hinge = os.path.join(scratch, "hinge.model")
    ok(snap("train", "-s", "3", "-n", "1", heart, hinge))
    expect_exit(snap("predict", "-b", "1", heart, hinge, ours_out), 1, "only supported for logistic regression")
    expect_exit(snap("predict", "-b", "2", heart, hinge, ours_out), 1, "-b")


def test_model_format_liblinear(scratch):
    # Our model in LIBLINEAR's format: liblinear-predict gives our predictions.
    a9a, a9a_t = dataset("a9a"), dataset("a9a.t")
    model = os.path.join(scratch, "a9a.liblinear")
    ok(snap("train", "-s", "7", "-B", "1", "-n", "2", "--model-format", "liblinear", a9a, model))
    check(read_lines(model)[0] == "solver_type L2R_LR_DUAL", "not LIBLINEAR's model format")
    for flags in ([], ["-b", "1"]):
        ours, theirs = os.path.join(scratch, "ours.out"), os.path.join(scratch, "theirs.out")
        ours_accuracy = accuracy_of(ok(snap("predict", *flags, a9a_t, model, ours)).stdout)
        theirs_accuracy = accuracy_of(liblinear("predict", *flags, a9a_t, model, theirs).stdout)
        check(ours_accuracy == theirs_accuracy, f"{flags}: {ours_accuracy} vs {theirs_accuracy}")
        check(same_predictions(ours, theirs), f"{flags}: snap-predict and liblinear-predict outputs differ")
    # A multiclass model keeps its classes' order through LIBLINEAR's format too.
    three = three_class_file(scratch)
    model = os.path.join(scratch, "three.liblinear")
    ok(snap("train", "-s", "0", "-B", "1", "-n", "1", "--model-format", "liblinear", three, model))
    # Named by the solver -s asked for, as LIBLINEAR's (-s 0: L2R_LR, not the dual's name).
    theirs_model = os.path.join(scratch, "three.theirs")
    liblinear("train", "-q", "-s", "0", "-B", "1", three, theirs_model)
    check(read_lines(model)[0] == read_lines(theirs_model)[0] == "solver_type L2R_LR", read_lines(model)[0])
    ours, theirs = os.path.join(scratch, "ours.out"), os.path.join(scratch, "theirs.out")
    ok(snap("predict", "-b", "1", three, model, ours))
    liblinear("predict", "-b", "1", three, model, theirs)
    check(same_predictions(ours, theirs), "multiclass -b 1 outputs differ")


def test_liblinear_model_input(scratch):
    # LIBLINEAR's models: snap-predict predicts exactly what liblinear-predict does.
    a9a, a9a_t = dataset("a9a"), dataset("a9a.t")
    three = three_class_file(scratch)
    for train_file, test_file, args in ((a9a, a9a_t, ["-s", "7"]), (a9a, a9a_t, ["-s", "1", "-B", "1"]),
                                        (three, three, ["-s", "0"]), (three, three, ["-s", "3", "-B", "1"])):
        model = os.path.join(scratch, "theirs.model")
        liblinear("train", "-q", *args, train_file, model)
        flag_sets = ([], ["-b", "1"]) if args[1] in ("0", "7") else ([],)
        for flags in flag_sets:
            ours, theirs = os.path.join(scratch, "ours.out"), os.path.join(scratch, "theirs.out")
            ours_text = ok(snap("predict", *flags, test_file, model, ours)).stdout
            theirs_text = liblinear("predict", *flags, test_file, model, theirs).stdout
            check(ours_text == theirs_text, f"{args} {flags}: {ours_text!r} vs {theirs_text!r}")
            check(same_predictions(ours, theirs), f"{args} {flags}: prediction files differ")
    # The three-class file's labels first appear as 3, 1, 2: a LIBLINEAR model keeps
    # that order, and so does the probability header (checked equal above too).
    model = os.path.join(scratch, "theirs.model")
    liblinear("train", "-q", "-s", "0", three, model)
    ok(snap("predict", "-b", "1", three, model, ours))
    check(read_lines(ours)[0] == "labels 3 1 2", f"header {read_lines(ours)[0]!r}")
    # Labels of one value: liblinear-train writes nr_class 1 (one weight column) and
    # its predict gives that label everywhere, with probability 1.
    with open(a9a) as f:
        rows = [line.split(" ", 1)[1] for _, line in zip(range(300), f)]
    one = write(os.path.join(scratch, "one.svm"), "".join("-1 " + row for row in rows))
    for args in (["-s", "0"], ["-s", "7", "-B", "1"], ["-s", "1"], ["-s", "4"]):
        model = os.path.join(scratch, "one.model")
        liblinear("train", "-q", *args, one, model)
        for flags in ([], ["-b", "1"]) if args[1] in ("0", "7") else ([],):
            ours, theirs = os.path.join(scratch, "ours.out"), os.path.join(scratch, "theirs.out")
            ours_text = ok(snap("predict", *flags, a9a_t, model, ours)).stdout
            theirs_text = liblinear("predict", *flags, a9a_t, model, theirs).stdout
            check(ours_text == theirs_text, f"one class {args} {flags}: {ours_text!r} vs {theirs_text!r}")
            check(same_predictions(ours, theirs), f"one class {args} {flags}: prediction files differ")


def test_history(scratch):
    heart = dataset("heart_scale")
    history, model = os.path.join(scratch, "history.csv"), os.path.join(scratch, "m")
    result = ok(snap("train", "-s", "7", "-e", "0.01", "-n", "1", "--history", history, heart, model))
    rows = read_history(history)
    check(list(rows[0].keys()) == ["problem", "class", "epoch", "seconds", "primal", "dual", "gap", "relative_gap"],
          f"columns {list(rows[0].keys())}")
    # A row per epoch, each a certificate (--history certifies after every epoch,
    # not on certificate_schedule.h's schedule), in time order; the last the fit's.
    epochs = [int(r["epoch"]) for r in rows]
    check(epochs == list(range(1, len(rows) + 1)), f"rows at epochs {epochs}")
    check(f"snap-train: {epochs[-1]} epochs" in result.stdout, f"summary disagrees with history: {result.stdout}")
    seconds = [float(r["seconds"]) for r in rows]
    check(all(a <= b for a, b in zip(seconds, seconds[1:])), f"times out of order: {seconds}")
    check(all(r["problem"] == "0" and r["class"] == "1" for r in rows), "binary: problem 0 scores class 1")
    last = rows[-1]
    check(float(last["relative_gap"]) <= 0.01, f"final relative gap {last['relative_gap']} above -e 0.01")
    # The rows between the schedule's certificates are for the history alone: the
    # fit stops where it would without --history, with the same model.
    alone = os.path.join(scratch, "alone")
    ok(snap("train", "-s", "7", "-e", "0.01", "-n", "1", heart, alone))
    check(read_lines(alone) == read_lines(model), "--history changed the model")
    check(abs(float(last["primal"]) - float(last["dual"]) - float(last["gap"])) <= 1e-9 * float(last["primal"]),
          "gap is not primal - dual")
    # A tighter tol takes more epochs; one-vs-rest writes rows for every class.
    ok(snap("train", "-s", "7", "--tol", "0.0001", "-n", "1", "--history", history, heart, model))
    check(len(read_history(history)) > len(rows), "--tol 0.0001 did not take more epochs than -e 0.01")
    ok(snap("train", "-s", "0", "-n", "1", "--history", history, three_class_file(scratch), model))
    rows = read_history(history)
    check(sorted({(r["problem"], r["class"]) for r in rows}) == [("0", "1"), ("1", "2"), ("2", "3")],
          "one-vs-rest history names each problem's class")
    # -s 0 is the Newton solver: a row per iteration, the first (0) its start.
    for problem in "012":
        epochs = [int(r["epoch"]) for r in rows if r["problem"] == problem]
        check(epochs == list(range(len(epochs))), f"problem {problem}'s rows at iterations {epochs}")
    # --max-iter stops early, says so, and the history shows it.
    result = ok(snap("train", "-s", "7", "--max-iter", "2", "-n", "1", "--history", history, heart, model))
    check(len(read_history(history)) == 2, "--max-iter 2 ran more than 2 epochs")
    check("stopped at --max-iter 2" in result.stderr, result.stderr)
    quiet = ok(snap("train", "-q", "-s", "7", "--max-iter", "2", "-n", "1", heart, model))
    check(quiet.stdout == "" and quiet.stderr == "", f"-q printed {quiet.stdout!r} {quiet.stderr!r}")
    # The multinomial loss's free intercepts are certified (a dual point that meets
    # their constraint): the fit reports its duality gap.
    three = three_class_file(scratch)
    result = ok(snap("train", "--loss", "multinomial", "-B", "1", "-n", "1", three, model))
    check(re.search(r"relative duality gap [0-9.e+-]+ <= tol", result.stdout) and result.stderr == "",
          result.stdout + result.stderr)
    # Penalty l1 with the multinomial loss (orthant-wise L-BFGS) stops on its gap
    # too, not on newGLMNET's sub-gradient rule, and names it so.
    result = ok(snap("train", "--loss", "multinomial", "--penalty", "l1", "-B", "1", "-n", "1", three, model))
    check(re.search(r"relative duality gap [0-9.e+-]+ <= tol [0-9.e+-]+, ", result.stdout)
          and "sub-gradient" not in result.stdout and result.stderr == "", result.stdout + result.stderr)
    check(read_lines(model)[2] == "penalty l1", read_lines(model)[:4])
    # A fit without a certificate (a class of weight 0 has no optimal intercept)
    # names the gradient rule it stopped on, never a duality gap it did not have.
    result = ok(snap("train", "--loss", "multinomial", "-B", "1", "-n", "1", "-w2", "0", three, model))
    check(re.search(r"gradient rule \|\|g\|\| <= tol \|\|g\(0\)\|\| met \(\|\|g\|\| [0-9.e+-]+\)", result.stdout)
          and "duality gap" not in result.stdout and result.stderr == "", result.stdout + result.stderr)
    result = ok(snap("train", "--loss", "multinomial", "-B", "1", "-n", "1", "-w2", "0", "--max-iter", "1", three,
                     model))
    check("not met" in result.stdout and "stopped at --max-iter 1 epochs before the gradient rule" in result.stderr,
          result.stdout + result.stderr)
    # A tol no double can meet: the Newton solver stops when no decrease is
    # representable, before --max-iter, and says so rather than blaming --max-iter
    # (or the computed gap P - D reaches 0 at the rounding floor first, which
    # meets any tol).
    result = ok(snap("train", "--loss", "multinomial", "-B", "1", "-n", "1", "-e", "1e-300", three, model))
    check(("no further decrease of the objective is representable" in result.stderr
           or re.search(r"relative duality gap [-0-9.e+]+ <= tol", result.stdout))
          and "--max-iter" not in result.stderr, result.stdout + result.stderr)


def read_pty(fd, process):
    chunks = []
    while True:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:  # the other end closed
                break
            if not data:
                break
            chunks.append(data)
        elif process.poll() is not None:
            break
    return b"".join(chunks).decode(errors="replace")


def test_progress(scratch):
    w8a = dataset("w8a")
    model = os.path.join(scratch, "m")

    def on_terminal(*flags):
        controller, terminal = pty.openpty()
        process = subprocess.Popen([tool_path("snap-train"), *flags, "-s", "1", "-n", "1", w8a, model],
                                   stdout=subprocess.PIPE, stderr=terminal, text=True)
        os.close(terminal)
        stderr = read_pty(controller, process)
        stdout = process.communicate(timeout=300)[0]
        os.close(controller)
        check(process.returncode == 0, f"exit {process.returncode}: {stderr}")
        return stdout, stderr

    stdout, stderr = on_terminal()
    check("\r" in stderr and "epoch " in stderr and "relative gap" in stderr, f"no progress line: {stderr!r}")
    check("snap-train: " in stdout, "no summary line")
    stdout, stderr = on_terminal("-q")
    check(stderr == "" and stdout == "", f"-q still printed {stdout!r} {stderr!r}")
    # Not a terminal: no carriage returns in a log.
    result = ok(snap("train", "-s", "1", "-n", "1", w8a, model))
    check("\r" not in result.stderr and "epoch " not in result.stderr, f"progress in a pipe: {result.stderr!r}")


def test_regression(scratch):
    regression = regression_file(scratch)
    model, out = os.path.join(scratch, "reg.model"), os.path.join(scratch, "reg.out")
    result = ok(snap("train", "-s", "11", "-B", "1", "-n", "1", "--test", regression, regression, model))
    check(re.search(r"Test mean squared error = [0-9.e-]+\nTest R2 = 0\.99", result.stdout), result.stdout)
    text = ok(snap("predict", regression, model, out)).stdout
    match = re.fullmatch(r"Mean squared error = ([0-9.e-]+) \(regression\)\n"
                         r"Squared correlation coefficient = ([0-9.e-]+) \(regression\)\n", text)
    check(match is not None, f"not LIBLINEAR's regression lines: {text!r}")
    ours_mse = float(match.group(1))
    reference = os.path.join(scratch, "theirs.model")
    liblinear("train", "-q", "-s", "11", "-B", "1", regression, reference)
    theirs_mse = float(re.search(r"Mean squared error = ([0-9.e-]+)",
                                 liblinear("predict", regression, reference, out).stdout).group(1))
    check(ours_mse <= 1.2 * theirs_mse + 1e-3, f"MSE {ours_mse} vs LIBLINEAR's {theirs_mse}")
    # The insensitive zone matters: -p 2 fits much worse than the default 0.1.
    ok(snap("train", "-s", "12", "-B", "1", "-p", "2", "-n", "1", regression, model))
    wide_mse = float(re.search(r"= ([0-9.e-]+)", ok(snap("predict", regression, model, out)).stdout).group(1))
    check(wide_mse > 2 * ours_mse, f"-p 2 gave MSE {wide_mse}, default {ours_mse}")
    expect_exit(snap("train", "-s", "1", "-p", "0.5", regression, model), 1, "-p sets the insensitive zone")


def model_numbers(lines):
    """The intercept and coefficients of a snapml model file's lines."""
    numbers = []
    for line in lines[lines.index("coef") - 1:]:
        for token in line.split():
            try:
                numbers.append(float(token))
            except ValueError:
                pass
    return numbers


def test_options(scratch):
    heart = dataset("heart_scale")
    model = os.path.join(scratch, "m")
    # The default model file is the training file's name + .model in the current directory.
    ok(snap("train", "-q", "-n", "1", heart, cwd=scratch))
    check(os.path.exists(os.path.join(scratch, "heart_scale.model")), f"no heart_scale.model in {os.listdir(scratch)}")
    # -B: no bias by default (LIBLINEAR's -1), a bias feature of the given value otherwise.
    ok(snap("train", "-q", "-n", "1", "--model-format", "liblinear", heart, model))
    check("bias -1" in read_lines(model), "default should have no bias")
    ok(snap("train", "-q", "-n", "1", "-B", "2.5", "--model-format", "liblinear", heart, model))
    check("bias 2.5" in read_lines(model), "-B 2.5 not saved")
    # --loss names the same problems as -s; one thread and a seed make runs repeatable.
    def model_text(*args, threads=("-n", "1")):
        ok(snap("train", "-q", *threads, *args, heart, model))
        return read_lines(model)
    check(model_text("-s", "7") == model_text("--loss", "logistic"), "--loss logistic differs from -s 7")
    check(model_text("-s", "3") == model_text("--loss", "hinge"), "--loss hinge differs from -s 3")
    # LIBLINEAR's primal numbers (0, 2, 11) train by the primal Newton solver, its
    # dual numbers (7, 1, 12) by SDCA: the same problems, the same optimum.
    check(model_text("-s", "0") == model_text("--loss", "logistic", "--solver", "primal"),
          "-s 0 differs from --loss logistic --solver primal")
    check(model_text("-s", "2") == model_text("--loss", "squared_hinge", "--solver", "primal"),
          "-s 2 differs from --loss squared_hinge --solver primal")
    check(model_text("-s", "1") == model_text("--loss", "squared_hinge"), "-s 1 and --loss squared_hinge differ")
    for primal, dual in (("0", "7"), ("2", "1")):
        a = model_numbers(model_text("-s", primal, "-e", "1e-9"))
        b = model_numbers(model_text("-s", dual, "-e", "1e-9"))
        check(max(abs(u - v) for u, v in zip(a, b)) < 1e-3, f"-s {primal} and -s {dual} reach different optima")
    check(model_text("-s", "1") != model_text("-s", "3"), "-s 1 and -s 3 train the same model")
    check(model_text("-s", "7") != model_text("-s", "7", "--seed", "9"), "--seed has no effect")
    check(model_text("-s", "7", "-c", "1") != model_text("-s", "7", "-c", "0.01"), "-c has no effect")
    check(model_text("-s", "7") == model_text("-s", "7", threads=("--threads", "1")), "--threads is not -n")
    # --no-shrinking visits every row: another path to the same optimum (hinge), and
    # no effect where nothing shrinks (logistic).
    check(model_text("-s", "3", "-e", "1e-9") != model_text("-s", "3", "-e", "1e-9", "--no-shrinking"),
          "--no-shrinking has no effect on -s 3")
    check(model_text("-s", "7") == model_text("-s", "7", "--no-shrinking"), "--no-shrinking changes -s 7")
    # --thread-updates replicas: each of two threads on its own copy of w, the same
    # optimum as the shared w (auto's choice on this small problem), and said so.
    for loss in ("7", "1"):
        shared = snap("train", "-s", loss, "-e", "1e-9", "--max-iter", "100000", "-n", "2", heart, model)
        ok(shared)
        check("replica" not in shared.stdout, f"auto put heart_scale on replicas: {shared.stdout}")
        a = model_numbers(read_lines(model))
        replicas = snap("train", "-s", loss, "-e", "1e-9", "--max-iter", "100000", "-n", "2", "--thread-updates",
                        "replicas", heart, model)
        ok(replicas)
        check("2 threads, each on a replica of w" in replicas.stdout, f"no replicas in: {replicas.stdout}")
        b = model_numbers(read_lines(model))
        check(max(abs(u - v) for u, v in zip(a, b)) < 1e-3, f"-s {loss}: replicas reach another optimum")
        # --thread-updates atomic: the one w, nothing held back; the same optimum.
        atomic = snap("train", "-s", loss, "-e", "1e-9", "--max-iter", "100000", "-n", "2", "--thread-updates",
                      "atomic", heart, model)
        ok(atomic)
        check("replica" not in atomic.stdout, f"atomic on replicas: {atomic.stdout}")
        c = model_numbers(read_lines(model))
        check(max(abs(u - v) for u, v in zip(a, c)) < 1e-3, f"-s {loss}: atomic reaches another optimum")
    # -wLABEL WEIGHT is --weight LABEL:WEIGHT and changes the model.
    weighted = model_text("-s", "7", "-w1", "3", "-w-1", "0.5")
    check(weighted == model_text("-s", "7", "--weight", "1:3", "--weight=-1:0.5"), "-wi differs from --weight")
    check(weighted != model_text("-s", "7"), "-w1 3 -w-1 0.5 has no effect")
    expect_exit(snap("train", "-wx", "2", heart, model), 1, "label 'x' is not a number")
    # A label the data lacks: LIBLINEAR's warning, and the fit goes on.
    expect_exit(snap("train", "-w7", "2", heart, model), 0, "class label 7 given a weight (-w) is not in the training")
    # --class-weight balanced: w8a has 3% positives, balanced weights find more of them.
    train, test = split(dataset("w8a"), scratch, "w8a", 0.25)
    positives = {}
    for flags in ([], ["--class-weight", "balanced"]):
        ok(snap("train", "-q", "-s", "7", "-e", "0.01", "-n", "2", *flags, train, model))
        ok(snap("predict", "-q", test, model, os.path.join(scratch, "out")))
        positives[bool(flags)] = read_lines(os.path.join(scratch, "out")).count("1")
    check(positives[True] > 2 * positives[False], f"balanced weights predicted positives: {positives}")
    # --format: binary files are recognised by extension or magic, or forced.
    converted = os.path.join(scratch, "heart.snap")
    ok(run(tool_path("snap-convert"), heart, converted))
    renamed = os.path.join(scratch, "heart.bin")
    shutil.copy(converted, renamed)
    for path, flags in ((converted, []), (renamed, []), (renamed, ["--format", "binary"])):
        result = ok(snap("train", "-s", "7", "-n", "1", *flags, "--test", path, path, model))
        check("Test accuracy = " in result.stdout, result.stdout)
        ok(snap("predict", "-n", "1", *flags, path, model, os.path.join(scratch, "out")))
    expect_exit(snap("train", "--format", "binary", heart, model), 2, heart)
    expect_exit(snap("train", "--format", "svmlight", renamed, model), 2, renamed)
    quiet = ok(snap("predict", "-q", heart, model, os.path.join(scratch, "out")))
    check(quiet.stdout == "" and quiet.stderr == "", f"snap-predict -q printed {quiet.stdout!r}")
    check(len(read_lines(os.path.join(scratch, "out"))) == 270, "snap-predict -q wrote no predictions")
    # --test reports log loss and AUC for a binary logistic model.
    result = ok(snap("train", "-s", "7", "-n", "1", "--test", heart, heart, model))
    check(re.search(r"Test accuracy = [0-9.]+% \(\d+/270\)\nTest log loss = 0\.[0-9]+\nTest AUC = 0\.[0-9]+\n",
                    result.stdout), result.stdout)
    # Output to standard output (a link of the test's own standing for
    # /dev/stdout, tests/cli/test_outputs.py) goes through the descriptor.
    stdout = os.path.join(scratch, "stdout")
    os.symlink("/proc/self/fd/1", stdout)
    result = ok(snap("predict", "-q", heart, model, stdout))
    check(len(result.stdout.splitlines()) == 270, "predictions to standard output")
    result = ok(snap("train", "-q", heart, stdout))
    check(result.stdout.startswith("snapml-model 3"), "a model written to standard output")
    check(not os.path.isfile("/dev/null"), "/dev/null is still a device")


def test_l1_solvers(scratch):
    """-s 6 trains by newGLMNET, --solver cd by coordinate descent: the same optimum;
    --l1-ratio mixes in the L2 part (fewer zeros); its misuse exits 1."""
    heart = dataset("heart_scale")
    model = os.path.join(scratch, "m")

    def weights(*args):
        ok(snap("train", "-q", "-n", "1", "-B", "1", "-e", "1e-9", "--max-iter", "100000", *args, heart, model))
        return model_numbers(read_lines(model))
    glmnet = weights("-s", "6")
    cd = weights("-s", "6", "--solver", "cd")
    check(glmnet != cd, "--solver cd trains the same way as the default")
    check(max(abs(u - v) for u, v in zip(glmnet, cd)) < 1e-5, "newGLMNET and coordinate descent differ")
    check(weights("-s", "6", "--l1-ratio", "1") == glmnet, "--l1-ratio 1 is not pure L1")
    zeros = lambda w: sum(v == 0.0 for v in w)
    sparse, mixed = weights("-s", "6", "-c", "0.05"), weights("-s", "6", "-c", "0.05", "--l1-ratio", "0.2")
    check(zeros(mixed) < zeros(sparse), f"elastic net zeros {zeros(mixed)} vs L1 {zeros(sparse)}")
    check(weights("--loss", "squared", "--penalty", "l1", "--l1-ratio", "0.5", "-p", "0") !=
          weights("--loss", "squared", "--penalty", "l1", "-p", "0"), "--l1-ratio has no effect on the lasso")
    expect_exit(snap("train", "-s", "7", "--l1-ratio", "0.5", heart, model), 1, "--l1-ratio")
    expect_exit(snap("train", "-s", "5", "--l1-ratio", "0.5", heart, model), 1, "elastic net")
    expect_exit(snap("train", "-s", "6", "--solver", "cd", "--l1-ratio", "0.5", heart, model), 1, "solver cd")
    expect_exit(snap("train", "-s", "7", "--solver", "cd", heart, model), 1, "solver cd")


def test_find_C(scratch):
    """-C: LIBLINEAR's search for C, warm-started along the path; its lines, the best,
    and each C's rate equal to a cold -v run at that C (tight tolerance)."""
    heart = dataset("heart_scale")
    common = ("-s", "0", "-B", "1", "-n", "2", "-v", "3", "-e", "1e-8")
    result = ok(snap("train", "-C", *common, "-c", "0.25", heart))
    rates = [(float(m.group(1)), float(m.group(2)))
             for m in re.finditer(r"^log2c=\s*(-?[0-9.]+)\trate=([0-9.]+)$", result.stdout, re.M)]
    check([c for c, _ in rates] == [float(c) for c in range(-2, 11)], f"C path: {rates}")
    best = re.search(r"^Best C = ([0-9.e+-]+)  CV accuracy = ([0-9.]+)%$", result.stdout, re.M)
    check(best is not None, result.stdout)
    top = max(rate for _, rate in rates)
    first_top = next(c for c, rate in rates if rate == top)
    check(abs(float(best.group(2)) - top) < 1e-9 and float(best.group(1)) == 2.0 ** first_top,
          f"best {best.group(0)} against {rates}")
    for log2c in (-2, 3):
        cold = ok(snap("train", *common, "-c", repr(2.0 ** log2c), heart))
        rate = float(re.search(r"Cross Validation Accuracy = ([0-9.]+)%", cold.stdout).group(1))
        check(abs(rate - dict(rates)[float(log2c)]) < 1e-9, f"-C at log2c={log2c} vs -v: {rates} {rate}")
    # Without -c: LIBLINEAR's start, the power of two at or below 1 / (l max ||x||^2).
    automatic = ok(snap("train", "-C", "-s", "0", "-B", "1", "-n", "2", "-q", heart))
    first = re.search(r"^log2c=\s*(-?[0-9.]+)", automatic.stdout, re.M)
    check(first is not None and float(first.group(1)) == -12.0, automatic.stdout[:200])
    regression = ok(snap("train", "-C", "-s", "11", "-c", "256", "-n", "2", heart))
    check(re.search(r"^Best C = [0-9.e+-]+  CV MSE = [0-9.e+-]+$", regression.stdout, re.M), regression.stdout)
    expect_exit(snap("train", "-C", heart, os.path.join(scratch, "m")), 1, "-C cross-validates")


# ---- pipes and FIFOs --------------------------------------------------------

def through_pipe(tool, source, *args):
    """Runs `cat source | tool ... /dev/stdin ...`; args holds "-" where the data
    path goes."""
    cat = subprocess.Popen(["cat", source], stdout=subprocess.PIPE)
    argv = [tool_path(f"snap-{tool}"), *["/dev/stdin" if a == "-" else str(a) for a in args]]
    result = subprocess.run(argv, stdin=cat.stdout, capture_output=True, text=True, timeout=300)
    cat.stdout.close()
    cat.wait()
    return result


def through_fifo(tool, source, fifo, *args):
    """Runs `tool` on a FIFO at `fifo` that a thread fills with `source` and closes
    (a second open of the path by the tool would wait forever: the timeout)."""
    import threading
    os.mkfifo(fifo)
    def feed():
        with open(source, "rb") as data, open(fifo, "wb") as pipe:
            shutil.copyfileobj(data, pipe)
    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        return run(tool_path(f"snap-{tool}"), *[fifo if a == "-" else a for a in args], timeout=120)
    finally:
        writer.join(timeout=5)
        os.unlink(fifo)


def model_text(path):
    """A model file's text, less its index_base line: a .snap file holds columns,
    so a model trained on one does not know the text's base (docs/formats.md)."""
    with open(path) as f:
        return "".join(line for line in f if not line.startswith("index_base "))


def test_pipes(scratch):
    """A training or test file on a pipe or FIFO reads as the file itself: the path
    is opened once, so no byte is lost (docs/cli.md)."""
    import gzip
    heart = dataset("heart_scale")  # 27 KB: past the 8 KiB a second open lost
    compressed = os.path.join(scratch, "heart.svm.gz")
    with open(heart, "rb") as f, gzip.open(compressed, "wb") as g:
        g.write(f.read())
    binary = os.path.join(scratch, "heart.snap")
    ok(snap("convert", heart, binary))
    reference = os.path.join(scratch, "reference.model")
    # One thread: a fit is then the same from run to run (PASSCoDe's threads are not).
    ok(snap("train", "-q", "-s", "7", "-n", "1", heart, reference))
    expected = model_text(reference)
    predictions = os.path.join(scratch, "reference.out")
    ok(snap("predict", heart, reference, predictions))
    for name, source in (("svmlight", heart), ("gzip", compressed), ("binary", binary)):
        model = os.path.join(scratch, f"{name}.model")
        ok(through_pipe("train", source, "-q", "-s", "7", "-n", "1", "-", model))
        check(model_text(model) == expected, f"{name} through a pipe trained another model")
        os.unlink(model)
        ok(through_fifo("train", source, os.path.join(scratch, f"{name}.fifo"), "-q", "-s", "7", "-n", "1", "-",
                        model))
        check(model_text(model) == expected, f"{name} through a FIFO trained another model")
        out = os.path.join(scratch, f"{name}.out")
        ok(through_pipe("predict", source, "-", reference, out))
        check(read_lines(out) == read_lines(predictions), f"{name} through a pipe predicted otherwise")
        ok(through_fifo("predict", source, os.path.join(scratch, f"{name}.fifo"), "-", reference, out))
        check(read_lines(out) == read_lines(predictions), f"{name} through a FIFO predicted otherwise")
    # Streaming under --max-memory rereads a .snap file from disk: a pipe cannot.
    expect_exit(through_pipe("train", binary, "--max-memory", "1M", "-", os.path.join(scratch, "m")), 1,
                "/dev/stdin", "pass a regular file")


def test_bad_input(scratch):
    bad = write(os.path.join(scratch, "bad.svm"), "+1 1:0.5 3:1\n-1 2:0.25\n+1 4:abc\n")
    model = os.path.join(scratch, "m")
    expect_exit(snap("train", bad, model), 2, "snap-train: ", f"{bad}:3:")
    check(not os.path.exists(model), "a failed run left a model")
    good = write(os.path.join(scratch, "good.svm"), "+1 1:0.5 3:1\n-1 2:0.25\n")
    expect_exit(snap("train", "--test", bad, good, model), 2, f"{bad}:3:")
    ok(snap("train", "-q", "-n", "1", good, model))
    expect_exit(snap("predict", bad, model, os.path.join(scratch, "out")), 2, "snap-predict: ", f"{bad}:3:")
    check(not os.path.exists(os.path.join(scratch, "out")), "a failed prediction left an output file")
    broken = write(os.path.join(scratch, "broken.model"), "solver_type L2R_LR_DUAL\nnr_class x\n")
    expect_exit(snap("predict", good, broken, os.path.join(scratch, "out")), 2, f"{broken}:2")
    one_class = write(os.path.join(scratch, "one.svm"), "1 1:1\n1 2:1\n")
    expect_exit(snap("train", one_class, model), 1, "at least two distinct labels")


def test_missing_file(scratch):
    missing = os.path.join(scratch, "no-such-file.svm")
    good = write(os.path.join(scratch, "good.svm"), "+1 1:0.5 3:1\n-1 2:0.25\n")
    model = os.path.join(scratch, "m")
    expect_exit(snap("train", missing, model), 3, "snap-train: ", missing)
    expect_exit(snap("train", "--test", missing, good, model), 3, missing)
    ok(snap("train", "-q", "-n", "1", good, model))
    expect_exit(snap("predict", missing, model, os.path.join(scratch, "out")), 3, "snap-predict: ", missing)
    expect_exit(snap("predict", good, os.path.join(scratch, "no.model"), os.path.join(scratch, "out")), 3, "no.model")
    expect_exit(snap("predict", good, model, os.path.join(scratch, "no-dir", "out")), 3, "no-dir")
    expect_exit(snap("train", good, os.path.join(scratch, "no-dir", "m")), 3, "no-dir")


def test_bad_usage(scratch):
    good = write(os.path.join(scratch, "good.svm"), "+1 1:0.5 3:1\n-1 2:0.25\n")
    model = os.path.join(scratch, "m")
    expect_exit(snap("train"), 1, "training_file is required")
    expect_exit(snap("train", "--no-such-option", good), 1, "--no-such-option")
    for solver, fragment in (("4", "Crammer and Singer"), ("13", "L1-loss support vector regression")):
        expect_exit(snap("train", "-s", solver, good, model), 1, f"solver type {solver} ({fragment}",
                    "is not available in snapml; use -s")
    expect_exit(snap("train", "-s", "99", good, model), 1, "unknown solver type 99")
    expect_exit(snap("train", "-s", "7", "--loss", "hinge", good, model), 1, "excludes")
    expect_exit(snap("train", "--loss", "poisson", good, model), 1, "poisson")
    expect_exit(snap("train", "-c", "0", good, model), 1, "-c")
    expect_exit(snap("train", "-e", "-1", good, model), 1, "--tol")
    expect_exit(snap("train", "--class-weight", "auto", good, model), 1, "auto")
    expect_exit(snap("train", "--model-format", "xml", good, model), 1, "xml")
    expect_exit(snap("train", "--thread-updates", "hogwild", good, model), 1, "--thread-updates", "hogwild")
    # The GPU memory budget needs --gpu, and a size (--max-memory: test_out_of_core.py).
    expect_exit(snap("train", "--max-gpu-memory", "1G", good, model), 1, "--max-gpu-memory requires --gpu")
    expect_exit(snap("train", "--gpu", "--max-gpu-memory", "lots", good, model), 1,
                "--max-gpu-memory: memory size 'lots': not a number")
    expect_exit(snap("train", "--max-memory", "12XB", good, model), 1, "unknown unit")
    check(not os.path.exists(model), "a refused option still trained")
    expect_exit(snap("train", "--help"), 0, "Usage:", "--max-memory", "--weight", stream="stdout")
    expect_exit(snap("predict", good, model), 1, "output_file is required")
    expect_exit(snap("predict", "--help"), 0, "Usage:", "-b", stream="stdout")
