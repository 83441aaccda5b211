"""The policy (``lanes.yaml``): caps, path classes and the property map.

Path patterns use gitignore semantics (pathspec), so ``fixtures/`` matches
that folder at any depth and ``/store.py`` only the root file.  An invalid
policy raises ``PolicyInvalid`` with a message naming the file, key and line.

Assertion patterns are searched in removed lines and path patterns matched
against paths, both written by the patch, so both run on RE2: its time is
linear in the text whatever the pattern, where a backtracking engine can
spend hours on ``^(a+)+$`` and one crafted line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import pathspec
import re2

from lanelog.errors import PolicyInvalid, YamlFileError
from lanelog.money import is_currency
from lanelog.router.cost import cost_settings
from lanelog.router.paths import printable
from lanelog.yamlfile import YamlFile

DEFAULTS: dict[str, Any] = {
    "line_cap": 400,
    "budget_cap": 3,
    "exclude": ["*.lock", "generated/"],
    "fixture_paths": ["fixtures/", "*.fixture.json"],
    "test_paths": ["tests/", "test_*"],
    "assertion_patterns": [r"\bassert", r"\bexpect\(", r"\bprop_"],
    # The seed's rule: any removed line matching a pattern fires (see ASSERTION_RULES).
    "assertion_rule": "strict",
    # As `git diff --numstat` counts by default: a pure move changes 0 lines.
    "renames": "detect",
    # Where a removed matching line counts for assertion_removed; None: every file (the seed's rule).
    "assertion_paths": None,
}
# strict: any removed matching line fires.  net: fires when the diff removes more
# matching lines than it adds.  moved_ok: a removed matching line is excused by an
# added line of the same text (after str.strip()); any left unexcused fires.
ASSERTION_RULES = ("strict", "net", "moved_ok")
# detect: git's rename detection (git diff -M); split: a rename is a delete plus an add.
RENAME_SETTINGS = ("detect", "split")
REQUIRED = ("properties", "map")
# Optional and without a default value: a price table, model -> Price (see _prices), and
# a ceiling in money per patch with the model its estimate prices (router/cost.py).
OPTIONAL = ("prices", "cost_cap", "cost_model")
KNOWN_KEYS = (*DEFAULTS, *REQUIRED, *OPTIONAL)
PRICE_KEYS = ("input_per_million", "output_per_million", "currency")
PROPERTY_KEYS = ("units", "says")
# A price per million tokens past this (a dollar a token) is a typo; it keeps every cost a line holds finite.
MAX_PRICE = 1e6

# Path patterns match paths the patch names; pathspec's RE2 backend matches
# them in linear time too (and would be picked anyway whenever RE2 is
# installed: naming it keeps the choice visible and fixed).
PATH_BACKEND = "re2"

# Property ids reach a runner's argv and environment; a plain word keeps them
# inert there (no spaces, no leading dash, no shell syntax).
PROPERTY_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")


class Pattern(Protocol):
    """A compiled assertion pattern (RE2)."""

    pattern: str

    def search(self, text: str) -> object: ...



@dataclass(frozen=True)
class Property:
    """A named statement stored in the repo, and its price in units."""

    units: int
    says: str


@dataclass(frozen=True)
class Price:
    """What a model's tokens cost: per million input and output tokens, in a currency."""

    input_per_million: float
    output_per_million: float
    currency: str


@dataclass(frozen=True)
class MapRow:
    """One ``map`` entry: a path pattern and the property ids it selects."""

    pattern: str
    spec: pathspec.GitIgnoreSpec
    properties: tuple[str, ...]


