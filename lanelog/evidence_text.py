"""The evidence of a decision as text a reviewer reads, wherever it is shown.

A line's ``evidence`` (router/evidence.py) holds lines of files and paths the patch
wrote: untrusted text.  ``evidence_lines`` turns it into plain lines (the job summary,
the policy-review comment and the What-if page show the same ones); ``fenced`` wraps
lines in a Markdown code block that no line can close, with every line framed (no
line break, control character or bidi mark survives); ``markdown_text`` escapes text
for running Markdown; ``details`` folds a fenced block under a fixed summary.  No
text from a log or a commit is ever placed where Markdown or HTML would read it.

Beside the leaves, on framing and the reason codes alone: the router, the commands
and the dashboard share it without loading each other.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lanelog.framing import framed, framed_line
from lanelog.reasons import REASONS, evidence_of

# Enough to stop emphasis, code, links, HTML, entities and table cells; values never open a line.
MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")
BACKTICKS = re.compile(r"`+")


def markdown_text(text: str) -> str:
    """Text as Markdown that renders literally, on one line."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", framed(text))


def reason_words(reason: str) -> str:
    """A reason code and its sentence, as a person reads it ("line cap: too many lines changed")."""
    sentence = REASONS.get(reason)
    words = reason.replace("_", " ")
    return f"{words}: {sentence}" if sentence else words


def reason_messages(reasons: object, message: str | None) -> dict[str, str]:
    """Each reason's own part of a line's message ("reason: text; reason: text"), by reason."""
    found: dict[str, str] = {}
    codes = [reason for reason in reasons if isinstance(reason, str)] if isinstance(reasons, list) else []
    text = message or ""
    for index, reason in enumerate(codes):
        start = text.find(f"{reason}: ")
        if start < 0:
            continue
        ends = [text.find(f"; {later}: ", start) for later in codes[index + 1:]]
        found[reason] = text[start:min((at for at in ends if at >= 0), default=len(text))]
    return found


