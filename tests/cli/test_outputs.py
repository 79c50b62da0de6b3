"""Where the tools write (issue 36, docs/reliability.md "Outputs"): through links,
never replacing one.

Every link is made in the scratch directory: `ln -s /proc/self/fd/1 link` stands
for /dev/stdout, which no test writes or replaces.
"""
import os
import subprocess

from conftest import check, expect_exit, ok, read_lines, snap, tool_path, write

DATA = "".join(f"{1 if i % 3 else -1} 1:{(i % 7) / 7:.3f} 2:{(i % 5) / 5:.3f} 3:{1 if i % 2 else 0}\n"
               for i in range(60))


def with_stdout_to(path, tool, *args, append=False):
    """Runs a tool with its standard output redirected to `path`, as `> path` (or `>>`)."""
    with open(path, "a" if append else "w") as out:
        return subprocess.run([tool_path(f"snap-{tool}"), *map(str, args)], stdout=out, stderr=subprocess.PIPE,
                              text=True, timeout=120)


def check_link(link, target):
    check(os.path.islink(link), f"{link} is no longer a link")
    check(os.readlink(link) == target, f"{link} now points to {os.readlink(link)}, not {target}")


def test_links(scratch):
    """Case 0: a link as the output is written through; the link stays."""
    data = write(os.path.join(scratch, "data.txt"), DATA)
    model = os.path.join(scratch, "m")
    ok(snap("train", "-q", "-n", "1", data, model))
    reference = os.path.join(scratch, "reference.out")
    ok(snap("predict", "-q", data, model, reference))
    expected = read_lines(reference)

    # /dev/stdout's shape: a link to this process's descriptor 1, standard output
    # redirected to a file. Before: exit 0, out.txt empty, the link replaced by
    # a regular file holding the predictions.
    stdout = os.path.join(scratch, "stdout")
    os.symlink("/proc/self/fd/1", stdout)
    out = os.path.join(scratch, "out.txt")
    result = with_stdout_to(out, "predict", "-q", data, model, stdout)
    check(result.returncode == 0, f"exit {result.returncode}: {result.stderr}")
    check_link(stdout, "/proc/self/fd/1")
    check(read_lines(out) == expected, "the predictions did not reach the redirected standard output")
    # `>>` appends after what the file held; without -q the accuracy line follows.
    write(out, "first line\n")
    result = with_stdout_to(out, "predict", data, model, stdout, append=True)
    check(result.returncode == 0, f"exit {result.returncode}: {result.stderr}")
    lines = read_lines(out)
    check(lines[0] == "first line" and lines[1:-1] == expected and lines[-1].startswith("Accuracy = "),
          f"appended output out of order: {lines[:2]} ... {lines[-2:]}")
    # /dev/fd/1 alike; and into a pipe.
    os.symlink("/dev/fd/1", os.path.join(scratch, "fd1"))
    result = subprocess.run([tool_path("snap-predict"), "-q", data, model, os.path.join(scratch, "fd1")],
                            capture_output=True, text=True, timeout=120)
    check(result.returncode == 0 and result.stdout.splitlines() == expected, f"through a pipe: {result}")
    check_link(os.path.join(scratch, "fd1"), "/dev/fd/1")

    # Links to regular files (relative, chained, dangling): the target is
    # replaced atomically in its own directory, the links stay.
    os.mkdir(os.path.join(scratch, "real"))
    for name, target in (("model.link", "real/model"), ("history.link", "real/history.csv"),
                         ("predictions.link", "real/predictions"), ("data.link", "real/data.snap"),
                         ("text.link", "real/text.svm"), ("ck.link", "real/ck")):
        os.symlink(target, os.path.join(scratch, name))
    os.symlink("model.link", os.path.join(scratch, "chain"))
    link = lambda name: os.path.join(scratch, name)
    ok(snap("train", "-q", "-n", "1", "--history", link("history.link"), "--checkpoint", link("ck.link"),
            "--checkpoint-interval", "0", data, link("chain")))
    for name, target in (("chain", "model.link"), ("model.link", "real/model"), ("history.link", "real/history.csv"),
                         ("ck.link", "real/ck")):
        check_link(link(name), target)
    check(read_lines(os.path.join(scratch, "real", "model")) == read_lines(model), "the model did not reach the target")
    check(read_lines(os.path.join(scratch, "real", "history.csv"))[0].startswith("problem,"), "no history")
    # The finished checkpoint is removed where it was saved; the link stays.
    check(not os.path.exists(os.path.join(scratch, "real", "ck")), "the finished checkpoint was kept")
    ok(snap("predict", "-q", data, model, link("predictions.link")))
    check(read_lines(os.path.join(scratch, "real", "predictions")) == expected, "predictions not at the target")
    ok(snap("convert", data, link("data.link")))
    ok(snap("convert", "--to", "svmlight", link("data.link"), link("text.link")))
    for name in ("predictions.link", "data.link", "text.link"):
        check(os.path.islink(link(name)), f"{name} was replaced")
    check(len(read_lines(os.path.join(scratch, "real", "text.svm"))) == 60, "the converted text is incomplete")
    # Nothing left beside the links or the targets.
    check(sorted(os.listdir(os.path.join(scratch, "real"))) ==
          ["data.snap", "history.csv", "model", "predictions", "text.svm"],
          f"left in real/: {os.listdir(os.path.join(scratch, 'real'))}")



