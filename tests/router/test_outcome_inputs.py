"""Every input file of `lanelog outcome` in every wrong shape: exit 2 naming the file and what it held.

The event is one JSON object; the reviews and the label events are the arrays `gh api ...
--paginate` prints.  Whatever else a file holds (a bare scalar, the wrong container, no JSON, no
UTF-8, nothing, or no regular file at all) is an error naming the file and what was found, never
a traceback, and nothing is written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.router import github_payloads as gh

NOT_A_LIST = "must be the JSON array of {what} that `gh api ... --paginate` prints, not "


def not_a_list(found: str) -> str:
    return NOT_A_LIST + found


# (what the file holds, the event's error, the reviews' and label events' error)
SHAPES = [
    ("5", "is not a pull_request closed event (the payload is a number)", not_a_list("a number")),
    ("true", "is not a pull_request closed event (the payload is a boolean)",
     not_a_list("a boolean")),
    ("false", "is not a pull_request closed event (the payload is a boolean)",
     not_a_list("a boolean")),
    ("null", "is not a pull_request closed event (the payload is null)", not_a_list("null")),
    ('"closed"', "is not a pull_request closed event (the payload is a string of 6 characters)",
     not_a_list("a string of 6 characters")),
    ('{"action": "closed"}', "is not a pull_request closed event (action 'closed', no pull_request object)",
     not_a_list("an object")),
    ("[] 5", "is not JSON (line 1, column 4: Extra data)", not_a_list("a number")),
    ("[] null", "is not JSON (line 1, column 4: Extra data)", not_a_list("null")),
    ("[1, 2]", "is not a pull_request closed event (the payload is an array)", "key [0]: must be {item} object, "
                                                                              "not a number"),
    ("[[true]]", "is not a pull_request closed event (the payload is an array)", "key [0]: must be {item} object, "
                                                                                "not a boolean"),
    ("[[[]]]", "is not a pull_request closed event (the payload is an array)", "key [0]: must be {item} object, "
                                                                              "not an array"),
    ("{", "is not JSON (line 1, column 2: Expecting property name enclosed in double quotes)",
     "is not JSON (line 1, column 2: Expecting property name enclosed in double quotes)"),
    (b"[\xff]", "is not UTF-8 text (byte 1)", "is not UTF-8 text (byte 1)"),
    ("", "is not JSON (line 1, column 1: Expecting value)", not_a_list("an empty file")),
    ("folder", "is a folder, not a file", "is a folder, not a file"),
    ("fifo", "is not a regular file (a FIFO, a device or a socket)",
     "is not a regular file (a FIFO, a device or a socket)"),
]
OF_OPTION = {"--reviews": ("reviews", "a review"), "--label-events": ("issue events", "an issue event")}


def _bad(path: Path, held: str | bytes) -> Path:
    if held == "folder":
        path.mkdir()
    elif held == "fifo":
        os.mkfifo(path)  # no writer: a blocking read would wait for ever
    elif isinstance(held, bytes):
        path.write_bytes(held)
    else:
        path.write_text(held, encoding="utf-8")
    return path


@pytest.mark.parametrize(("held", "event_error", "pages_error"), SHAPES, ids=[str(shape[0]) for shape in SHAPES])
@pytest.mark.parametrize("option", ["--event", "--reviews", "--label-events"])
def test_an_input_file_of_the_wrong_shape_is_exit_2_naming_the_file_and_what_it_held(
        outcome, tmp_path, option, held, event_error, pages_error):
    bad = _bad(tmp_path / "input.json", held)
    args = []
    if option != "--event":
        good = tmp_path / "event.json"
        good.write_text(json.dumps(gh.merged_by_a_person()), encoding="utf-8")
        args = ["--event", str(good)]
    done = outcome(*args, option, str(bad))
    if option == "--event":
        why = event_error
    else:
        what, item = OF_OPTION[option]
        why = pages_error.format(what=what, item=item)
    separator = ", " if why.startswith("key") else ": "
    assert (done.exit_code, done.stdout, done.stderr) == (2, "", f"Error: {bad}{separator}{why}\n")