@dataclass(frozen=True)
class Policy:
    """A validated policy; the classification helpers are pure string matching."""

    line_cap: int
    budget_cap: int
    exclude: pathspec.GitIgnoreSpec
    fixture_paths: pathspec.GitIgnoreSpec
    test_paths: pathspec.GitIgnoreSpec
    assertion_patterns: tuple[Pattern, ...]
    properties: Mapping[str, Property]
    map: tuple[MapRow, ...] = field(default=())
    assertion_rule: str = "strict"
    renames: str = "detect"
    # The assertion patterns as one alternation: one RE2 search per removed
    # line instead of one per pattern (the binding's cost is per call).
    # None when there is nothing to join or the join is too large for RE2.
    assertion_any: Pattern | None = None
    # The files whose removed (and, for `net`, added) matching lines count; None: every file.
    assertion_paths: pathspec.GitIgnoreSpec | None = None
    # Prices of model calls by model name, for a runner's usage that gives no cost.
    prices: Mapping[str, Price] = field(default_factory=dict)
    # Money per patch the selected properties' calls may cost, estimated before arming (router/cost.py),
    # and the priced model the estimate uses; None: no ceiling in money.
    cost_cap: float | None = None
    cost_model: str | None = None

    # Patterns see a path as the line shows it (paths.printable): they are
    # UTF-8 text, and pathspec may match on RE2, which takes nothing else.
    def is_excluded(self, path: str) -> bool:
        return self.exclude.match_file(printable(path))

    def is_fixture(self, path: str) -> bool:
        return self.fixture_paths.match_file(printable(path))

    def is_test(self, path: str) -> bool:
        return self.test_paths.match_file(printable(path))

    def properties_for(self, path: str) -> list[str]:
        """The ids every matching map row selects, in map order."""
        shown = printable(path)
        return [prop for row in self.map if row.spec.match_file(shown) for prop in row.properties]

    def counts_assertions_in(self, path: str) -> bool:
        """Whether matching lines of ``path`` count for assertion_removed (assertion_paths)."""
        return self.assertion_paths is None or self.assertion_paths.match_file(printable(path))

    def is_assertion(self, line: str) -> bool:
        if self.assertion_any is not None:
            return self.assertion_any.search(line) is not None
        return any(pattern.search(line) for pattern in self.assertion_patterns)


def parse_policy(text: str, name: str) -> Policy:
    """Parse and validate ``lanes.yaml`` text; ``name`` is used in messages."""
    try:
        doc = YamlFile(text, name)
    except YamlFileError as exc:
        raise PolicyInvalid(str(exc)) from None
    if not isinstance(doc.data, dict):
        raise PolicyInvalid(f"{doc.where(())}: the policy must be a mapping of keys")
    return _build(doc.data, doc)


def policy_from_mapping(data: Mapping[str, Any], name: str = "<policy>") -> Policy:
    """Build a policy from a mapping already in memory (same validation)."""
    return _build(dict(data), YamlFile("{}", name))


def _build(data: dict[str, Any], doc: YamlFile) -> Policy:
    for key in data:
        if key not in KNOWN_KEYS:
            raise PolicyInvalid(f"{doc.where((str(key),))}: unknown key "
                                f"(known: {', '.join(KNOWN_KEYS)})")
    for key in REQUIRED:
        if key not in data:
            raise PolicyInvalid(f"{doc.where(())}: missing key {key!r} (the map and its "
                                "properties are the spec; an empty map cannot price a patch)")
    value = {**DEFAULTS, **data}
    properties = _properties(value["properties"], doc)
    assertion_patterns = _regexes(value["assertion_patterns"], doc)
    prices = _prices(value.get("prices", {}), doc)
    cost_cap, cost_model = cost_settings(value, prices, doc)
    return Policy(
        line_cap=_count(value["line_cap"], ("line_cap",), doc),
        budget_cap=_count(value["budget_cap"], ("budget_cap",), doc),
        exclude=_patterns(value["exclude"], ("exclude",), doc),
        fixture_paths=_patterns(value["fixture_paths"], ("fixture_paths",), doc),
        test_paths=_patterns(value["test_paths"], ("test_paths",), doc),
        assertion_patterns=assertion_patterns,
        properties=properties,
        map=_map(value["map"], properties, doc),
        assertion_any=_any_of(assertion_patterns),
        assertion_rule=_choice(value["assertion_rule"], "assertion_rule", ASSERTION_RULES, doc),
        renames=_choice(value["renames"], "renames", RENAME_SETTINGS, doc),
        assertion_paths=(None if value["assertion_paths"] is None
                         else _patterns(value["assertion_paths"], ("assertion_paths",), doc)),
        prices=prices,
        cost_cap=cost_cap,
        cost_model=cost_model,
    )


