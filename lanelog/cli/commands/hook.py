"""`lanelog hook`: the CLI over router.run_hook and router.install_hook (read stdin, answer, exit)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from lanelog import router
from lanelog.cli.output import echo
from lanelog.router import AGENTS, HOOK_TIMEOUT, MAX_HOOK_INPUT, HookOptions, run_hook


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("agent", metavar="AGENT", type=click.Choice([*AGENTS, "install"]))
@click.argument("args", nargs=-1, metavar="[ARGS]...")
@click.option("--repo", type=click.Path(path_type=Path, file_okay=False), default=None, metavar="DIR",
              help="The checkout the call would publish from [default: the folder the agent names: cwd, "
                   "working_dir or workspaceRoots[0]; for git-pre-push the current folder].")
@click.option("--base", default="origin/main", show_default=True, metavar="REF",
              help="The ref the patch is measured against (BASE...HEAD), as route takes it.")
@click.option("--policy", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="The policy file, as route takes it [default: lanes.yaml at the root of the base commit].")
@click.option("--flaky", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="The flaky list, as route takes it [default: flaky.yaml at the root of the base commit].")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), default=None, metavar="FILE",
              help="The lane log to append the line to [default: $LANELOG_LOG, else lane-log.jsonl at the "
                   "checkout's top].")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=HOOK_TIMEOUT, show_default=True,
              metavar="SECONDS", help="A judgement that takes longer blocks the call.")
def hook(agent: str, args: tuple[str, ...], repo: Path | None, base: str, policy: Path | None,
         flaky: Path | None, out: Path | None, timeout: float) -> None:
    """Judge an agent's commit, push or pull request in its own hook, before it is published.

    AGENT is claude-code, codex, openhands, copilot, cline or git-pre-push; the hook reads
    that agent's own hook input on stdin.  A shell call that runs git commit, git push or
    gh pr create is routed as `lanelog route` would route what it publishes (BASE...HEAD,
    and for a commit the staged changes too), and one lane-log line is appended with
    source "hook".  A reject blocks the call in the agent's own way, saying why and what
    to do next; so does a hook that cannot decide (it fails closed).  Every other call is
    let through at once and writes nothing.  See docs/agents.md.

    `lanelog hook install AGENT` writes the agent's hook configuration into the
    repository (merged with what is there; run twice, the same files), with the
    --base, --policy, --flaky, --out and --timeout given.

    \b
    Example:
        lanelog hook install claude-code --base origin/main
        lanelog hook claude-code --base origin/main < tool-call.json
    """
    if agent == "install":
        _install(args, repo, base, policy, flaky, out, timeout)
        return
    data = sys.stdin.buffer.read(MAX_HOOK_INPUT + 1)
    result = run_hook(HookOptions(agent=agent, repo=repo, base=base, policy=policy, flaky=flaky, out=out,
                                  timeout=timeout, argv=args), data)
    if result.answer.stdout:
        echo(result.answer.stdout, json=True)
    if result.answer.stderr:
        echo(result.answer.stderr.rstrip("\n"), err=True, newline="\n")
    click.get_current_context().exit(result.answer.exit_code)


def _install(args: tuple[str, ...], repo: Path | None, base: str, policy: Path | None, flaky: Path | None,
             out: Path | None, timeout: float) -> None:
    if len(args) != 1 or args[0] not in AGENTS:
        raise click.UsageError(f"lanelog hook install takes one AGENT: {', '.join(AGENTS)}")
    flags: list[str] = ["--base", base]
    for name, value in (("--policy", policy), ("--flaky", flaky), ("--out", out)):
        if value is not None:
            flags += [name, str(value)]
    if timeout != HOOK_TIMEOUT:
        flags += ["--timeout", f"{timeout:g}"]
    # Read from the package here, not at import: a hook call never loads the installer.
    for path in router.install_hook(router.HookSetup(args[0], tuple(flags), timeout), repo or Path(".")):
        echo(f"lanelog hook: installed {args[0]}'s hook in {path}")
