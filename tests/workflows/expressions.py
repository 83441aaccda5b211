"""GitHub Actions expressions (`${{ ... }}` and `if:`), as the runner evaluates them.

The subset the example workflows use and a little more: context properties
(`github.event.pull_request.head.sha`, `vars.X`), literals, `==` `!=` `<` `<=`
`>` `>=` with GitHub's loose equality (strings compared without case, other
mixed types as numbers), `!` `&&` `||` returning operands, parentheses, and the
functions always(), success(), failure(), cancelled(), contains(),
startsWith(), endsWith().  Anything else is an error, never a guess.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

TOKEN = re.compile(r"""
    \s*(?:
      (?P<string>'(?:[^']|'')*')
    | (?P<number>-?\d+(?:\.\d+)?)
    | (?P<op>==|!=|<=|>=|&&|\|\||[<>!().,\[\]])
    | (?P<name>[A-Za-z_][A-Za-z0-9_-]*)
    )""", re.VERBOSE)
STATUS_FUNCTIONS = ("always", "success", "failure", "cancelled")
TEMPLATE = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)


class ExpressionError(Exception):
    """An expression the harness does not read: the workflow uses more than it implements."""


def tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    at = 0
    while at < len(text):
        if not text[at:].strip():
            break
        match = TOKEN.match(text, at)
        if match is None:
            raise ExpressionError(f"cannot read {text[at:]!r} in {text!r}")
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind)))
        at = match.end()
    return out


def truthy(value: Any) -> bool:
    """GitHub's truthiness: null, false, 0, NaN and '' are false."""
    if value is None or value is False or value == "":
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0 and not math.isnan(value)
    return True


def _number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0
        try:
            return float(text)
        except ValueError:
            return math.nan
    return math.nan


def _equal(left: Any, right: Any) -> bool:
    if isinstance(left, str) and isinstance(right, str):
        return left.casefold() == right.casefold()
    if isinstance(left, (dict, list)) or isinstance(right, (dict, list)):
        return left is right
    if type(left) is type(right) and not isinstance(left, str):
        return bool(left == right)
    return _number(left) == _number(right)


