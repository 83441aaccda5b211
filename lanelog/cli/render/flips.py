"""The policy-review comment's patches, one by one: every flip (with --no-baseline, every reject)
in a table, then each one's decisions and lines in a collapsed block.

GitHub takes a comment of at most 65,536 characters.  When the patches do not fit, the comment
is shortened level by level (``LEVELS``: subjects, reason messages, then the words inside each
block) until every block fits with the first line its reasons name (the removed assertion line
an assertion_removed reject rests on); then the blocks' lines are kept round by round, a line a
block at a time, in three tiers: the first named line and lanelog's words on each side, the other
named lines, then the lines around them, head first.  A block that needs less leaves the rest to
the others, and the room left by a line too long to fit goes to the next.  A patch
keeps its row and its block (300 do, the example workflow's replay); only past that do the last
ones keep only their row, and past about 1,200 rows lose their row too.  The comment says what
was cut and where the whole replay is.
Each reason's sentence is said once, above the blocks.  Commit text is escaped (render.md) or
fenced (evidence_text): it never becomes Markdown or HTML.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from lanelog.cli.render.cells import md
from lanelog.evidence_text import BACKTICKS, decided_lines, details, named_lines, reason_messages
from lanelog.framing import framed_line
from lanelog.reasons import REASONS

COMMENT_LIMIT = 65_536
# What the replay's markdown may take of a comment: a workflow adds a line or two of its own
# (the first-policy note, where the run keeps the whole replay).
MARKDOWN_LIMIT = COMMENT_LIMIT - 1_536
CUT_NOTE = "... {} more line(s) cut to fit the comment"


@dataclass(frozen=True)
class Level:
    """How much a shortened comment keeps: characters of a subject and of a reason message (0:
    none), and whether a block says each side's decision in its summary and its first lines."""

    subjects: int
    messages: int
    decisions: bool = True


LEVELS = (Level(160, 400), Level(80, 160), Level(40, 0), Level(0, 0, decisions=False))


