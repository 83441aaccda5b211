"""The bundled property runner: one chat-completions call per property.

Run as ``lanelog route --run 'python -m lanelog.router.model'`` (or the
``lanelog-model`` script).  It sends what the design note names (the property
id and its statement, the fixture hash and the patch) to any OpenAI-compatible
``/chat/completions`` endpoint, asks for exactly ``hold`` or ``fail``, and
prints one JSON line ``{"token": ..., "usage": {...}}``; anything but those two
words is ``unresolved``.  Settings come from the environment (see SETTINGS and
docs/router.md); the key is sent only in the Authorization header and never
printed.  Plain HTTP with the standard library: the runner is a CI step's
dependency, and the bare install stays small.

``lanelog route`` never imports this module: it is a separate process.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import math
import os
import socket
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lanelog.framing import framed

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_RESPONSE = 1024 * 1024
MAX_ERROR_BODY = 64 * 1024  # an error answer is read this far, for its code and type only
RETRY_AFTER_CAP = 30.0
SYSTEM_PROMPT = (
    "You judge one property of a code patch. The property is a sentence stored in the "
    "repository; it is the spec. Read the patch and answer with exactly one word: hold if "
    "the property still holds after the patch, fail if the patch breaks it. No other text."
)
# name -> (default, meaning); the doc table in docs/router.md lists the same.
SETTINGS = {
    "LANELOG_MODEL": (None, "the model name sent in the request (required)"),
    "LANELOG_MODEL_BASE_URL": (None, "the endpoint's base URL, before /chat/completions "
                                     "(else OPENAI_BASE_URL, else " + DEFAULT_BASE_URL + ")"),
    "LANELOG_MODEL_API_KEY": (None, "the bearer key (else OPENAI_API_KEY; none for a local server)"),
    "LANELOG_MODEL_TIMEOUT": ("60", "seconds per request"),
    "LANELOG_MODEL_RETRIES": ("3", "retries after a 429 or 5xx answer"),
    "LANELOG_MODEL_BACKOFF": ("1", "seconds before the first retry, doubled each time"),
    "LANELOG_MODEL_MAX_PATCH_BYTES": ("200000", "a larger patch is not sent: unresolved"),
    "LANELOG_MODEL_MAX_TOKENS": ("5", "max_tokens asked of the model"),
    "LANELOG_MODEL_COST_CURRENCY": ("USD", "the currency of a cost the endpoint reports"),
}


class ModelError(Exception):
    """Why no token came back; the run prints unresolved with this reason."""


@dataclass(frozen=True)
class Settings:
    """The runner's settings, read from the environment once."""

    url: str
    model: str
    key: str | None
    timeout: float
    retries: int
    backoff: float
    max_patch: int
    max_tokens: int
    cost_currency: str

    @classmethod
    def from_env(cls, env: dict[str, str]) -> Settings:
        model = env.get("LANELOG_MODEL", "").strip()
        if not model:
            raise ModelError("LANELOG_MODEL is not set: name the model to call")
        base = (env.get("LANELOG_MODEL_BASE_URL") or env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL)
        if not base.startswith(("http://", "https://")):
            raise ModelError("the base URL must start with http:// or https://")
        return cls(
            url=base.rstrip("/") + "/chat/completions",
            model=model,
            key=env.get("LANELOG_MODEL_API_KEY") or env.get("OPENAI_API_KEY") or None,
            timeout=_number(env, "LANELOG_MODEL_TIMEOUT", float, 0.001, 3600),
            retries=_number(env, "LANELOG_MODEL_RETRIES", int, 0, 10),
            backoff=_number(env, "LANELOG_MODEL_BACKOFF", float, 0, 60),
            max_patch=_number(env, "LANELOG_MODEL_MAX_PATCH_BYTES", int, 1, 50_000_000),
            max_tokens=_number(env, "LANELOG_MODEL_MAX_TOKENS", int, 1, 4096),
            cost_currency=env.get("LANELOG_MODEL_COST_CURRENCY", "USD"),
        )


