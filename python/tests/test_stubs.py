# SPDX-License-Identifier: MIT
"""The type stubs (.pyi, installed next to the package) declare every public name the package
and its extension have, and nothing they lack; every public name has a docstring."""

import ast
import enum
import inspect
import os

import pytest

import hipfile
from hipfile import _hipfile

STUB_DIR = os.path.dirname(hipfile.__file__)
# Names the stubs define for their own use (type aliases), not part of the module.
STUB_ONLY = {"Buffer", "PathLike"}
# Submodules imported only on demand (hipfile.torch needs PyTorch): the package gains them as
# attributes once any code imports them, so whether dir() lists them depends on what ran before.
ON_DEMAND = {"torch"}


def parse_stub(name):
    """{name: set of member names for a class, None otherwise} of what a stub file declares;
    plain imports (typing, enum, os) declare nothing, `from .x import a as a` re-exports a."""
    with open(os.path.join(STUB_DIR, name)) as f:
        tree = ast.parse(f.read(), name)
    declared = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            declared.update((a.asname or a.name, None) for a in node.names)
        elif isinstance(node, ast.ClassDef):
            declared[node.name] = class_members(node)
        elif isinstance(node, ast.FunctionDef):
            declared[node.name] = None
        elif isinstance(node, ast.AnnAssign):
            declared[node.target.id] = None
        elif isinstance(node, ast.Assign):
            declared.update((t.id, None) for t in node.targets)
    return {k: v for k, v in declared.items() if k not in STUB_ONLY}


def class_members(node):
    members = set()
    for item in node.body:
        if isinstance(item, ast.FunctionDef):
            members.add(item.name)
        elif isinstance(item, ast.AnnAssign):
            members.add(item.target.id)
        elif isinstance(item, ast.Assign):
            members.update(t.id for t in item.targets)
    return members


def public(names):
    return {n for n in names if not n.startswith("_") or n == "__version__"}


PACKAGE_STUB = parse_stub("__init__.pyi")
EXTENSION_STUB = parse_stub("_hipfile.pyi")


def package_names():
    return public(dir(hipfile)) - ON_DEMAND


def test_the_package_stub_declares_exactly_the_public_names():
    assert public(PACKAGE_STUB) == package_names()


def test_all_lists_exactly_the_public_names():
    assert sorted(hipfile.__all__) == sorted(package_names())


def test_an_on_demand_submodule_is_not_imported_with_the_package():
    import subprocess
    import sys

    code = "import sys, hipfile; print(sorted(m for m in sys.modules if m.startswith('hipfile.torch')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_extension_stub_declares_exactly_its_public_names():
    assert public(EXTENSION_STUB) == public(dir(_hipfile))


def test_the_private_names_the_extension_stub_declares_exist():
    for name in set(EXTENSION_STUB) - public(EXTENSION_STUB):
        assert hasattr(_hipfile, name), name


def stub_classes():
    for module, stub in ((hipfile, PACKAGE_STUB), (_hipfile, EXTENSION_STUB)):
        for name, members in stub.items():
            if members is not None:
                yield pytest.param(getattr(module, name), members, id=f"{module.__name__}.{name}")


def sample_instance(cls):
    """An instance of an exception class, whose attributes are set by __init__."""
    if issubclass(cls, hipfile.CheckpointError):
        return cls("f: tensor 't': missing", "no_such_tensor", "f", "t")
    return cls("m", errno=5, op_error=int(hipfile.OpError.DriverError), hip_error=1, filename="f")


@pytest.mark.parametrize("cls, members", stub_classes())
def test_a_class_stub_declares_exactly_its_public_members(cls, members):
    if issubclass(cls, enum.Enum):
        return  # test_the_op_error_stub_has_the_runtime_members
    if issubclass(cls, BaseException):
        instance = sample_instance(cls)
        missing = {m for m in public(members) if not hasattr(instance, m)}
        assert not missing, f"{cls.__name__} lacks what its stub declares: {sorted(missing)}"
        undeclared = public(vars(cls)) - members
    else:
        assert public(members) == public(vars(cls))
        undeclared = set()
    assert not undeclared, f"{cls.__name__} has members its stub does not declare: {sorted(undeclared)}"


def test_the_op_error_stub_has_the_runtime_members():
    with open(os.path.join(STUB_DIR, "__init__.pyi")) as f:
        tree = ast.parse(f.read())
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "OpError")
    stub = {a.targets[0].id: a.value.value for a in node.body if isinstance(a, ast.Assign)}
    assert stub == {e.name: e.value for e in hipfile.OpError}


def documented_names():
    for module in (hipfile, _hipfile):
        for name in sorted(public(dir(module))):
            obj = getattr(module, name)
            if inspect.isclass(obj) or callable(obj):
                yield pytest.param(obj, f"{module.__name__}.{name}", id=f"{module.__name__}.{name}")


def docstring(obj, name):
    """obj's docstring without the signature lines pybind11 puts first (all it has when the
    binding gives no text)."""
    lines = (getattr(obj, "__doc__", None) or "").strip().splitlines()
    while lines and lines[0].startswith(name.rsplit(".", 1)[-1] + "("):
        lines.pop(0)
    return "\n".join(lines).strip()


@pytest.mark.parametrize("obj, name", documented_names())
def test_every_public_function_class_and_member_has_a_docstring(obj, name):
    assert docstring(obj, name), f"{name} has no docstring"
    if not inspect.isclass(obj) or issubclass(obj, enum.Enum):
        return
    slots = getattr(obj, "__slots__", None)
    slot_docs = slots if isinstance(slots, dict) else {}  # a dict's values document slots (help())
    for member in sorted(public(vars(obj))):
        attr = inspect.getattr_static(obj, member)
        assert docstring(attr, member) or slot_docs.get(member, "").strip(), f"{name}.{member} has no docstring"


def test_docstring_sees_through_pybind11_signatures():
    assert docstring(_hipfile.device_count, "device_count")
    assert not docstring(type("Undocumented", (), {}), "Undocumented")

    class Bare:
        __doc__ = "f(self) -> int\n"

    assert not docstring(Bare, "f")
