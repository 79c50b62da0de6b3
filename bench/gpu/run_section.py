"""docs/benchmarks/gpu.md's section for one device run, from bench/gpu_check.sh's report.

  python3 run_section.py REPORT.md                 prints the section (on the device)
  python3 run_section.py --insert SECTION GPU.md [MARK]   puts it into GPU.md, newest first
                                                           (here), after the MARK line

A section starts with what identifies the run (date, device, driver, commit, command)
and the tests' counts, before any figure, then the report's tables as they came.
"""
import re
import sys

MARK = "<!-- device runs: newest first -->"


def section(report):
    text = open(report).read()
    date = re.search(r"# device check (\S+)", text)
    device = re.search(r"- device: ([^;\n]+); driver ([^;\n]+)", text)
    commit = re.search(r"- commit: (.+)", text)
    command = re.search(r"- command: (.+)", text)
    tests = re.search(r"TESTS: (\d+) passed, (\d+) failed, (\d+) skipped", text)
    head = [
        f"## Device run of {date.group(1) if date else 'unknown date'} on {device.group(1) if device else 'unknown device'}",
        "",
        f"Driver {device.group(2) if device else '?'}; commit {commit.group(1) if commit else '?'}; "
        f"command `{command.group(1) if command else '?'}` (the binaries built on the development machine by "
        "`bash bench/gpu_check.sh pack`).",
        "",
        f"**Tests: {tests.group(1)} passed, {tests.group(2)} failed, {tests.group(3)} skipped.**" if tests
        else "**Tests: not run.**",
        "",
    ]
    body = text.split("\n- command: ", 1)[-1].split("\n", 1)[-1]
    body = re.sub(r"^## ", "### ", body, flags=re.M)
    return "\n".join(head) + body.rstrip() + "\n"


def insert(section_path, page, mark=MARK):
    new = open(section_path).read().rstrip() + "\n"
    text = open(page).read()
    if mark not in text:
        raise SystemExit(f"{page} has no '{mark}' line to insert after")
    before, after = text.split(mark, 1)
    open(page, "w").write(before + mark + "\n\n" + new + after)


if __name__ == "__main__":
    if sys.argv[1] == "--insert":
        insert(*sys.argv[2:5])
    else:
        sys.stdout.write(section(sys.argv[1]))