def size(text: str) -> int:
    """Characters as GitHub counts a comment's: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def short(text: str | None, keep: int) -> str:
    """``text`` kept to ``keep`` characters, a longer one ending in "…"."""
    text = text or ""
    return text if len(text) <= keep else text[:max(keep - 1, 0)] + "…"


@dataclass
class _Patch:
    """One patch of the section: where it is listed, its decisions, and its lines as shown, one
    part a side (the rejecting side's whole, the other's where it reads otherwise)."""

    number: int
    patch: dict[str, Any]
    sides: list[tuple[str, dict[str, Any]]]
    parts: list[list[str]]

    @property
    def lines(self) -> list[str]:
        return [line for part in self.parts for line in part]

    def named(self) -> list[list[int]]:
        """Each part's lines its sides' reasons name (evidence_text.named_lines), by index."""
        names = {framed_line(line) for _side, decision in self.sides for line in named_lines(decision.get("evidence"))}
        return [[index for index, line in enumerate(part) if line in names] for part in self.parts]

    def tiers(self) -> list[list[tuple[int, int]]]:
        """The patch's lines, (part, index), in the order a shortened comment keeps them: the first line
        of each part its sides' reasons name and lanelog's words heading each part, the other named
        lines, then the rest in order."""
        named = self.named()
        heads = [(number, next(index for index, line in enumerate(part) if line))
                 for number, part in enumerate(self.parts) if any(part)]
        first = list(dict.fromkeys([(number, found[0]) for number, found in enumerate(named) if found] + heads))
        rest = [(number, index) for number, found in enumerate(named) for index in found[1:]]
        taken = set(first) | set(rest)
        return [first, rest, [(number, index) for number, part in enumerate(self.parts)
                              for index in range(len(part)) if (number, index) not in taken]]


def patches_section(rows: list[tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]], noun: str,
                    used: int, whole: str) -> list[str]:
    """The section of ``rows`` (a patch and its sides' decisions, evidence included) for a comment
    whose other lines take ``used`` characters; ``whole`` says where the whole replay is."""
    patches = [_Patch(number, patch, sides, _parts(sides)) for number, (patch, sides) in enumerate(rows, start=1)]
    if not patches:
        return ["", f"## {noun.capitalize()}s (0)", "",
                "No patch changes its probe." if noun == "flip" else "The candidate passes every patch."]
    room = MARKDOWN_LIMIT - used
    # The longest notice there can be, so that the one said at the end fits in its room.
    most = {"subjects": True, "messages": True, "lines": len(patches), "blocks": len(patches),
            "rows": len(patches)}
    # The first line each block's reasons name (its part's lines' room): what a level must leave room for.
    named = [sum(size(patch.parts[number][found[0]]) + 1 for number, found in enumerate(patch.named()) if found)
             for patch in patches]
    for level in LEVELS:
        # Each block as its skeleton: its words, and for its lines only the room of their cut notes.
        blocks = [size("\n".join(_block(patch, level, None))) + 1 for patch in patches]
        listed, with_blocks = _fitting(patches, [block + need for block, need in zip(blocks, named)], noun, level,
                                       whole, most, room)
        if with_blocks == len(patches) or level is LEVELS[-1]:
            break
    room -= size("\n".join(_head(patches[:listed], len(patches), noun, level, whole, most))) + 1
    room -= sum(blocks[:with_blocks]) + sum(2 * (_fence(patch.lines) - 3) for patch in patches[:with_blocks])
    fitted = _kept(patches[:with_blocks], room)
    told = {"subjects": any(len(patch.patch.get("subject") or "") > level.subjects for patch in patches),
            "messages": any(len(message) > level.messages for patch in patches for _side, decision in patch.sides
                            for message in reason_messages(decision.get("reasons"), decision.get("message")).values()),
            "lines": sum(sum(map(len, kept)) < len(patch.lines) for kept, patch in zip(fitted, patches)),
            "blocks": listed - with_blocks, "rows": len(patches) - listed}
    out = _head(patches[:listed], len(patches), noun, level, whole, told)
    for patch, kept in zip(patches, fitted):
        out += _block(patch, level, kept)
    return out


def _fitting(patches: list[_Patch], blocks: list[int], noun: str, level: Level, whole: str,
             most: dict[str, Any], room: int) -> tuple[int, int]:
    """How many patches keep their row, and how many their block too, in ``room``: every one
    whenever they fit; else the last ones lose their block first, then their row."""
    left = room - size("\n".join(_head(patches, len(patches), noun, level, whole, most))) - sum(blocks)
    with_blocks = rows = len(patches)
    while with_blocks and left < 0:
        with_blocks -= 1
        left += blocks[with_blocks]
    while rows and left < 0:
        rows -= 1
        left += size(_row(patches[rows], level)) + 1
    return rows, min(rows, with_blocks)


def _head(patches: list[_Patch], total: int, noun: str, level: Level, whole: str, told: dict[str, Any]) -> list[str]:
    """The section's title, its table of patches, what was shortened, and each reason's sentence."""
    sides = [side for side, _decision in patches[0].sides] if patches else []
    out = ["", f"## {noun.capitalize()}s ({total})", "",
           f"| # | commit | {' | '.join(sides)} |" + (" subject |" if level.subjects else ""),
           "|---:|---|" + "---|" * len(sides) + ("---|" if level.subjects else "")]
    out += [_row(patch, level) for patch in patches]
    out += ["", _notice(noun, told, whole), "", "What each reason means:", ""]
    out += [f"- **{md(reason.replace('_', ' '))}**: {md(REASONS.get(reason, ''))}" for reason in _reasons(patches)]
    return out + ["", f"### Why each {noun}", ""]


def _row(patch: _Patch, level: Level) -> str:
    """A patch's row of the table: its number, short commit id, each side's decision, its subject."""
    return (f"| {patch.number} | {md(patch.patch['head'][:12])} | "
            + " | ".join(_side(decision) for _name, decision in patch.sides) + " |"
            + (f" {md(short(patch.patch.get('subject'), level.subjects))} |" if level.subjects else ""))


def _block(patch: _Patch, level: Level, kept: list[list[str]] | None) -> list[str]:
    """One patch collapsed: its decisions (a rejecting side's reasons with their messages, kept to
    ``level.messages`` characters) and the lines they rest on, each part's ``kept`` lines and a note
    of how many more it had (``kept`` None: the note alone, the room a skeleton keeps)."""
    said = []
    if level.decisions:
        for side, decision in patch.sides:
            parts = reason_messages(decision.get("reasons"), decision.get("message")) if level.messages else {}
            said.append(f"- {side}: {md(decision['probe'])}" + "".join(
                f"; {md(short(parts[reason], level.messages))}" for reason in decision["reasons"] if reason in parts))
        if not patch.lines:
            said += ["", "Neither side's decision rests on lines of this patch."]
    summary = f"{patch.number}. {patch.patch['head'][:12]}" + (": " + "; ".join(
        f"{side} {decision['probe']}" + (f" ({_words_of(decision['reasons'])})" if decision["reasons"] else "")
        for side, decision in patch.sides) if level.decisions else "")
    fitted = kept if kept is not None else [[] for _part in patch.parts]
    shown = [line for part, lines in zip(patch.parts, fitted)
             for line in [*lines, *[CUT_NOTE.format(len(part) - len(lines))] * (len(lines) < len(part))]]
    return [*details(summary, shown, above=said), ""]


def _words_of(reasons: list[Any]) -> str:
    """Reason codes as words ("assertion removed, line cap")."""
    return ", ".join(str(reason).replace("_", " ") for reason in reasons)


def _parts(sides: list[tuple[str, dict[str, Any]]]) -> list[list[str]]:
    """The lines each side decided on (evidence_text.decided_lines), a part a side, with lanelog's
    words above each."""
    parts: list[list[str]] = []
    for side, lines, whole in decided_lines([(side, str(decision["probe"]), decision.get("evidence"))
                                             for side, decision in sides]):
        probe = next(decision["probe"] for name, decision in sides if name == side)
        verb = {"reject": "it rejects", "pass": "it passes"}.get(probe, "it decides")
        if whole:
            part = [f"The lines the {side} decided on ({verb}):", *lines]
        elif lines:
            part = ["", f"What the {side} reads otherwise ({verb}):", *lines]
        else:
            part = ["", f"The {side} decided on the same lines ({verb})."]
        parts.append([framed_line(line) for line in part])
    return parts


def _reasons(patches: list[_Patch]) -> list[str]:
    """The reason codes of the rejecting sides, each once, in order of first use."""
    return list(dict.fromkeys(reason for patch in patches for _side, decision in patch.sides
                              for reason in decision["reasons"] if isinstance(reason, str)))


def _side(decision: dict[str, Any]) -> str:
    """A decision in a markdown cell: its probe and reasons, escaped."""
    return f"{md(decision['probe'])} {md(', '.join(decision['reasons']))}".rstrip()


def _fence(lines: list[str]) -> int:
    """The length of the fence evidence_text.fenced puts around ``lines``."""
    return max(3, max((len(run) for line in lines for run in BACKTICKS.findall(line)), default=0) + 1)


def _kept(patches: list[_Patch], room: int) -> list[list[list[str]]]:
    """Each patch's lines that fit ``room`` (their cut notes have room of their own), part by part in
    their order: tier by tier (_Patch.tiers), round by round, each block takes its next line that fits."""
    kept: list[list[set[int]]] = [[set() for _part in patch.parts] for patch in patches]
    tiers = [patch.tiers() for patch in patches]
    for tier in range(3):
        queues = [deque(order[tier]) for order in tiers]
        while any(queues):
            for queue, patch, found in zip(queues, patches, kept):
                while queue:
                    number, index = queue.popleft()
                    cost = size(patch.parts[number][index]) + 1
                    if cost <= room:
                        room -= cost
                        found[number].add(index)
                        break
    return [[[part[index] for index in sorted(indices)] for part, indices in zip(patch.parts, found)]
            for patch, found in zip(patches, kept)]


def _notice(noun: str, told: dict[str, Any], whole: str) -> str:
    """What was shortened to fit the comment, and where the whole replay is."""
    said = ["subjects"] * bool(told["subjects"]) + ["reason messages"] * bool(told["messages"]) + [
        f"the lines of {told['lines']} {noun}(s)"] * bool(told["lines"]) + [
        f"the last {told['blocks']} {noun}(s) to their table row"] * bool(told["blocks"])
    left_out = f"the last {told['rows']} {noun}(s) are left out, their rows too; " if told["rows"] else ""
    if not said:
        return f"Every {noun} is listed with its lines; {whole}."
    return (f"{'Not every' if told['rows'] else 'Every'} {noun} is listed: to keep this comment within GitHub's "
            f"65,536 characters, {_words(said)} were shortened; {left_out}{whole}.")


def _words(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
