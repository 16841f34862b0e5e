#!/usr/bin/env python3
"""Checks that the toolchain claim holds and that the Apple workflow is what the README says.

  manifests        the README's "Swift X.Y or later" equals every manifest's tools version, and no
                   resolved dependency (.build/checkouts, after a build) needs a newer one
  workflow         .github/workflows/ci.yml is valid YAML with the Linux, macOS and simulator jobs
  toolchain X.Y    a toolchain of version X.Y is new enough for the manifest (used on the macOS runner)
"""
import glob
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TOOLS = re.compile(r"^//\s*swift-tools-version:\s*(\d+)\.(\d+)")


def tools_version(path):
    with open(path, encoding="utf-8") as file:
        match = TOOLS.match(file.readline())
    if not match:
        sys.exit(f"{path}: no swift-tools-version line")
    return int(match.group(1)), int(match.group(2))


def show(version):
    return f"{version[0]}.{version[1]}"


def readme_claim():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as file:
        match = re.search(r"Swift (\d+)\.(\d+) or later", file.read())
    if not match:
        sys.exit("README.md: no 'Swift X.Y or later' requirement line")
    return int(match.group(1)), int(match.group(2))


def check_manifests():
    claim = readme_claim()
    manifests = ["Package.swift"] + sorted(
        os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, "*", "**", "Package.swift"), recursive=True)
        if "/.build" not in path and "/checkouts/" not in path
    )
    failures = []
    for manifest in manifests:
        version = tools_version(os.path.join(ROOT, manifest))
        if version != claim:
            failures.append(f"{manifest} declares tools {show(version)}, the README says Swift {show(claim)} or later")
    # A dependency can be resolved by the oldest toolchain any of its manifests accepts.
    needed = {}
    for checkout in sorted(glob.glob(os.path.join(ROOT, ".build", "checkouts", "*"))):
        versions = [tools_version(path) for path in glob.glob(os.path.join(checkout, "Package*.swift"))]
        if versions:
            needed[os.path.basename(checkout)] = min(versions)
    for name, version in sorted(needed.items()):
        if version > claim:
            failures.append(f"{name} needs Swift {show(version)}, the README says {show(claim)} or later")
    if failures:
        sys.exit("\n".join(failures))
    most = max(needed.values(), default=None)
    print(f"toolchain claim: Swift {show(claim)} or later; {len(manifests)} manifests agree; "
          + (f"{len(needed)} resolved dependencies need at most Swift {show(most)}" if most else "no checkouts to compare (build first)"))


def check_workflow():
    try:
        import yaml
    except ImportError:
        sys.exit("PyYAML is missing: pip install pyyaml")
    path = os.path.join(ROOT, ".github", "workflows", "ci.yml")
    with open(path, encoding="utf-8") as file:
        workflow = yaml.safe_load(file)
    jobs = workflow.get("jobs") or {}
    # YAML 1.1 reads the key `on` as true.
    if not (workflow.get("on") or workflow.get(True)):
        sys.exit(f"{path}: no triggers")

    def commands(job):
        return "\n".join(step.get("run", "") for step in jobs.get(job, {}).get("steps", []))

    failures = []
    if ".ci/run" not in commands("linux"):
        failures.append("the linux job does not run .ci/run")
    if "macos" not in str(jobs.get("macos", {}).get("runs-on", "")):
        failures.append("the macos job does not run on macOS")
    for command in ("swift build --build-tests", "swift test"):
        if command not in commands("macos"):
            failures.append(f"the macos job does not run `{command}`")
    platforms = set(jobs.get("apple-platforms", {}).get("strategy", {}).get("matrix", {}).get("platform", []))
    if platforms != {"iOS", "tvOS", "watchOS", "visionOS"}:
        failures.append(f"the simulator builds cover {sorted(platforms)}, not iOS, tvOS, watchOS and visionOS")
    if "xcodebuild build" not in commands("apple-platforms"):
        failures.append("the apple-platforms job does not run `xcodebuild build`")
    if failures:
        sys.exit("\n".join(f"{path}: {failure}" for failure in failures))
    print(f"workflow: {os.path.relpath(path, ROOT)} is valid YAML with jobs {', '.join(jobs)}")


def check_toolchain(text):
    match = re.fullmatch(r"(\d+)\.(\d+)", text.strip())
    if not match:
        sys.exit(f"cannot read a Swift version from {text!r}")
    running, needed = (int(match.group(1)), int(match.group(2))), tools_version(os.path.join(ROOT, "Package.swift"))
    if running < needed:
        sys.exit(f"Swift {show(running)} is older than the manifest's tools version {show(needed)}")
    print(f"Swift {show(running)} is new enough for tools version {show(needed)}")


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "manifests":
        check_manifests()
    elif command == "workflow":
        check_workflow()
    elif command == "toolchain" and len(sys.argv) == 3:
        check_toolchain(sys.argv[2])
    else:
        sys.exit(__doc__)
