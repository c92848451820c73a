"""gpumeter's errors and warnings, each named by its cause and carrying its fields.

When one of these errors is raised, no number was produced: gpumeter fails closed rather than
report a time it cannot stand behind. The C++ core raises them with their fields filled in; its
message (``str(error)``) says what happened and what to do.

Every error class here is made from the core's one catalogue of errors (``error_catalogue()`` of
the extension: its name, class, exit code, base, fields and documentation), so the C++ errors,
the records' names, the exit codes and these classes cannot disagree. Type checkers read the
same list through ``_errors.pyi``, written from it when the package is built.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple, Type

from . import _gpumeter


def _restore(cls: Type[Error], args: Tuple[Any, ...], state: Dict[str, Any]) -> Error:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


class Error(Exception):
    """Base class of every error gpumeter raises; ``str(error)`` is its message.

    Catch ``gpumeter.Error`` to handle any failure to measure. No number was produced for what
    raised it. Errors keep their fields through ``pickle`` (multiprocessing, test workers).
    """

    #: What the error says about the work ("wrong", "refused", "not measured", "failed"), and
    #: the exit code a gpumeter program that ends on it returns: the core's catalogue.
    # Both the catalogue's fallback for the base class, not copies of it.
    error_class = _gpumeter.error_class("Error")
    exit_code = _gpumeter.exit_code_of_error("Error")
    #: The fields the core fills in, as (name, Python type).
    fields: Tuple[Tuple[str, str], ...] = ()

    def __init__(self, message: str = "", **fields: Any) -> None:
        super().__init__(message)
        names = {name for name, _ in type(self).fields}
        unknown = sorted(set(fields) - names)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {unknown[0]!r}")
        for name, kind in type(self).fields:
            if name in fields:
                setattr(self, name, fields[name])
            elif kind.startswith("Optional["):
                setattr(self, name, None)
            elif kind == "bool":
                setattr(self, name, False)
            else:
                raise TypeError(f"{type(self).__name__} needs its field {name!r}")

    def __reduce__(self) -> Tuple[Any, ...]:
        return (_restore, (type(self), self.args, dict(self.__dict__)))


def _make(entry: _gpumeter.ErrorCatalogueEntry) -> type:
    """One error class of the catalogue."""
    return type(entry.name, (globals()[entry.base],), {
        "__doc__": entry.doc, "__module__": __name__, "error_class": entry.error_class,
        "exit_code": entry.exit_code, "fields": tuple(entry.fields)})


#: Every error class of the catalogue, in its order.
ERRORS: List[type] = []
for _entry in _gpumeter.error_catalogue():
    ERRORS.append(_make(_entry))
    globals()[_entry.name] = ERRORS[-1]
del _entry


class GpumeterWarning(UserWarning):
    """Base class of gpumeter's warnings: a measurement was made, with something to know."""


class FallbackWarning(GpumeterWarning):
    """The measurement fell back from what was asked: the host clock instead of the GPU's device
    time (``timing="auto"`` found no usable GPU), or device-events instead of kernel-records
    (``allow_events_fallback=True``). The record's deviations say so too.

    Turn it into an error with ``warnings.simplefilter("error", gpumeter.FallbackWarning)``.
    """


#: What the package re-exports (gpumeter/__init__.py: ``from ._errors import *``): the base, the
#: warnings and every error of the catalogue, so a new error touches no line there.
__all__ = ["Error", "GpumeterWarning", "FallbackWarning"] + [e.__name__ for e in ERRORS]