def _number(env: dict[str, str], name: str, kind: type, low: float, high: float) -> Any:
    text = env.get(name) or SETTINGS[name][0]
    try:
        value = kind(text)
    except (TypeError, ValueError):
        raise ModelError(f"{name} must be a number, not {text!r}") from None
    if not (isinstance(value, int) or math.isfinite(value)) or not low <= value <= high:
        raise ModelError(f"{name} must be from {low:g} to {high:g}")
    return value


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not a place to send the key to."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def messages(prop: str, says: str, fixture_hash: str, patch: str) -> list[dict[str, str]]:
    """The chat: the rule, then the property, its statement, the fixture hash and the patch."""
    user = (f"Property: {prop}\nStatement: {says}\nFixture hash: {fixture_hash}\n"
            f"Patch (git diff):\n{patch}\n\nAnswer hold or fail.")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def call(settings: Settings, body: bytes, sleep: Any = time.sleep) -> tuple[dict[str, Any], dict[str, str]]:
    """POST the request; retry a 429 or 5xx answer; the parsed answer and its headers."""
    opener = urllib.request.build_opener(_NoRedirect)
    attempt = 0
    while True:
        request = urllib.request.Request(settings.url, data=body, method="POST")
        request.add_header("Content-Type", "application/json")
        if settings.key:
            request.add_unredirected_header("Authorization", f"Bearer {settings.key}")
        try:
            with opener.open(request, timeout=settings.timeout) as response:
                data = response.read(MAX_RESPONSE + 1)
                headers = {key.lower(): value for key, value in response.headers.items()}
            break
        except urllib.error.HTTPError as error:
            status = error.code
            wait = _retry_after(error.headers.get("Retry-After") if error.headers else None)
            try:
                detail = error.read(MAX_ERROR_BODY)
            except (OSError, http.client.HTTPException):
                detail = b""
            error.close()
            if (status == 429 or 500 <= status <= 599) and attempt < settings.retries:
                sleep(wait if wait is not None else settings.backoff * 2 ** attempt)
                attempt += 1
                continue
            raise ModelError(refusal(status, detail, settings.model, attempt + 1)) from None
        except TimeoutError:
            raise ModelError(f"no answer within {settings.timeout:g} s") from None
        except urllib.error.URLError as error:
            reason = error.reason
            if isinstance(reason, (TimeoutError, socket.timeout)):
                raise ModelError(f"no answer within {settings.timeout:g} s") from None
            raise ModelError(f"cannot reach the endpoint: {type(reason).__name__}") from None
        except (http.client.HTTPException, OSError) as error:
            raise ModelError(f"the connection failed: {type(error).__name__}") from None
    if len(data) > MAX_RESPONSE:
        raise ModelError(f"the answer is larger than {MAX_RESPONSE} bytes")
    try:
        answer = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise ModelError("the answer is not JSON") from None
    if not isinstance(answer, dict):
        raise ModelError("the answer is not a JSON object")
    return answer, headers


def refusal(status: int, body: bytes, model: str, tries: int) -> str:
    """What an HTTP error answer means, in words.

    Never the answer's own text: an endpoint's error message may echo the key
    (OpenAI's 401 does), so only its error code and type are read, to tell an
    unknown model from another bad request.
    """
    try:
        answer = json.loads(body.decode("utf-8", "replace"), parse_constant=_no_constant)
    except (ValueError, RecursionError):
        answer = None
    error = answer.get("error") if isinstance(answer, dict) else None
    error = error if isinstance(error, dict) else {}
    kinds = " ".join(str(error.get(key) or "") for key in ("code", "type")).lower()
    after = f" after {tries} tries" if tries > 1 else ""
    if status in (401, 403):
        return (f"authentication failed (HTTP {status}): the endpoint refused the key; check "
                "LANELOG_MODEL_API_KEY (or OPENAI_API_KEY)")
    if status == 404 or "model_not_found" in kinds:
        return (f"unknown model {model!r} (HTTP {status}): check LANELOG_MODEL and "
                "LANELOG_MODEL_BASE_URL")
    if status == 429:
        return f"rate limited (HTTP 429){after}: the endpoint's quota or rate limit"
    if status == 400:
        return "bad request (HTTP 400): the endpoint refused the request (LANELOG_MODEL_MAX_TOKENS, the model)"
    return f"the endpoint answered HTTP {status}{after}"


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (a number or an HTTP date), capped; None when absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    if not math.isfinite(seconds):
        return None
    return min(max(seconds, 0.0), RETRY_AFTER_CAP)