def text_of(value: Any) -> str:
    """A value as `${{ }}` puts it into text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _member(value: Any, key: Any) -> Any:
    if isinstance(value, dict):
        wanted = str(key).casefold()
        return next((item for name, item in value.items() if str(name).casefold() == wanted), None)
    if isinstance(value, list) and isinstance(key, (int, float)) and not isinstance(key, bool):
        index = int(key)
        return value[index] if 0 <= index < len(value) else None
    return None


class _Parser:
    def __init__(self, text: str, context: dict[str, Any], status: str) -> None:
        self.text, self.items, self.at = text, tokens(text), 0
        self.context, self.status = context, status

    def peek(self) -> tuple[str, str] | None:
        return self.items[self.at] if self.at < len(self.items) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        item = self.peek()
        if item is None or (value is not None and item[1] != value):
            raise ExpressionError(f"expected {value or 'more'} in {self.text!r}")
        self.at += 1
        return item

    def parse(self) -> Any:
        value = self.either()
        if self.peek() is not None:
            raise ExpressionError(f"unexpected {self.peek()[1]!r} in {self.text!r}")  # type: ignore[index]
        return value

    def either(self) -> Any:
        value = self.both()
        while self.peek() == ("op", "||"):
            self.take()
            right = self.both()
            value = value if truthy(value) else right
        return value

    def both(self) -> Any:
        value = self.equality()
        while self.peek() == ("op", "&&"):
            self.take()
            right = self.equality()
            value = right if truthy(value) else value
        return value

    def equality(self) -> Any:
        value = self.order()
        while self.peek() in (("op", "=="), ("op", "!=")):
            _, op = self.take()
            right = self.order()
            value = _equal(value, right) if op == "==" else not _equal(value, right)
        return value

    def order(self) -> Any:
        value = self.unary()
        while self.peek() in (("op", "<"), ("op", "<="), ("op", ">"), ("op", ">=")):
            _, op = self.take()
            right = self.unary()
            if isinstance(value, str) and isinstance(right, str):
                left_key, right_key = value.casefold(), right.casefold()
            else:
                left_key, right_key = _number(value), _number(right)  # type: ignore[assignment]
            value = {"<": left_key < right_key, "<=": left_key <= right_key,
                     ">": left_key > right_key, ">=": left_key >= right_key}[op]
        return value

    def unary(self) -> Any:
        if self.peek() == ("op", "!"):
            self.take()
            return not truthy(self.unary())
        return self.postfix()

    def postfix(self) -> Any:
        value = self.primary()
        while self.peek() in (("op", "."), ("op", "[")):
            _, op = self.take()
            if op == ".":
                kind, name = self.take()
                if kind != "name":
                    raise ExpressionError(f"a property name must follow '.' in {self.text!r}")
                value = _member(value, name)
            else:
                key = self.either()
                self.take("]")
                value = _member(value, key)
        return value

    def primary(self) -> Any:
        kind, value = self.take()
        if kind == "string":
            return value[1:-1].replace("''", "'")
        if kind == "number":
            return float(value)
        if (kind, value) == ("op", "("):
            inner = self.either()
            self.take(")")
            return inner
        if kind != "name":
            raise ExpressionError(f"unexpected {value!r} in {self.text!r}")
        if value in ("true", "false"):
            return value == "true"
        if value == "null":
            return None
        if self.peek() == ("op", "("):
            return self.call(value)
        return _member(self.context, value)

    def call(self, name: str) -> Any:
        self.take("(")
        args: list[Any] = []
        if self.peek() != ("op", ")"):
            args.append(self.either())
            while self.peek() == ("op", ","):
                self.take()
                args.append(self.either())
        self.take(")")
        functions: dict[str, Callable[..., Any]] = {
            "always": lambda: True,
            "success": lambda: self.status == "success",
            "failure": lambda: self.status == "failure",
            "cancelled": lambda: False,
            "contains": lambda haystack, needle: (
                any(_equal(item, needle) for item in haystack) if isinstance(haystack, list)
                else text_of(needle).casefold() in text_of(haystack).casefold()),
            "startswith": lambda text, prefix: text_of(text).casefold().startswith(text_of(prefix).casefold()),
            "endswith": lambda text, suffix: text_of(text).casefold().endswith(text_of(suffix).casefold()),
        }
        function = functions.get(name.casefold())
        if function is None:
            raise ExpressionError(f"function {name}() is not implemented by the harness ({self.text!r})")
        try:
            return function(*args)
        except TypeError:
            raise ExpressionError(f"{name}() takes other arguments than in {self.text!r}") from None


def evaluate(text: str, context: dict[str, Any], status: str = "success") -> Any:
    """The value of one expression (without the `${{ }}`)."""
    return _Parser(text, context, status).parse()


def interpolate(value: Any, context: dict[str, Any]) -> Any:
    """A workflow value with every `${{ ... }}` in its text replaced; other types as they are."""
    if not isinstance(value, str):
        return value
    whole = TEMPLATE.fullmatch(value.strip())
    if whole is not None and value.strip() == value:
        found = evaluate(whole.group(1), context)
        return found if isinstance(found, (dict, list)) else text_of(found)
    return TEMPLATE.sub(lambda match: text_of(evaluate(match.group(1), context)), value)


def condition(text: Any, context: dict[str, Any], status: str) -> bool:
    """A step's `if:`, as the runner reads it: without a status function, `success() && (...)`."""
    if text is None:
        return status == "success"
    if isinstance(text, bool):
        return text and status == "success"
    expression = str(text).strip()
    whole = TEMPLATE.fullmatch(expression)
    if whole is not None:
        expression = whole.group(1).strip()
    items = tokens(expression)
    called = {value.casefold() for (kind, value), after in zip(items, items[1:] + [("", "")])
              if kind == "name" and after == ("op", "(")}
    if not called & set(STATUS_FUNCTIONS):
        expression = f"success() && ({expression})"
    return truthy(evaluate(expression, context, status))
