"""The budgets file (`--budgets FILE`): spend limits in money, read and checked before any figure.

    budgets:
      - name: all-spend        # a word: it names the budget in output and alerts
        amount: 1.0
        currency: USD          # spend in another currency never counts against it
        period: week           # a period of queries/periods.py: week (ISO, UTC, from Monday) or month (UTC)
        repo: "svc-*"          # optional: repositories whose name matches the pattern
        property: prop_round_trip   # optional: one property id
        thresholds: [0.8, 1.0] # shares of the amount that alert (the default)

Read with the policy's YAML reader (lanelog.yamlfile: bounded, no aliases, the
line of every key), so every error names the file, the line and the key.

A repo pattern is matched here, in Python, by ``glob_match``: ``*`` is any run of
characters and ``?`` one, every other character stands for itself.  It never
reaches SQL (no LIKE is built from it) and no regular expression is made of it,
so no pattern can be slow or mean more than it says.
"""

from __future__ import annotations

import datetime
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanelog.errors import BudgetInvalid, YamlFileError
from lanelog.files import NotRegular, read_regular
from lanelog.lazy import lazy_module
from lanelog.money import is_currency
from lanelog.queries.periods import PERIODS

if TYPE_CHECKING:
    from lanelog.yamlfile import YamlFile
# PyYAML (10 ms to import) only for a run given a budgets file: `report` imports this module always.
yamlfile = lazy_module("lanelog.yamlfile")

KEYS = ("name", "amount", "currency", "period", "repo", "property", "thresholds")
REQUIRED = ("name", "amount", "currency", "period")
DEFAULT_THRESHOLDS = (0.8, 1.0)
MAX_AMOUNT = 1e9          # as a usage's cost: past this it is no budget anyone set
MAX_BUDGETS = 100
MAX_THRESHOLDS = 10
MAX_SHARE = 10.0          # a threshold above 1000% of the amount is a typo
MAX_PATTERN = 200
# A name reaches alert texts, claim keys and JSON: a plain word keeps it inert there.
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}\Z")
PROPERTY_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")


@dataclass(frozen=True)
class Budget:
    """One spend limit: an amount of one currency per period (queries/periods.py), over a scope."""

    name: str
    amount: float
    currency: str
    period: str
    repo: str | None = None
    property: str | None = None
    thresholds: tuple[float, ...] = DEFAULT_THRESHOLDS
    where: str = ""  # "budgets.yaml line 3": where it was written, for warnings

    def scope_text(self) -> str:
        """What the budget counts, in words: "repositories svc-*, property p1", or "all spend"."""
        parts = ([f"repositories {self.repo}"] if self.repo is not None else []) + \
            ([f"property {self.property}"] if self.property is not None else [])
        return ", ".join(parts) or "all spend"

    def counts(self, repo: str | None, prop: str | None) -> bool:
        """Whether a cost of this repository and property id is this budget's."""
        if self.repo is not None and (repo is None or not glob_match(self.repo, repo)):
            return False
        return self.property is None or prop == self.property


def glob_match(pattern: str, text: str) -> bool:
    """``*`` any run of characters (none too), ``?`` one character, anything else itself.

    The classic two-pointer walk: on a mismatch it resumes after the last ``*``, so it
    takes at most len(pattern) * len(text) steps, whatever the pattern.
    """
    p = t = 0
    star, resume = -1, 0
    while t < len(text):
        if p < len(pattern) and (pattern[p] == "?" or (pattern[p] != "*" and pattern[p] == text[t])):
            p, t = p + 1, t + 1
        elif p < len(pattern) and pattern[p] == "*":
            star, resume = p, t
            p += 1
        elif star >= 0:
            p, resume = star + 1, resume + 1
            t = resume
        else:
            return False
    return all(char == "*" for char in pattern[p:])