def _prices(value: Any, doc: YamlFile) -> dict[str, Price]:
    """``prices: {model: {input_per_million: N, output_per_million: N, currency: USD}}``."""
    if not isinstance(value, dict):
        raise PolicyInvalid(f"{doc.where(('prices',))}: must map model names to "
                            "{input_per_million: N, output_per_million: N, currency: USD}")
    prices: dict[str, Price] = {}
    for model, row in value.items():
        key = ("prices", str(model))
        if not isinstance(model, str) or not model.strip() or len(model) > 200 \
                or not model.isprintable():
            raise PolicyInvalid(f"{doc.where(key)}: a model name must be printable text, "
                                f"not {model!r}")
        if not isinstance(row, dict):
            raise PolicyInvalid(f"{doc.where(key)}: must be {{input_per_million: N, "
                                "output_per_million: N, currency: USD}")
        for sub in row:
            if sub not in PRICE_KEYS:
                raise PolicyInvalid(f"{doc.where(key + (str(sub),))}: unknown key "
                                    f"(known: {', '.join(PRICE_KEYS)})")
        for sub in PRICE_KEYS:
            if sub not in row:
                raise PolicyInvalid(f"{doc.where(key)}: missing key {sub!r}")
        for sub in ("input_per_million", "output_per_million"):
            number = row[sub]
            if isinstance(number, bool) or not isinstance(number, (int, float)) \
                    or not math.isfinite(number) or not 0 <= number <= MAX_PRICE:
                raise PolicyInvalid(f"{doc.where(key + (sub,))}: must be a price from 0 to {MAX_PRICE:g} "
                                    f"per million tokens, not {number!r}")
        if not is_currency(row["currency"]):
            raise PolicyInvalid(f"{doc.where(key + ('currency',))}: must be a three-letter "
                                f"currency code such as USD, not {row['currency']!r}")
        prices[model] = Price(float(row["input_per_million"]), float(row["output_per_million"]),
                              row["currency"])
    return prices


def _choice(value: Any, key: str, allowed: tuple[str, ...], doc: YamlFile) -> str:
    if value not in allowed:
        raise PolicyInvalid(f"{doc.where((key,))}: must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


def _count(value: Any, key: tuple[str, ...], doc: YamlFile) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PolicyInvalid(f"{doc.where(key)}: must be a whole number >= 0, not {value!r}")
    return value


def _strings(value: Any, key: tuple[str, ...], doc: YamlFile) -> list[str]:
    if not isinstance(value, list):
        raise PolicyInvalid(f"{doc.where(key)}: must be a list of strings")
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise PolicyInvalid(f"{doc.where(key + (index,))}: must be a non-empty string, "
                                f"not {item!r}")
    return value


def _patterns(value: Any, key: tuple[str, ...], doc: YamlFile) -> pathspec.GitIgnoreSpec:
    lines = _strings(value, key, doc)
    for index, line in enumerate(lines):
        _pattern(line, key + (index,), doc)
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines, backend=PATH_BACKEND)
    except re2.error as exc:
        raise PolicyInvalid(f"{doc.where(key)}: too many or too large path patterns for RE2 "
                            f"({_re2_problem(exc)})") from None


def _pattern(line: str, key: tuple[str | int, ...], doc: YamlFile) -> pathspec.GitIgnoreSpec:
    try:
        return pathspec.GitIgnoreSpec.from_lines([line], backend=PATH_BACKEND)
    except (ValueError, re.error, re2.error) as exc:
        raise PolicyInvalid(f"{doc.where(key)}: bad path pattern {line!r} ({exc})") from None