def content_of(answer: dict[str, Any]) -> str:
    """The first choice's message text ("" when there is none)."""
    choices = answer.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return ""
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else ""


def usage_of(answer: dict[str, Any], headers: dict[str, str], settings: Settings) -> dict[str, Any]:
    """Tokens, and cost when the endpoint gives it (usage.cost, or LiteLLM's cost header)."""
    usage: dict[str, Any] = {}
    reported = answer.get("usage")
    reported = reported if isinstance(reported, dict) else {}
    for ours, theirs in (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens")):
        count = reported.get(theirs)
        if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
            usage[ours] = count
    cost: Any = reported.get("cost")
    if cost is None and "x-litellm-response-cost" in headers:
        try:
            cost = float(headers["x-litellm-response-cost"])
        except ValueError:
            cost = None
    if isinstance(cost, (int, float)) and not isinstance(cost, bool) and math.isfinite(cost) and cost >= 0:
        usage["cost"] = cost
        usage["currency"] = settings.cost_currency
    usage["model"] = settings.model  # the name the policy prices, not the endpoint's variant
    return usage


def judge(settings: Settings, env: dict[str, str], sleep: Any = time.sleep) -> tuple[str, dict[str, Any] | None]:
    """The token and usage of one property's call; ModelError when there is no answer."""
    patch_path = Path(env["LANELOG_PATCH_FILE"])
    size = patch_path.stat().st_size
    if size > settings.max_patch:
        raise ModelError(f"the patch is {size} bytes, over LANELOG_MODEL_MAX_PATCH_BYTES "
                         f"({settings.max_patch}): not sent")
    patch = patch_path.read_bytes()[:settings.max_patch].decode("utf-8", "replace")
    body = json.dumps({
        "model": settings.model,
        "messages": messages(env["LANELOG_PROPERTY"], env.get("LANELOG_PROPERTY_SAYS", ""),
                             env.get("LANELOG_FIXTURE_HASH", ""), patch),
        "max_tokens": settings.max_tokens,
        "temperature": 0,
    }).encode("utf-8")
    answer, headers = call(settings, body, sleep)
    text = content_of(answer).strip()
    usage = usage_of(answer, headers, settings)
    if text in ("hold", "fail"):
        return text, usage
    if settings.key:
        text = text.replace(settings.key, "[key]")  # an echo of the key is not shown either
    shown = ascii(text[:80]) if text else "an empty answer"
    say(f"{env['LANELOG_PROPERTY']}: the model answered {shown}, not hold or fail")
    return "unresolved", usage


def say(text: str) -> None:
    """A line on stderr, which route relays to the CI log: framed, so no text of an answer starts a
    workflow command there (lanelog.framing)."""
    print(framed(f"lanelog-model: {text}"), file=sys.stderr)


def main() -> int:
    """Print ``{"token": ..., "usage": ...}`` as the last line; exit 0 with a token line."""
    env = dict(os.environ)
    secret = env.get("LANELOG_MODEL_API_KEY") or env.get("OPENAI_API_KEY") or ""
    try:
        if "LANELOG_PROPERTY" not in env or "LANELOG_PATCH_FILE" not in env:
            raise ModelError("run me as lanelog route --run: LANELOG_PROPERTY and "
                             "LANELOG_PATCH_FILE are not set")
        settings = Settings.from_env(env)
        token, usage = judge(settings, env)
    except (ModelError, OSError) as exc:
        reason = str(exc) if isinstance(exc, ModelError) else f"{type(exc).__name__}: {exc.strerror}"
        if secret:
            reason = reason.replace(secret, "[key]")
        say(f"unresolved: {reason}")
        print(json.dumps({"token": "unresolved"}))
        return 0
    result: dict[str, Any] = {"token": token}
    if usage:
        result["usage"] = usage
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