def read_budgets(path: Path) -> list[Budget]:
    """The budgets of a file: a regular file of at most MAX_BYTES (lanelog.yamlfile) bytes of UTF-8 YAML."""
    return parse_budgets(read_budget_text(path), str(path))


def read_budget_text(path: Path) -> str:
    """A budgets file's text, read only from a regular file of at most MAX_BYTES (lanelog.yamlfile) bytes of UTF-8."""
    try:
        # Checked on the descriptor: a FIFO or a device put in the file's place cannot hang the run.
        data = read_regular(path, yamlfile.MAX_BYTES)
    except NotRegular:
        raise BudgetInvalid(f"{path}: the budgets file is not a regular file") from None
    except OSError as exc:
        raise BudgetInvalid(f"{path}: cannot read the budgets file ({exc.strerror or exc})") from None
    if data is None:
        raise BudgetInvalid(f"{path}: larger than {yamlfile.MAX_BYTES} bytes: no budgets file is this long")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BudgetInvalid(f"{path}: not UTF-8 text") from None


def parse_budgets(text: str, name: str) -> list[Budget]:
    """Parse and check a budgets file's text; ``name`` is the file's name in messages."""
    try:
        doc = yamlfile.YamlFile(text, name)
    except YamlFileError as exc:
        raise BudgetInvalid(str(exc)) from None
    if not isinstance(doc.data, dict):
        raise BudgetInvalid(f"{doc.where(())}: the file must hold `budgets:`, a list of budgets, "
                            f"not {_kind(doc.data)}")
    if "budgets" not in doc.data:
        raise BudgetInvalid(f"{doc.where(())}: the file must hold `budgets:`, a list of budgets")
    for key in doc.data:
        if key != "budgets":
            raise BudgetInvalid(f"{doc.where((str(key),))}: unknown key (known: budgets)")
    rows = doc.data["budgets"]
    if not isinstance(rows, list) or not rows:
        raise BudgetInvalid(f"{doc.where(('budgets',))}: must be a list of one or more budgets, "
                            f"not {_refused(rows, list)}")
    if len(rows) > MAX_BUDGETS:
        raise BudgetInvalid(f"{doc.where(('budgets',))}: more than {MAX_BUDGETS} budgets")
    budgets: list[Budget] = []
    for index, row in enumerate(rows):
        budget = _budget(row, ("budgets", index), doc)
        if any(other.name == budget.name for other in budgets):
            raise BudgetInvalid(f"{doc.where(('budgets', index, 'name'))}: a second budget named "
                                f"{budget.name!r}: each name must be unique (it keys the alerts)")
        budgets.append(budget)
    return budgets


def _budget(row: Any, key: tuple[str | int, ...], doc: YamlFile) -> Budget:
    if not isinstance(row, dict):
        raise BudgetInvalid(f"{doc.where(key)}: a budget must be a mapping of "
                            f"{', '.join(REQUIRED)} (and optionally repo, property, thresholds), not {_kind(row)}")
    for sub in row:
        if sub not in KEYS:
            raise BudgetInvalid(f"{doc.where(key + (str(sub),))}: unknown key (known: {', '.join(KEYS)})")
    for sub in REQUIRED:
        if sub not in row:
            raise BudgetInvalid(f"{doc.where(key)}: missing key {sub!r}")
    name = row["name"]
    if not isinstance(name, str) or not NAME.match(name):
        raise BudgetInvalid(f"{doc.where(key + ('name',))}: a name must be a word of at most 64 "
                            f"characters (letters, digits, _ . -, not starting with - or a digit), "
                            f"not {_refused(name, str)}")
    return Budget(
        name=name,
        amount=_amount(row["amount"], key + ("amount",), doc),
        currency=_currency(row["currency"], key + ("currency",), doc),
        period=_period(row["period"], key + ("period",), doc),
        repo=_pattern(row.get("repo"), key + ("repo",), doc),
        property=_property(row.get("property"), key + ("property",), doc),
        thresholds=_thresholds(row.get("thresholds", list(DEFAULT_THRESHOLDS)), key + ("thresholds",), doc),
        where=doc.where(key),
    )


