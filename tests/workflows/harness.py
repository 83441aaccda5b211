"""Run a job of an example workflow as GitHub's runner would, on this machine.

Each step runs in order: a `run:` step in `bash -e -o pipefail -c`, in the job's
workspace, with the environment GitHub gives it (its default variables, then the
workflow's, the job's and the step's `env:`, with `${{ ... }}` evaluated from the
event's context); `if:` is evaluated against the job's status, and a failing step
fails the job.  The few actions the examples use are implemented here, with
GitHub's semantics where the workflows depend on them:

- actions/checkout: a real clone of a real bare repository (the test's "origin"),
  the given ref checked out, every branch and tag fetched with fetch-depth 0.
- actions/setup-python: nothing to do; PATH holds the interpreter under test's
  scripts folder first.
- actions/cache, actions/cache/restore, actions/cache/save: a cache service in a
  folder that outlives the job: restore by exact key, else by each restore-keys
  prefix, newest first; keys are immutable; the plain actions/cache saves in its
  post step, and only when the job succeeded.
- actions/upload-artifact: a copy into the artifacts folder.
- aws-actions/configure-aws-credentials: the test's S3 server's credentials,
  region and endpoint exported to the later steps.

Any other action is an error.  `gh` is the one stand-in: a recorder on PATH that
keeps what would be posted, and answers `gh api PATH` from the test's recorded
answers (GitHub's API is not here).  The package under test is
already installed: a workflow's `pip install` finds it satisfied and reads no index.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.workflows.expressions import condition, interpolate

STEP_TIMEOUT = 300  # seconds, unless the step's or job's timeout-minutes is shorter
GIT_TIMEOUT = 60
ACTIONS = ("actions/checkout", "actions/setup-python", "actions/cache", "actions/cache/restore",
           "actions/cache/save", "actions/upload-artifact", "aws-actions/configure-aws-credentials")


class HarnessError(Exception):
    """The workflow asks for something the harness does not do; the test must not pass by it."""


@dataclass
class Event:
    """What triggered the run, and the repository's variables and secrets."""

    name: str  # pull_request, schedule or workflow_dispatch
    repository: str
    run_id: int
    run_attempt: int = 1
    sha: str = ""
    base_ref: str = ""
    head_ref: str = ""
    pull_request: dict[str, Any] | None = None  # {"number": 7, "head": {"sha": ...}}
    # The whole event payload as GitHub records it (a pull_request "closed" event, say): used as it is.
    payload: dict[str, Any] | None = None
    vars: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)
    token: str = "ghs_workflowtesttoken0000000000000000"

    def github(self, workspace: Path, workflow: str, job: str) -> dict[str, Any]:
        """The `github` context."""
        event: dict[str, Any] = {}
        ref = f"refs/heads/{self.base_ref or 'main'}"
        if self.pull_request is not None:
            event = {"pull_request": self.pull_request, "number": self.pull_request["number"]}
            ref = f"refs/pull/{self.pull_request['number']}/merge"
        if self.payload is not None:
            event = self.payload
        return {
            "repository": self.repository, "repository_owner": self.repository.split("/")[0],
            "run_id": str(self.run_id), "run_attempt": str(self.run_attempt), "run_number": str(self.run_id),
            "event_name": self.name, "event": event, "sha": self.sha, "ref": ref,
            "base_ref": self.base_ref, "head_ref": self.head_ref, "token": self.token,
            "workspace": str(workspace), "workflow": workflow, "job": job, "actor": "octocat",
        }


@dataclass
class StepRun:
    name: str
    outcome: str  # success, failure or skipped
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""  # what the step appended to $GITHUB_STEP_SUMMARY

    @property
    def commands(self) -> list[tuple[str, dict[str, str], str]]:
        """The workflow commands the runner reads in the step's output (stdout, then stderr)."""
        return workflow_commands(self.stdout) + workflow_commands(self.stderr)


@dataclass
class JobRun:
    """A finished job: its status, each step's outcome and output, and where it ran."""

    status: str
    steps: list[StepRun]
    workspace: Path
    temp: Path

    def step(self, name: str) -> StepRun:
        found = [step for step in self.steps if step.name == name]
        if len(found) != 1:
            raise KeyError(f"{len(found)} steps named {name!r}: {[step.name for step in self.steps]}")
        return found[0]

    def log(self) -> str:
        """Every step's outcome and output, for an assertion message."""
        return "\n".join(f"--- {step.name}: {step.outcome}\n{step.stdout}{step.stderr}" for step in self.steps)