def unchanged(paths):
    """The bytes of each path, to check after refused runs."""
    contents = {}
    for path in paths:
        with open(path, "rb") as f:
            contents[path] = f.read()
    return contents


def test_collisions(scratch):
    """Cases 1 and 2: an output that is an input or another output of the same run,
    by any path (links, hard links, not yet existing), is refused before any work
    (exit 1), for every tool."""
    data = write(os.path.join(scratch, "data.txt"), DATA)
    model = os.path.join(scratch, "m.model")
    ok(snap("train", "-q", "-n", "1", data, model))
    os.link(data, os.path.join(scratch, "hard.txt"))
    os.symlink("m.model", os.path.join(scratch, "model.link"))
    os.mkdir(os.path.join(scratch, "sub"))
    os.symlink("..", os.path.join(scratch, "sub", "up"))
    before = unchanged([data, model])
    p = lambda name: os.path.join(scratch, name)

    # Case 2: snap-predict's output over the test data or the model.
    for test, model_path, output, fragment in (
            (data, model, data, f"the output file {data} is the test file {data}"),
            (data, model, model, f"the output file {model} is the model file {model}"),
            (data, model, p("hard.txt"), "is the test file"),
            (data, model, p("model.link"), "is the model file"),
            (data, p("sub/up/m.model"), model, "is the model file")):
        expect_exit(snap("predict", "-q", test, model_path, output), 1, fragment, "give another path")
    # snap-convert's output over its input.
    expect_exit(snap("convert", data, p("hard.txt")), 1, f"the output {p('hard.txt')} is the input {data}")
    expect_exit(snap("convert", data, p("sub/up/data.txt")), 1, "is the input")
    check(unchanged([data, model]) == before, "a refused run changed a file")

    # Case 1: snap-train's outputs that do not exist yet, one of them the
    # checkpoint: the model was written, then removed as the finished checkpoint.
    new_model = p("new.model")
    apart, another = "give them different paths", "give another path"
    for args, fragment, fix in (
            (["--checkpoint", new_model], f"the --checkpoint file {new_model} is the model file {new_model}", apart),
            (["--history", p("h.csv"), "--checkpoint", p("h.csv")], "is the --history file", apart),
            (["--history", p("sub/up/new.model")], "is the model file", apart),
            (["--history", data], "is the training file", another),
            (["--checkpoint", p("hard.txt")], "is the training file", another)):
        expect_exit(snap("train", "-q", "-n", "1", *args, data, new_model), 1, fragment, fix)
    check(not os.path.exists(new_model), "a refused run wrote the model")
    check(unchanged([data, model]) == before, "a refused run changed a file")
    # A checkpoint must be a regular file: it is read back and removed.
    expect_exit(snap("train", "-q", "--checkpoint", "/dev/null", data, new_model), 1, "must be a regular file")
    # Streams may be shared: the model and the history both to standard output.
    result = subprocess.run([tool_path("snap-train"), "-q", "-n", "1", "--history", "/dev/stdout", data, "/dev/stdout"],
                            capture_output=True, text=True, timeout=120)
    check(result.returncode == 0 and "problem,class,epoch" in result.stdout and "snapml-model" in result.stdout,
          f"two outputs to one pipe: {result}")
    check(sorted(os.listdir(scratch)) == ["data.txt", "hard.txt", "m.model", "model.link", "sub"],
          f"left behind: {os.listdir(scratch)}")