def _kind(value: Any) -> str:
    """A YAML or JSON value of the wrong type, named by its type (and, when short, itself)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, (int, float)):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return f"text ({value!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return f"a date ({value.isoformat()})"
    return "binary data" if isinstance(value, bytes) else "a value of another type"


def _refused(value: Any, wanted: type) -> str:
    """What a refused value was: itself when of the type its key takes (a number for a
    number), else its type (_kind); a boolean is no number."""
    if isinstance(value, wanted) and not (isinstance(value, bool) and wanted is not bool):
        return repr(value)
    return _kind(value)


def _number(value: Any) -> float | None:
    """A finite YAML number as a float; None for anything else (a bool, text, .nan, .inf)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _amount(value: Any, key: tuple[str | int, ...], doc: YamlFile) -> float:
    number = _number(value)
    if number is None or not 0 < number <= MAX_AMOUNT:
        # YAML reads a quoted number, and 1e3 (an exponent without its sign), as text.
        hint = " (YAML reads this as text: write 1000 or 1.0e+3)" if isinstance(value, str) else ""
        raise BudgetInvalid(f"{doc.where(key)}: an amount must be a number above 0 and at most "
                            f"{MAX_AMOUNT:g}, not {_refused(value, float if isinstance(value, float) else int)}{hint}")
    return number


def _currency(value: Any, key: tuple[str | int, ...], doc: YamlFile) -> str:
    if not is_currency(value):
        raise BudgetInvalid(f"{doc.where(key)}: a currency must be three capital letters such as USD "
                            f"(as the usage the runs report), not {_refused(value, str)}")
    return value


def _period(value: Any, key: tuple[str | int, ...], doc: YamlFile) -> str:
    # (Checked to be text first: a list or a mapping is no key of PERIODS, and cannot be looked up.)
    if not isinstance(value, str) or value not in PERIODS:
        known = " or ".join(period.described for period in PERIODS.values())
        raise BudgetInvalid(f"{doc.where(key)}: a period must be {known}, not {_refused(value, str)}")
    return str(value)


def _pattern(value: Any, key: tuple[str | int, ...], doc: YamlFile) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value or len(value) > MAX_PATTERN or not value.isprintable():
        raise BudgetInvalid(f"{doc.where(key)}: repo must be a repository name or a pattern of printable "
                            f"text (* any run, ? one character) of at most {MAX_PATTERN} characters, "
                            f"not {_refused(value, str)}")
    return value


def _property(value: Any, key: tuple[str | int, ...], doc: YamlFile) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not PROPERTY_ID.match(value) or len(value) > MAX_PATTERN:
        raise BudgetInvalid(f"{doc.where(key)}: property must be a property id as lanes.yaml names it, "
                            f"not {_refused(value, str)}")
    return value


def _thresholds(value: Any, key: tuple[str | int, ...], doc: YamlFile) -> tuple[float, ...]:
    if not isinstance(value, list) or not value or len(value) > MAX_THRESHOLDS:
        raise BudgetInvalid(f"{doc.where(key)}: thresholds must be a list of 1 to {MAX_THRESHOLDS} shares "
                            f"of the amount, such as [0.8, 1.0], not {_refused(value, list)}")
    shares: list[float] = []
    for index, item in enumerate(value):
        number = _number(item)
        if number is None or not 0 < number <= MAX_SHARE:
            raise BudgetInvalid(f"{doc.where(key + (index,))}: a threshold must be a share of the amount "
                                f"above 0 and at most {MAX_SHARE:g} (1.0 is all of it), "
                                f"not {_refused(item, float if isinstance(item, float) else int)}")
        if number in shares:
            raise BudgetInvalid(f"{doc.where(key + (index,))}: threshold {number:g} is listed twice")
        shares.append(number)
    return tuple(sorted(shares))