def fenced(lines: Sequence[str]) -> list[str]:
    """``lines`` in a fenced code block: each framed (framed_line: a line may start with a file's
    name), the fence longer than any backtick run in them."""
    shown = [framed_line(line) for line in lines]
    longest = max((len(run) for line in shown for run in BACKTICKS.findall(line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *shown, fence]


def details(summary: str, lines: Sequence[str], above: Sequence[str] = ()) -> list[str]:
    """A collapsed block: ``summary`` (words of ours, escaped all the same) over the Markdown lines
    ``above`` (escaped by the caller) and ``lines`` fenced; no fence when there are no lines.

    The blank lines around them let GitHub read the block as Markdown inside the HTML.
    """
    inside = [*above, ""] if above else []
    inside += [*fenced(lines), ""] if lines else []
    return ["<details>", f"<summary>{html.escape(framed_line(summary))}</summary>", "", *inside, "</details>"]


def evidence_lines(evidence: object) -> list[str]:
    """The evidence as plain lines: removed assertion lines as ``file:line  -text`` with what
    replaced them (``+``, its new line number), the files that weigh most against the cap,
    the fixtures and tests.  Anything not in route's shape (a lane log is untrusted) is left out."""
    if not isinstance(evidence, Mapping):
        return []
    out: list[str] = []
    for key, part in evidence.items():
        if not isinstance(part, Mapping):
            continue
        section = _SECTIONS.get(evidence_of(key))
        if section is not None:
            out += ([""] if out else []) + section(part)
    return out


def named_lines(evidence: object) -> list[str]:
    """The lines a decision's reasons name, as evidence_lines shows them: each removed assertion line
    (``file:line  -text``, by its file and by the file it was renamed from).  A shortened
    policy-review comment keeps these before any line around them."""
    part = evidence.get("assertion_removed") if isinstance(evidence, Mapping) else None
    if not isinstance(part, Mapping):
        return []
    out: list[str] = []
    for line in _records(part.get("lines")):
        at, text = _number(line.get("old_line")), _text(line.get("text"))
        out += [f"{where}:{at}  -{text}" for where in dict.fromkeys((_text(line.get("file")),
                                                                     _text(line.get("old_file")))) if where]
    return out


def decided_lines(sides: Sequence[tuple[str, str, object]]) -> list[tuple[str, list[str], bool]]:
    """The lines each side of a flip decided on, from (side, probe, evidence): (side, lines, whole),
    the rejecting side first and whole.  The other side often reads the same lines under another
    rule: it keeps only the lines that differ (whole False), none when all are the same.  Sides
    without lines are left out.  The policy-review comment and the What-if page show these."""
    shown: list[tuple[str, list[str], bool]] = []
    for side, _probe, evidence in sorted(sides, key=lambda found: found[1] != "reject"):
        lines = evidence_lines(evidence)
        if lines and shown:
            first = set(shown[0][1])
            shown.append((side, [line for line in lines if line and line not in first], not first & set(lines)))
        elif lines:
            shown.append((side, lines, True))
    return shown


def _assertion_lines(part: Mapping[str, Any]) -> list[str]:
    removed, lines = _number(part.get("removed")), _records(part.get("lines"))
    restored, net = _number(part.get("restored")), _number(part.get("net"))
    verdict = "fired" if part.get("fired") is True else "did not fire"
    rule = _text(part.get("rule"))
    out = [f"{removed} removed line(s) match an assertion pattern, {restored} come back verbatim, "
           f"net change {net:+d}; assertion_rule {rule} {verdict}"]
    excerpts = _records(part.get("excerpts"))
    shown = {(_text(excerpt.get("file")), _number(row.get("line")))
             for excerpt in excerpts for row in _records(excerpt.get("lines")) if row.get("sign") == "-"}
    if excerpts:
        out.append("The diff around them (- removed, at its old line number; + added, at its new one; "
                   "unmarked: unchanged, for context):")
        for index, excerpt in enumerate(excerpts):
            where = _text(excerpt.get("file"))
            out += ["..."] if index else []
            out += [f"{where}:{_number(row.get('line'))}  {_sign(row.get('sign'))}{_text(row.get('text'))}"
                    for row in _records(excerpt.get("lines"))]
    pairs = [_paired(line) for line in lines if (_text(line.get("file")), _number(line.get("old_line"))) in shown]
    if any(pairs):
        out.append("Each removed line and the most similar added assertion of its change block:")
        out += [pair for pair in pairs if pair]
    for line in lines:
        if (_text(line.get("file")), _number(line.get("old_line"))) not in shown:
            out += _record_lines(line)
    total = _number(part.get("lines_total"))
    if total > len(lines):
        out.append(f"... and {total - len(lines)} more (the line keeps the first {len(lines)})")
    return out + _offsetting(part)


def _paired(line: Mapping[str, Any]) -> str:
    """A removed line's pairing in words: what replaced it, where it comes back verbatim."""
    where = f"-{_text(line.get('old_file')) or _text(line.get('file'))}:{_number(line.get('old_line'))}"
    replaced, back = line.get("replaced_by"), line.get("back_verbatim")
    said = []
    if isinstance(replaced, Mapping):
        said.append(f"is replaced by +{_text(line.get('file'))}:{_number(replaced.get('line'))}")
    if isinstance(back, Mapping):
        said.append(f"comes back verbatim at +{_text(back.get('file'))}:{_number(back.get('line'))}")
    return f"    {where} {' and '.join(said)}" if said else ""


def _record_lines(line: Mapping[str, Any]) -> list[str]:
    """A removed line without the diff around it: it and its statement, what replaced it and its statement."""
    where, file = _text(line.get("old_file")) or _text(line.get("file")), _text(line.get("file"))
    first = _number(line.get("old_line"))
    out = [f"{where}:{first}  -{_text(line.get('text'))}"]
    out += _continued(where, first, line.get("statement"))
    replaced = line.get("replaced_by")
    if isinstance(replaced, Mapping):
        at = _number(replaced.get("line"))
        out.append(f"{file}:{at}  +{_text(replaced.get('text'))}")
        out += _continued(file, at, replaced.get("statement"))
    back = line.get("back_verbatim")
    if isinstance(back, Mapping):
        out.append(f"    back verbatim at {_text(back.get('file'))}:{_number(back.get('line'))}")
    return out


def _continued(where: str, first: int, statement: object) -> list[str]:
    """A statement's continuation lines, numbered on from its first line."""
    return [f"{where}:{first + step}  {_sign(row.get('sign'))}{_text(row.get('text'))}"
            for step, row in enumerate(_records(statement), start=1)]


def _offsetting(part: Mapping[str, Any]) -> list[str]:
    """Under net and moved_ok, the added lines that offset the removed ones."""
    rows, total, rule = _records(part.get("offsetting")), _number(part.get("offsetting_total")), part.get("rule")
    if not rows:
        return []
    first = f" (the first {len(rows)})" if total > len(rows) else ""
    out = [f"{total} added assertion line(s) offset them under assertion_rule net{first}:" if rule == "net"
           else f"{total} added line(s) bring removed ones back verbatim (assertion_rule moved_ok){first}:"]
    for row in rows:  # indented: a list of the added lines, apart from the diff above
        where, at = _text(row.get("file")), _number(row.get("line"))
        out.append(f"    {where}:{at}  +{_text(row.get('text'))}")
        out += [f"    {line}" for line in _continued(where, at, row.get("statement"))]
    return out


def _sign(value: object) -> str:
    """A diff line's sign as shown: "-", "+", or a space for an unchanged line (anything else too)."""
    return value if isinstance(value, str) and value in ("-", "+") else " "


def _line_cap_lines(part: Mapping[str, Any]) -> list[str]:
    out = [f"{_number(part.get('counted'))} lines counted > line_cap {_number(part.get('line_cap'))}; "
           "the files that weigh most:"]
    files = _records(part.get("files"))
    out += [f"{_number(row.get('lines')):>8}  {_text(row.get('file'))}" for row in files]
    if _number(part.get("files_total")) > len(files):
        out.append(f"... and {_number(part.get('files_total')) - len(files)} more files")
    excluded = _records(part.get("excluded"))
    if excluded:
        out.append(f"excluded by the policy (not counted): {_number(part.get('excluded_total'))} file(s), "
                   f"{_number(part.get('excluded_lines'))} lines")
        out += [f"{_number(row.get('lines')):>8}  {_text(row.get('file'))}" for row in excluded]
    return out


def _fixture_lines(part: Mapping[str, Any]) -> list[str]:
    out = []
    for side in ("fixtures", "tests"):
        paths = [_text(path) for path in part.get(side) or [] if isinstance(path, str)] \
            if isinstance(part.get(side), list) else []
        more = _number(part.get(f"{side}_total")) - len(paths)
        out.append(f"{side}: {', '.join(paths)}" + (f" and {more} more" if more > 0 else ""))
    return out


# How each reason's evidence (lanelog.reasons) is shown.
_SECTIONS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "assertion_lines": _assertion_lines, "line_counts": _line_cap_lines, "paths": _fixture_lines}


def _records(value: object) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _number(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