class Caches:
    """GitHub's cache service for one repository: entries that outlive the jobs, keys immutable."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.index = root / "index.json"
        if not self.index.exists():
            self.index.write_text("[]", encoding="utf-8")

    def entries(self) -> list[dict[str, Any]]:
        """Every saved entry, oldest first: key, version (the paths) and folder."""
        entries: list[dict[str, Any]] = json.loads(self.index.read_text(encoding="utf-8"))
        return entries

    def restore(self, key: str, restore_keys: list[str], paths: list[str], workspace: Path) -> str | None:
        """The key restored into the workspace: `key` itself, else the newest entry under the
        first restore-keys prefix that has one; None on a miss."""
        version = "\n".join(paths)
        usable = [entry for entry in self.entries() if entry["version"] == version]
        chosen = next((entry for entry in usable if entry["key"] == key), None)
        for prefix in restore_keys:
            if chosen is not None:
                break
            chosen = next((entry for entry in reversed(usable) if entry["key"].startswith(prefix)), None)
        if chosen is None:
            return None
        for path in paths:
            stored = self.root / chosen["folder"] / path
            if stored.exists():
                target = workspace / path
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(stored, target)
        return str(chosen["key"])

    def save(self, key: str, paths: list[str], workspace: Path) -> str:
        """Save the paths under `key`; what the action would log (a warning is not a failure)."""
        entries = self.entries()
        if any(entry["key"] == key for entry in entries):
            return f"Failed to save: Unable to reserve cache with key {key}, another job may be creating this cache."
        present = [path for path in paths if (workspace / path).is_file()]
        if not present:
            return ("Path Validation Error: Path(s) specified in the action for caching do(es) not exist, "
                    "hence no cache is being saved.")
        folder = f"entry-{len(entries) + 1}"
        for path in present:
            target = self.root / folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(workspace / path, target)
        entries.append({"key": key, "version": "\n".join(paths), "folder": folder})
        self.index.write_text(json.dumps(entries), encoding="utf-8")
        return f"Cache saved with key: {key}"


GH_RECORDER = '''#!{python}
"""gh as far as the workflows use it: `gh pr comment N --body-file FILE`, recorded, not sent;
`gh api PATH [--paginate]`, answered from the recorded answers (each page a JSON array, printed
one after the other as gh --paginate prints them)."""
import json, os, sys
from pathlib import Path

RECORDS = Path({records!r})
ANSWERS = Path({answers!r})
args = sys.argv[1:]
if not (os.environ.get("GH_TOKEN") or os.environ.get("GITHUB_TOKEN")):
    sys.exit("gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable.")
if args[:1] == ["api"]:
    path = next((arg for arg in args[1:] if not arg.startswith("-")), None)
    unknown = [arg for arg in args[1:] if arg.startswith("-") and arg != "--paginate"]
    if path is None or unknown:
        sys.exit(f"gh (recorder): api needs a path and takes --paginate only, not {{unknown}}")
    answers = json.loads(ANSWERS.read_text()) if ANSWERS.exists() else {{}}
    if path not in answers:
        sys.exit(f"gh: Not Found (HTTP 404)")
    pages = answers[path] if "--paginate" in args else answers[path][:1]
    sys.stdout.write("".join(json.dumps(page) for page in pages))
    sys.exit(0)
if args[:2] != ["pr", "comment"]:
    sys.exit(f"gh (recorder): {{' '.join(args[:2])}} is not recorded")
number, body, repo, rest = None, None, os.environ.get("GH_REPO"), args[2:]
while rest:
    arg = rest.pop(0)
    if arg in ("--body-file", "-F") and rest:
        name = rest.pop(0)
        body = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    elif arg in ("--body", "-b") and rest:
        body = rest.pop(0)
    elif arg in ("--repo", "-R") and rest:
        repo = rest.pop(0)
    elif number is None and not arg.startswith("-"):
        number = arg
    else:
        sys.exit(f"gh (recorder): unknown flag {{arg}}")
if number is None or body is None:
    sys.exit("gh (recorder): a pull request number and a body are needed")
if not repo:
    sys.exit("gh: none of the git remotes configured for this repository point to a known GitHub host; "
             "set GH_REPO")
count = len(list(RECORDS.glob("*.json")))
(RECORDS / f"{{count + 1:04d}}.json").write_text(json.dumps({{"repo": repo, "number": number, "body": body}}))
print(f"https://github.com/{{repo}}/pull/{{number}}#issuecomment-{{count + 1}}")
'''


class GitHub:
    """What outlives a job: the origin repository, the caches, the artifacts, what `gh` posted."""

    def __init__(self, root: Path, *, origin: Path | None = None, aws: dict[str, str] | None = None) -> None:
        self.root = root
        self.origin = origin
        self.aws = aws  # the credentials, region and endpoint configure-aws-credentials exports
        self.caches = Caches(root / "caches")
        self.artifacts = root / "artifacts"
        self.records = root / "gh-records"
        self.bin = root / "bin"
        for folder in (self.artifacts, self.records, self.bin):
            folder.mkdir(parents=True, exist_ok=True)
        gh = self.bin / "gh"
        self.answers = root / "gh-answers.json"
        gh.write_text(GH_RECORDER.format(python=sys.executable, records=str(self.records), answers=str(self.answers)),
                      encoding="utf-8")
        gh.chmod(0o755)
        self.jobs = 0
        if origin is not None:
            # GitHub's server serves any commit by its id (a fork's pull request head, say).
            _git(origin, "config", "uploadpack.allowAnySHA1InWant", "true")

    def answer(self, path: str, *pages: list[Any]) -> None:
        """What `gh api PATH` answers from now on: each page a JSON array (--paginate prints them all)."""
        answers = json.loads(self.answers.read_text(encoding="utf-8")) if self.answers.exists() else {}
        answers[path] = list(pages)
        self.answers.write_text(json.dumps(answers), encoding="utf-8")

    def posted(self) -> list[dict[str, str]]:
        """What `gh` would have posted, in order."""
        return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(self.records.glob("*.json"))]

    def run(self, workflow: Path, job: str, event: Event, *, installed: dict[str, str] | None = None) -> JobRun:
        """Run one job of the workflow for the event, on a fresh runner.

        `installed` replaces env values that name the package to install (LANELOG_PIP) with
        the package under test; a key the workflow does not define is an error.
        """
        doc = yaml.safe_load(workflow.read_text(encoding="utf-8"))
        self._check_trigger(doc.get(True, doc.get("on")), event)
        spec = doc["jobs"][job]
        for key in ("strategy", "container", "services", "needs", "defaults", "if"):
            if key in spec:
                raise HarnessError(f"{workflow.name}: job {job} uses {key}:, which the harness does not run")
        self.jobs += 1
        machine = self.root / f"runner-{self.jobs}"
        name = event.repository.split("/")[-1]
        workspace, temp, home = machine / "work" / name / name, machine / "_temp", machine / "home"
        for folder in (workspace, temp, home):
            folder.mkdir(parents=True)
        context: dict[str, Any] = {
            "github": event.github(workspace, str(doc.get("name", workflow.name)), job),
            "vars": dict(event.vars), "secrets": {**event.secrets, "GITHUB_TOKEN": event.token},
            "env": {}, "steps": {}, "job": {"status": "success"},
            "runner": {"os": "Linux", "temp": str(temp), "workspace": str(machine / "work")},
        }
        env = self._defaults(event, workspace, temp, home, context["github"])
        defined: set[str] = set()
        for scope in (doc.get("env") or {}, spec.get("env") or {}):
            for key, value in scope.items():
                context["env"] = dict(env)
                env[key] = str(interpolate(value, context))
                defined.add(key)
        for key, value in (installed or {}).items():
            if key not in defined:
                raise HarnessError(f"{workflow.name}: job {job} defines no {key} to install the package under test by")
            env[key] = value
        job_timeout = float(spec.get("timeout-minutes", STEP_TIMEOUT / 60)) * 60
        state = _Job(env=env, context=context, workspace=workspace, temp=temp)
        for index, step in enumerate(spec["steps"]):
            state.steps.append(self._step(index, step, state, job_timeout))
        for post in reversed(state.posts):
            post(state.status)
        return JobRun(state.status, state.steps, workspace, temp)

    def _defaults(self, event: Event, workspace: Path, temp: Path, home: Path,
                  github: dict[str, Any]) -> dict[str, str]:
        """The runner's environment and GitHub's default variables."""
        system_path = os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")
        return {
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), str(self.bin), system_path]),
            "HOME": str(home), "LANG": "C.UTF-8", "CI": "true", "GITHUB_ACTIONS": "true",
            "GITHUB_REPOSITORY": event.repository, "GITHUB_REPOSITORY_OWNER": github["repository_owner"],
            "GITHUB_SERVER_URL": "https://github.com", "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_RUN_ID": str(event.run_id),
            "GITHUB_RUN_ATTEMPT": str(event.run_attempt), "GITHUB_RUN_NUMBER": str(event.run_id),
            "GITHUB_EVENT_NAME": event.name, "GITHUB_BASE_REF": event.base_ref, "GITHUB_HEAD_REF": event.head_ref,
            "GITHUB_SHA": event.sha, "GITHUB_REF": github["ref"], "GITHUB_WORKFLOW": github["workflow"],
            "GITHUB_JOB": github["job"], "GITHUB_ACTOR": github["actor"], "RUNNER_OS": "Linux",
            "RUNNER_TEMP": str(temp),
            "GITHUB_EVENT_PATH": str(_write(temp / "_event.json", json.dumps(github["event"]))),
            "GIT_CONFIG_NOSYSTEM": "1",
            # No AWS settings reach a step but the ones configure-aws-credentials exports, and
            # nothing asks an instance-metadata address (there is none here).
            "AWS_EC2_METADATA_DISABLED": "true",
            # The package under test is installed; this machine reaches no index.
            "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        }

    def _check_trigger(self, on: Any, event: Event) -> None:
        """The workflow runs for this event (and, for a pull request, its paths filter)."""
        triggers = {on: None} if isinstance(on, str) else dict.fromkeys(on) if isinstance(on, list) else dict(on or {})
        if event.name not in triggers:
            raise HarnessError(f"the workflow does not run on {event.name} (on: {sorted(triggers)})")
        settings = triggers[event.name] if isinstance(triggers[event.name], dict) else {}
        types = settings.get("types")
        action = (event.payload or {}).get("action", "opened")
        if types and action not in types:
            raise HarnessError(f"the workflow runs on {event.name} {types}, not {action!r}: no run")
        paths = settings.get("paths")
        if paths and event.pull_request is not None:
            if self.origin is None:
                raise HarnessError("a paths filter needs the origin repository to diff")
            head = event.pull_request["head"]["sha"]
            changed = _git(self.origin, "diff", "--name-only", "-z", f"refs/heads/{event.base_ref}...{head}")
            files = [name for name in changed.split("\0") if name]
            if not any(_glob(pattern).fullmatch(name) for name in files for pattern in paths):
                raise HarnessError(f"the pull request changes {files}, none of the paths {paths}: no run")

    def _step(self, index: int, step: dict[str, Any], job: _Job, job_timeout: float) -> StepRun:
        uses = step.get("uses")
        first = str(step.get("run", "")).strip().splitlines()[0] if step.get("run") else ""
        name = str(step.get("name") or (f"Run {uses}" if uses else f"Run {first}"))
        job.context["job"]["status"] = job.status
        job.context["env"] = dict(job.env)
        step_id = step.get("id") or f"__{index}"
        if not condition(step.get("if"), job.context, job.status):
            job.context["steps"][step_id] = {"outcome": "skipped", "conclusion": "skipped", "outputs": {}}
            return StepRun(name, "skipped")
        env = dict(job.env)
        for key, value in (step.get("env") or {}).items():
            env[key] = str(interpolate(value, job.context))
        files = {key: job.temp / f"_runner_file_commands/{key.lower()}_{index}" for key in (
            "GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")}
        for key, path in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("", encoding="utf-8")
            env[key] = str(path)
        timeout = min(job_timeout, float(step.get("timeout-minutes", STEP_TIMEOUT / 60)) * 60)
        if "run" in step:
            result = self._shell(name, step, env, job, timeout)
        elif uses:
            inputs = {key: interpolate(value, job.context) for key, value in (step.get("with") or {}).items()}
            result = self._action(str(uses), name, inputs, env, job)
        else:
            raise HarnessError(f"step {name!r} has neither run: nor uses:")
        for line_key, value in _file_commands(files["GITHUB_ENV"]).items():
            job.env[line_key] = value
        result.outputs.update(_file_commands(files["GITHUB_OUTPUT"]))
        result.summary = files["GITHUB_STEP_SUMMARY"].read_text(encoding="utf-8")
        added = [line for line in files["GITHUB_PATH"].read_text(encoding="utf-8").splitlines() if line]
        if added:
            job.env["PATH"] = os.pathsep.join([*reversed(added), job.env["PATH"]])
        if result.outcome == "failure" and not step.get("continue-on-error"):
            job.status = "failure"
        job.context["steps"][step_id] = {"outcome": result.outcome, "conclusion": result.outcome,
                                         "outputs": result.outputs}
        return result

    def _shell(self, name: str, step: dict[str, Any], env: dict[str, str], job: _Job, timeout: float) -> StepRun:
        if step.get("shell", "bash") != "bash":
            raise HarnessError(f"step {name!r}: shell {step['shell']} is not run by the harness")
        script = str(interpolate(step["run"], job.context))
        cwd = job.workspace / str(step.get("working-directory", "."))
        try:
            done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=cwd, env=env,
                                  capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired as exc:
            return StepRun(name, "failure", _text(exc.stdout),
                           _text(exc.stderr) + f"\nstep timed out after {timeout} s")
        return StepRun(name, "success" if done.returncode == 0 else "failure", done.stdout,
                       done.stderr + (f"\nError: Process completed with exit code {done.returncode}."
                                      if done.returncode else ""))

    def _action(self, uses: str, name: str, inputs: dict[str, Any], env: dict[str, str], job: _Job) -> StepRun:
        action, at, version = uses.partition("@")
        if not at or not version or action not in ACTIONS:
            raise HarnessError(f"step {name!r}: {uses} is not implemented by the harness")
        known = {
            "actions/checkout": ("ref", "fetch-depth", "persist-credentials"),
            "actions/setup-python": ("python-version", "cache"),
            "actions/cache": ("path", "key", "restore-keys"),
            "actions/cache/restore": ("path", "key", "restore-keys"),
            "actions/cache/save": ("path", "key"),
            "actions/upload-artifact": ("name", "path", "if-no-files-found", "retention-days"),
            "aws-actions/configure-aws-credentials": ("role-to-assume", "aws-region", "role-session-name"),
        }[action]
        unknown = sorted(set(inputs) - set(known))
        if unknown:
            raise HarnessError(f"step {name!r}: {action} inputs {unknown} are not implemented by the harness")
        method = {
            "actions/checkout": self._checkout, "actions/setup-python": lambda *_: StepRun(name, "success"),
            "actions/cache": self._cache, "actions/cache/restore": self._cache_restore,
            "actions/cache/save": self._cache_save, "actions/upload-artifact": self._upload_artifact,
            "aws-actions/configure-aws-credentials": self._aws_credentials,
        }[action]
        result: StepRun = method(name, inputs, env, job)
        return result

    def _checkout(self, name: str, inputs: dict[str, Any], env: dict[str, str], job: _Job) -> StepRun:
        if self.origin is None:
            raise HarnessError("actions/checkout needs the origin repository")
        ref = str(inputs.get("ref") or env["GITHUB_SHA"])
        depth = int(inputs.get("fetch-depth", 1))
        work = job.workspace
        _git(work, "init", "-q")
        _git(work, "remote", "add", "origin", str(self.origin))
        is_commit = re.fullmatch(r"[0-9a-f]{40}", ref) is not None
        if depth == 0:
            _git(work, "fetch", "-q", "--prune", "--no-recurse-submodules", "origin",
                 "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*")
            if is_commit and not _git_ok(work, "cat-file", "-e", f"{ref}^{{commit}}"):
                _git(work, "fetch", "-q", "--no-recurse-submodules", "origin", ref)
        else:
            wanted = ref if is_commit else f"+refs/heads/{ref}:refs/remotes/origin/{ref}"
            _git(work, "fetch", "-q", f"--depth={depth}", "--no-recurse-submodules", "origin", wanted)
        if is_commit:
            _git(work, "checkout", "-q", "--force", ref)
        else:
            _git(work, "checkout", "-q", "--force", "-B", ref, f"refs/remotes/origin/{ref}")
        return StepRun(name, "success", f"checked out {ref}\n")

    @staticmethod
    def _paths(inputs: dict[str, Any]) -> list[str]:
        return [line.strip() for line in str(inputs.get("path", "")).splitlines() if line.strip()]

    @staticmethod
    def _lines(value: Any) -> list[str]:
        return [line.strip() for line in str(value or "").splitlines() if line.strip()]

    def _cache_restore(self, name: str, inputs: dict[str, Any], env: dict[str, str], job: _Job) -> StepRun:
        key = str(inputs["key"])
        matched = self.caches.restore(key, self._lines(inputs.get("restore-keys")), self._paths(inputs),
                                      job.workspace)
        message = f"Cache restored from key: {matched}\n" if matched else f"Cache not found for input keys: {key}\n"
        return StepRun(name, "success", message, outputs={
            "cache-hit": "true" if matched == key else "false", "cache-primary-key": key,
            "cache-matched-key": matched or ""})

    def _cache_save(self, name: str, inputs: dict[str, Any], env: dict[str, str], job: _Job) -> StepRun:
        return StepRun(name, "success", self.caches.save(str(inputs["key"]), self._paths(inputs), job.workspace) + "\n")

    def _cache(self, name: str, inputs: dict[str, Any], env: dict[str, str], job: _Job) -> StepRun:
        restored = self._cache_restore(name, inputs, env, job)

        def post(status: str) -> None:
            # actions/cache's post step runs only on success (post-if: success()), and saves
            # nothing after an exact hit.
            if status == "success" and restored.outputs["cache-hit"] != "true":
                self.caches.save(str(inputs["key"]), self._paths(inputs), job.workspace)

        job.posts.append(post)
        return restored

    def _upload_artifact(self, name: str, inputs: dict[str, Any], env: dict[str, str], job: _Job) -> StepRun:
        artifact = str(inputs.get("name") or "artifact")
        target = self.artifacts / artifact
        if target.exists():
            return StepRun(name, "failure", "", f"Failed to CreateArtifact: an artifact named {artifact} exists\n")
        present = [path for path in self._paths(inputs) if (job.workspace / path).is_file()]
        if not present:
            mode = str(inputs.get("if-no-files-found", "warn"))
            message = (f"No files were found with the provided path: {inputs.get('path')}. "
                       "No artifacts will be uploaded.")
            return StepRun(name, "failure" if mode == "error" else "success", "", message + "\n")
        for path in present:
            # A file named by an absolute path (${{ runner.temp }}/...) is kept by its name, as
            # upload-artifact keeps a lone file.
            kept = Path(path).name if Path(path).is_absolute() else path
            (target / kept).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(job.workspace / path, target / kept)
        return StepRun(name, "success", f"Artifact {artifact} uploaded\n")

    def _aws_credentials(self, name: str, inputs: dict[str, Any], env: dict[str, str], job: _Job) -> StepRun:
        if not inputs.get("aws-region"):
            return StepRun(name, "failure", "", "Error: Input required and not supplied: aws-region\n")
        if not inputs.get("role-to-assume"):
            return StepRun(name, "failure", "", "Error: Credentials could not be loaded, please check your "
                                               "action inputs: Could not load credentials from any providers\n")
        if self.aws is None:
            raise HarnessError("configure-aws-credentials needs the test's S3 server")
        region = str(inputs["aws-region"])
        job.env.update({**self.aws, "AWS_REGION": region, "AWS_DEFAULT_REGION": region})
        return StepRun(name, "success", f"Assumed role {inputs['role-to-assume']}\n")


@dataclass
class _Job:
    env: dict[str, str]
    context: dict[str, Any]
    workspace: Path
    temp: Path
    status: str = "success"
    steps: list[StepRun] = field(default_factory=list)
    posts: list[Any] = field(default_factory=list)


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, timeout=GIT_TIMEOUT,
                          check=False, env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"})
    if done.returncode != 0:
        raise HarnessError(f"git {' '.join(args)} in {cwd}: {done.stderr.strip()}")
    return done.stdout


def _git_ok(cwd: Path, *args: str) -> bool:
    try:
        _git(cwd, *args)
    except HarnessError:
        return False
    return True


# What ICU's collation ignores: the runner searches a line for ``::`` and ``##[`` culture-sensitively
# (String.StartsWith and IndexOf), and with ICU ``#\u00ad#[`` holds ``##[`` to it.  Controls, the soft
# hyphen, the default-ignorable code points and the format characters (Unicode's Cf), as lanelog.framing lists them.
IGNORED_BY_THE_RUNNER = re.compile(
    "[\x00-\x08\x0e-\x1f\x7f-\x9f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
    "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]"
)


def workflow_commands(output: str) -> list[tuple[str, dict[str, str], str]]:
    """(command, properties, message) of each command the runner takes from a step's output.

    As actions/runner reads a line (ended by \\n, \\r or both; ActionCommand.TryParseV2, then
    TryParse), any command name taken: a line, trimmed, starting with ``::``, the command and its
    properties up to the next ``::``, the properties split on ``,`` and ``=``; and the older form,
    ``##[`` anywhere in the line, the command and its properties up to the next ``]``, the
    properties split on ``;`` and ``=``, the message the rest of the line.  Values and the message
    are unescaped; the line is read as ICU compares it (IGNORED_BY_THE_RUNNER left out).
    """
    found = []
    for raw in re.split(r"\r\n|\r|\n", output):
        line = IGNORED_BY_THE_RUNNER.sub("", raw).strip()
        end = line.find("::", 2)
        if line.startswith("::") and end >= 0:
            command, _, listed = line[2:end].partition(" ")
            properties = _properties(listed, ",", ("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","))
            found.append((command, properties, _unescape(line[end + 2:], ("%0D", "\r"), ("%0A", "\n"))))
            continue
        start = line.find("##[")
        close = line.find("]", start) if start >= 0 else -1
        if close >= 0:
            command, _, listed = line[start + 3:close].partition(" ")
            escapes = (("%3B", ";"), ("%0D", "\r"), ("%0A", "\n"), ("%5D", "]"))
            found.append((command, _properties(listed, ";", *escapes), _unescape(line[close + 1:], *escapes)))
    return found


def _properties(listed: str, separator: str, *escapes: tuple[str, str]) -> dict[str, str]:
    properties = {}
    for pair in listed.split(separator) if listed else []:
        key, _, value = pair.partition("=")
        if key and value:
            properties[key] = _unescape(value, *escapes)
    return properties


def _unescape(text: str, *pairs: tuple[str, str]) -> str:
    for escape, raw in (*pairs, ("%25", "%")):
        text = text.replace(escape, raw)
    return text


def _file_commands(path: Path) -> dict[str, str]:
    """NAME=value lines and NAME<<DELIMITER blocks, as $GITHUB_ENV and $GITHUB_OUTPUT take them."""
    values: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    while lines:
        line = lines.pop(0)
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delimiter = line.split("<<", 1)
            block: list[str] = []
            while lines and lines[0] != delimiter:
                block.append(lines.pop(0))
            if not lines:
                raise HarnessError(f"{path.name}: {key} has no closing {delimiter}")
            lines.pop(0)
            values[key] = "\n".join(block)
        elif "=" in line:
            key, value = line.split("=", 1)
            values[key] = value
        elif line.strip():
            raise HarnessError(f"{path.name}: cannot read {line!r}")
    return values


def _glob(pattern: str) -> re.Pattern[str]:
    """A paths-filter pattern: `**` crosses folders, `*` and `?` do not."""
    out = []
    for part in re.split(r"(\*\*|\*|\?)", pattern):
        out.append({"**": ".*", "*": "[^/]*", "?": "[^/]"}.get(part, re.escape(part)))
    return re.compile("".join(out))


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _text(value: str | bytes | None) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else value.decode("utf-8", "replace")


def make_origin(source: Path, target: Path) -> Path:
    """A bare clone of `source`, as the repository on GitHub that the checkout fetches from."""
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(target)], check=True, timeout=GIT_TIMEOUT,
                   capture_output=True)
    return target
