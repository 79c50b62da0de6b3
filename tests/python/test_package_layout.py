"""The package's layout: no import circle among python/snap_ml's modules and no
import inside a function to break one; scikit-learn's import paths
(``snap_ml.linear_model``, ``snap_ml.svm``) beside the package's own."""

import ast
import pathlib

import snap_ml

PACKAGE = pathlib.Path(snap_ml.__file__).resolve().parent


def _module_name(path):
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(p for p in parts if p != "__init__")


def _resolve(module, level, name, package_of):
    """The snap_ml module a relative import names, or None for another package."""
    if level == 0:
        if not (name or "").startswith("snap_ml"):
            return None
        return (name or "")[len("snap_ml."):] if name != "snap_ml" else ""
    base = package_of.split(".") if package_of else []
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, name] if name else base)


def _imports():
    """{module: [(imported module, line, at top level)]} over the package's sources."""
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        package_of = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(), str(path))
        top = {id(node) for node in tree.body}
        found = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(name, node.level, node.module, package_of)
                if target is None:
                    continue
                # `from . import x` imports the submodule x (the package itself is
                # being initialised, not imported); `from .m import x`, module m (or
                # its submodule x).
                below = [f"{target}.{a.name}".strip(".") for a in node.names]
                targets = below if node.module is None else [target] + below
                found.append((targets, node.lineno, id(node) in top))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    target = _resolve(name, 0, alias.name, package_of)
                    if target is not None:
                        found.append(([target], node.lineno, id(node) in top))
        modules[name] = found
    return modules


# Imports inside a function that break no circle: _openmp_wait loads _core only
# after setting libgomp's spin count, which must precede the library's load.
LOAD_ORDER = {"_openmp_wait"}


def test_no_module_imports_inside_a_function():
    nested = [f"{module}:{line}" for module, found in _imports().items() for _, line, top in found
              if not top and module not in LOAD_ORDER]
    assert nested == [], f"imports inside functions (a circle broken by hand?): {nested}"


def test_no_import_circle():
    imports = _imports()
    graph = {module: {t for targets, _, _ in found for t in targets if t in imports and t != module}
             for module, found in imports.items()}
    # The package's __init__ imports its modules; none may import it back.
    for module, targets in graph.items():
        assert module == "" or "" not in targets, f"{module} imports the package itself"
    state = {}

    def visit(module, path):
        state[module] = "open"
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                raise AssertionError("import circle: " + " -> ".join(path + [target]))
            if target not in state:
                visit(target, path + [target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_sklearn_import_paths_and_the_old_ones():
    from snap_ml.linear_model import (LinearRegression, LogisticRegression, LogisticRegressionCV,
                                      Ridge)
    from snap_ml.svm import LinearSVC, SupportVectorMachine

    assert snap_ml.LogisticRegression is LogisticRegression
    assert snap_ml.LogisticRegressionCV is LogisticRegressionCV
    assert snap_ml.LinearRegression is LinearRegression and snap_ml.Ridge is Ridge
    assert snap_ml.LinearSVC is LinearSVC and snap_ml.SupportVectorMachine is SupportVectorMachine
    # Where they were before snap_ml.svm: still there.
    from snap_ml.linear_model import LinearSVC as old_svc, SupportVectorMachine as old_svm

    assert old_svc is LinearSVC and old_svm is SupportVectorMachine


def test_load_model_finds_each_class_through_the_registry():
    from snap_ml._registry import estimator_class_of

    assert estimator_class_of("logistic") is snap_ml.LogisticRegression
    assert estimator_class_of("multinomial") is snap_ml.LogisticRegression
    assert estimator_class_of("hinge") is snap_ml.SupportVectorMachine
    assert estimator_class_of("squared_hinge") is snap_ml.SupportVectorMachine
    assert estimator_class_of("squared") is snap_ml.LinearRegression