def _regexes(value: Any, doc: YamlFile) -> tuple[Pattern, ...]:
    options = _re2_options()
    compiled = []
    for index, text in enumerate(_strings(value, ("assertion_patterns",), doc)):
        try:
            compiled.append(re2.compile(text, options))
        except re2.error as exc:
            raise PolicyInvalid(f"{doc.where(('assertion_patterns', index))}: {text!r} is not "
                                f"an RE2 pattern ({_re2_problem(exc)}); patterns run in linear "
                                "time, without lookaround or backreferences") from None
    return tuple(compiled)


def _any_of(patterns: tuple[Pattern, ...]) -> Pattern | None:
    if len(patterns) < 2:
        return patterns[0] if patterns else None
    # A group keeps each pattern's inline flags, such as (?i), to itself.
    text = "|".join(f"(?:{pattern.pattern})" for pattern in patterns)
    try:
        combined: Pattern = re2.compile(text, _re2_options())
    except re2.error:
        return None  # each pattern compiled alone: search them one by one
    return combined


def _re2_problem(exc: re2.error) -> str:
    """RE2's reason, which the binding gives as bytes."""
    problem = exc.args[0] if exc.args else "refused"
    return problem.decode("utf-8", "replace") if isinstance(problem, bytes) else str(problem)


def _re2_options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # the error goes into the reject, not onto stderr
    return options


def _properties(value: Any, doc: YamlFile) -> dict[str, Property]:
    if not isinstance(value, dict) or not value:
        raise PolicyInvalid(f"{doc.where(('properties',))}: must map property ids to "
                            "{units: N, says: \"...\"}")
    properties: dict[str, Property] = {}
    for prop, row in value.items():
        key = ("properties", str(prop))
        if not isinstance(prop, str) or not PROPERTY_ID.match(prop):
            raise PolicyInvalid(f"{doc.where(key)}: property id {prop!r} must be a word "
                                "(letters, digits, _ . -, not starting with - or a digit)")
        if not isinstance(row, dict):
            raise PolicyInvalid(f"{doc.where(key)}: must be {{units: N, says: \"...\"}}")
        for sub in row:
            if sub not in PROPERTY_KEYS:
                raise PolicyInvalid(f"{doc.where(key + (str(sub),))}: unknown key "
                                    f"(known: {', '.join(PROPERTY_KEYS)})")
        units = row.get("units")
        if isinstance(units, bool) or not isinstance(units, int) or units <= 0:
            raise PolicyInvalid(f"{doc.where(key + ('units',))}: units must be a positive "
                                f"integer, not {units!r}")
        says = row.get("says")
        if not isinstance(says, str) or not says.strip():
            raise PolicyInvalid(f"{doc.where(key + ('says',))}: says must state the property "
                                "(the sentence is the spec)")
        properties[prop] = Property(units=units, says=says)
    return properties


def _map(value: Any, properties: Mapping[str, Property], doc: YamlFile) -> tuple[MapRow, ...]:
    if not isinstance(value, dict):
        raise PolicyInvalid(f"{doc.where(('map',))}: must map path patterns to lists of "
                            "property ids")
    rows = []
    for pattern, ids in value.items():
        key = ("map", str(pattern))
        if not isinstance(pattern, str) or not pattern.strip() or pattern.startswith("!"):
            raise PolicyInvalid(f"{doc.where(key)}: a map key must be a path pattern, "
                                f"not {pattern!r}")
        for index, prop in enumerate(_strings(ids, key, doc)):
            if prop not in properties:
                raise PolicyInvalid(f"{doc.where(key + (index,))}: {prop!r} is not declared "
                                    "under properties")
        rows.append(MapRow(pattern, _pattern(pattern, key, doc), tuple(ids)))
    return tuple(rows)


SEED_POLICY = policy_from_mapping({
    "properties": {
        "prop_round_trip": {"units": 1, "says": "serialize-then-parse returns the same record"},
        "prop_idempotent_put": {
            "units": 1,
            "says": "a second put of the same key does not change the stored body",
        },
        "prop_reject_empty": {"units": 1, "says": "an empty payload remains a client error"},
    },
    "map": {
        "store.py": ["prop_round_trip", "prop_idempotent_put"],
        "api.py": ["prop_reject_empty"],
    },
}, name="the seed's example policy")
