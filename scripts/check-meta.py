#!/usr/bin/env python3
"""Checks META.json, the distribution's metadata for PGXN, against the PGXN Meta Spec 1.0.0
(https://pgxn.org/spec/, the JSON schemas of github.com/pgxn/meta schema/v1) and against the
tree. PGXN's own validator (PGXN::Meta::Validator) is not in Debian; this is the spec's rules
for every key hotplus uses or may use, in Python's standard library only.

The spec's rules:
  required keys   name, version, abstract, maintainer, license, provides, meta-spec; no other
                  top-level keys than the spec's and custom ones (x_...)
  name            a Term: at least 2 characters, no slash, backslash, space or control char
  version         a semantic version ("1.3.0"; SemVer 2.0.0, as PGXN requires)
  maintainer      a string, or a list of distinct non-empty strings
  license         one of the spec's license tokens ("postgresql", "mit", ..., "unknown"),
                  a list of them, or an object of license names to URIs
  provides        at least one extension, named by a Term: "file" (a relative path) and
                  "version" (semver) required, "abstract", "docfile", "docpath" allowed
  meta-spec       {"version": "1.0.x"}, "url" the spec's if given
  prereqs, resources, tags, no_index, release_status, description, generated_by: their
                  shapes, when present
and the tree's:
  control         every NAME.control of the root is provided as NAME, with the control
                  file's default_version as semver ("1.3" is 1.3.0)
  files           each provided "file" and "docfile" exists
  dist version    the distribution's version is the extension's (the release tarball of
                  "make dist" is named after it)
  PostgreSQL      prereqs.runtime.requires names the PostgreSQL versions hotplus supports
and the front door it ships with:
  links           every relative link of README.md and doc/*.md names a file that exists,
                  and its #anchor a heading of that file (GitHub's slugs)
  README length   README.md has at most 200 lines
  README figures  every figure README.md states (a number with a unit or a ratio: 3.09x,
                  -74.4%, 36,108 TPS, 6.4 kB, 10 s) is stated in doc/*.md too, where its run is

Prints each check ("ok" or "FAIL" with the reasons) and ends with "N passed, N failed";
exits 1 if a check failed.

    python3 scripts/check-meta.py                 # META.json of the repository's root
    python3 scripts/check-meta.py FILE [--root DIR]
"""
import functools
import json
import os
import re
import sys

SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$")
SEMVER_BODY = SEMVER.pattern[1:-1]
# A version range: "1.2.0", "0", or comma-separated comparisons (">= 1.2.0, != 1.5.0, < 2.0.0").
RANGE_PART = re.compile(r"^(?:(?:[=!]=|[<>]=?)\s*)?(?:" + SEMVER_BODY + r"|0)$")
TERM = re.compile(r"^[^/\\\s\x00-\x1f\x7f]{2,}$")
TAG = re.compile(r"^[^/\\\x00-\x1f\x7f]{2,255}$")
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
LICENSES = {
    "agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd", "freebsd",
    "gfdl_1_2", "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1", "lgpl_3_0", "mit",
    "mozilla_1_0", "mozilla_1_1", "openssl", "perl_5", "postgresql", "qpl_1_0", "ssleay",
    "sun", "zlib", "open_source", "restricted", "unrestricted", "unknown",
}
TOP_KEYS = {
    "name", "version", "abstract", "maintainer", "license", "provides", "meta-spec",
    "description", "generated_by", "tags", "no_index", "prereqs", "release_status",
    "resources",
}
REQUIRED = ["name", "version", "abstract", "maintainer", "license", "provides", "meta-spec"]
PHASES = {"configure", "build", "test", "runtime", "develop"}
RELATIONSHIPS = {"requires", "recommends", "suggests", "conflicts"}
SPEC_URLS = {"https://pgxn.org/meta/spec.txt", "http://pgxn.org/meta/spec.txt"}


def custom(key):
    return isinstance(key, str) and len(key) > 2 and key[:2] in ("x_", "X_")


def is_string(v, min_len=1):
    return isinstance(v, str) and len(v) >= min_len


def is_path(v):
    """A relative path in Unix form within the distribution."""
    if not is_string(v, 2) or "\\" in v or v.startswith("/"):
        return False
    parts = (v[2:] if v.startswith("./") else v).split("/")
    return all(p not in ("", ".", "..") for p in parts)


def is_range(v):
    if v == 0 and not isinstance(v, bool):
        return True
    return isinstance(v, str) and all(RANGE_PART.match(p.strip()) for p in v.split(","))


def unknown_keys(obj, allowed):
    return [k for k in obj if k not in allowed and not custom(k)]


def check_name(meta):
    v = meta.get("name")
    return [] if isinstance(v, str) and TERM.match(v) else [f"name {v!r} is not a Term"]


def check_version(meta):
    v = meta.get("version")
    return [] if isinstance(v, str) and SEMVER.match(v) else [f"version {v!r} is not a semantic version (like 1.3.0)"]


def check_strings(meta):
    problems = []
    for key in ("abstract", "description", "generated_by"):
        if key in meta and not is_string(meta[key]):
            problems.append(f"{key} must be a non-empty string")
    return problems


def check_maintainer(meta):
    v = meta.get("maintainer")
    if is_string(v):
        return []
    if isinstance(v, list) and v and all(is_string(m) for m in v) and len(set(v)) == len(v):
        return []
    return ["maintainer must be a non-empty string or a list of distinct non-empty strings"]


def check_license(meta):
    v = meta.get("license")
    if isinstance(v, str):
        return [] if v in LICENSES else [f"license {v!r} is not one of the spec's tokens ({', '.join(sorted(LICENSES))})"]
    if isinstance(v, list):
        bad = [x for x in v if x not in LICENSES]
        if not v or bad or len(set(map(str, v))) != len(v):
            return [f"license list must name distinct known tokens; unknown: {bad}"]
        return []
    if isinstance(v, dict):
        bad = [k for k, u in v.items() if not (isinstance(u, str) and URI.match(u))]
        return [] if v and not bad else [f"license object must map names to URIs; bad: {bad}"]
    return ["license must be a token, a list of tokens or an object of names to URIs"]


def check_meta_spec(meta):
    v = meta.get("meta-spec")
    if not isinstance(v, dict):
        return ["meta-spec must be an object"]
    problems = []
    if not (isinstance(v.get("version"), str) and re.match(r"^1\.0\.\d+$", v["version"])):
        problems.append(f"meta-spec.version {v.get('version')!r} must be 1.0.x")
    if "url" in v and v["url"] not in SPEC_URLS:
        problems.append(f"meta-spec.url {v['url']!r} is not the spec's ({', '.join(sorted(SPEC_URLS))})")
    problems += [f"meta-spec: unknown key {k!r}" for k in unknown_keys(v, {"version", "url"})]
    return problems


def check_provides(meta):
    v = meta.get("provides")
    if not isinstance(v, dict) or not v:
        return ["provides must be an object naming at least one extension"]
    problems = []
    for name, ext in v.items():
        if not TERM.match(name):
            problems.append(f"provides: {name!r} is not a Term")
        if not isinstance(ext, dict):
            problems.append(f"provides.{name} must be an object")
            continue
        for key in ("file", "version"):
            if key not in ext:
                problems.append(f"provides.{name}.{key} is required")
        if "file" in ext and not is_path(ext["file"]):
            problems.append(f"provides.{name}.file {ext['file']!r} is not a relative Unix path")
        if "docfile" in ext and not is_path(ext["docfile"]):
            problems.append(f"provides.{name}.docfile {ext['docfile']!r} is not a relative Unix path")
        if "version" in ext and not (isinstance(ext["version"], str) and SEMVER.match(ext["version"])):
            problems.append(f"provides.{name}.version {ext['version']!r} is not a semantic version")
        for key in ("abstract", "docpath"):
            if key in ext and not is_string(ext[key]):
                problems.append(f"provides.{name}.{key} must be a non-empty string")
        problems += [f"provides.{name}: unknown key {k!r}"
                     for k in unknown_keys(ext, {"file", "version", "abstract", "docfile", "docpath"})]
    return problems


def check_prereqs(meta):
    if "prereqs" not in meta:
        return []
    v = meta["prereqs"]
    if not isinstance(v, dict) or not any(p in v for p in PHASES):
        return [f"prereqs must be an object with at least one of {sorted(PHASES)}"]
    problems = [f"prereqs: unknown phase {k!r}" for k in unknown_keys(v, PHASES)]
    for phase in PHASES & v.keys():
        rels = v[phase]
        if not isinstance(rels, dict) or not any(r in rels for r in RELATIONSHIPS):
            problems.append(f"prereqs.{phase} must be an object with at least one of {sorted(RELATIONSHIPS)}")
            continue
        problems += [f"prereqs.{phase}: unknown relationship {k!r}" for k in unknown_keys(rels, RELATIONSHIPS)]
        for rel in RELATIONSHIPS & rels.keys():
            deps = rels[rel]
            if not isinstance(deps, dict) or not deps:
                problems.append(f"prereqs.{phase}.{rel} must be a non-empty object")
                continue
            for dep, rng in deps.items():
                if not TERM.match(dep):
                    problems.append(f"prereqs.{phase}.{rel}: {dep!r} is not a Term")
                if not is_range(rng):
                    problems.append(f"prereqs.{phase}.{rel}.{dep}: {rng!r} is not a version range (0, \"1.2.0\", \">= 1.2.0, < 2.0.0\")")
    return problems


def check_resources(meta):
    if "resources" not in meta:
        return []
    v = meta["resources"]
    if not isinstance(v, dict) or not any(k in v for k in ("homepage", "bugtracker", "repository")):
        return ["resources must be an object with homepage, bugtracker or repository"]
    problems = [f"resources: unknown key {k!r}" for k in unknown_keys(v, {"homepage", "bugtracker", "repository"})]
    if "homepage" in v and not (isinstance(v["homepage"], str) and URI.match(v["homepage"])):
        problems.append("resources.homepage must be a URI")
    bt = v.get("bugtracker")
    if bt is not None:
        if not isinstance(bt, dict) or not ("web" in bt or "mailto" in bt):
            problems.append("resources.bugtracker must be an object with web or mailto")
        else:
            if "web" in bt and not (isinstance(bt["web"], str) and URI.match(bt["web"])):
                problems.append("resources.bugtracker.web must be a URI")
            if "mailto" in bt and not (isinstance(bt["mailto"], str) and EMAIL.match(bt["mailto"])):
                problems.append("resources.bugtracker.mailto must be an email address")
            problems += [f"resources.bugtracker: unknown key {k!r}" for k in unknown_keys(bt, {"web", "mailto"})]
    repo = v.get("repository")
    if repo is not None:
        if not isinstance(repo, dict) or not (("url" in repo and "type" in repo) or "web" in repo):
            problems.append("resources.repository must be an object with url and type, or web")
        else:
            for key in ("url", "web"):
                if key in repo and not (isinstance(repo[key], str) and URI.match(repo[key])):
                    problems.append(f"resources.repository.{key} must be a URI")
            if "type" in repo and not (isinstance(repo["type"], str) and re.match(r"^[a-z]+$", repo["type"])):
                problems.append("resources.repository.type must be a lowercase word (git, hg, ...)")
            problems += [f"resources.repository: unknown key {k!r}" for k in unknown_keys(repo, {"url", "web", "type"})]
    return problems


def check_others(meta):
    problems = []
    if "tags" in meta:
        t = meta["tags"]
        if not (isinstance(t, list) and t and all(isinstance(x, str) and TAG.match(x) for x in t)
                and len(set(t)) == len(t)):
            problems.append("tags must be a non-empty list of distinct tags (2 to 255 characters, no slash, backslash or control character)")
    if "release_status" in meta and meta["release_status"] not in ("stable", "testing", "unstable"):
        problems.append("release_status must be stable, testing or unstable")
    if "no_index" in meta:
        n = meta["no_index"]
        if not isinstance(n, dict) or not ("file" in n or "directory" in n):
            problems.append("no_index must be an object with file or directory")
        else:
            for key in ("file", "directory"):
                if key in n:
                    vals = n[key] if isinstance(n[key], list) else [n[key]]
                    if not vals or not all(is_path(x) for x in vals):
                        problems.append(f"no_index.{key} must be a relative path or a list of them")
            problems += [f"no_index: unknown key {k!r}" for k in unknown_keys(n, {"file", "directory"})]
    return problems


def control_default_version(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\s*default_version\s*=\s*'?([^'\s#]+)'?", line)
            if m:
                return m.group(1)
    return None


def as_semver(version):
    """1.3 -> 1.3.0; a version that is already semver stays; None if neither."""
    if version is None:
        return None
    if re.match(r"^\d+\.\d+$", version):
        version += ".0"
    return version if SEMVER.match(version) else None


def check_control(meta, root):
    provides = meta.get("provides") if isinstance(meta.get("provides"), dict) else {}
    controls = sorted(f for f in os.listdir(root) if f.endswith(".control"))
    if not controls:
        return [f"no NAME.control in {root}"]
    problems = []
    for control in controls:
        name = control[:-len(".control")]
        default = control_default_version(os.path.join(root, control))
        expected = as_semver(default)
        if expected is None:
            problems.append(f"{control}: default_version {default!r} is not MAJOR.MINOR or semver")
        ext = provides.get(name)
        if not isinstance(ext, dict):
            problems.append(f"{control}: provides.{name} is missing")
        elif expected is not None and ext.get("version") != expected:
            problems.append(f"provides.{name}.version is {ext.get('version')!r}, but {control}'s default_version {default!r} is {expected}")
    return problems


def check_files(meta, root):
    provides = meta.get("provides") if isinstance(meta.get("provides"), dict) else {}
    problems = []
    for name, ext in provides.items():
        if not isinstance(ext, dict):
            continue
        for key in ("file", "docfile"):
            if isinstance(ext.get(key), str) and not os.path.isfile(os.path.join(root, ext[key])):
                problems.append(f"provides.{name}.{key}: {ext[key]} does not exist")
    return problems


def check_dist_version(meta, root):
    provides = meta.get("provides") if isinstance(meta.get("provides"), dict) else {}
    name = meta.get("name")
    main = provides.get(name) if isinstance(name, str) else None
    if not isinstance(main, dict):
        return [f"provides has no extension named like the distribution ({name!r})"]
    if main.get("version") != meta.get("version"):
        return [f"version {meta.get('version')!r} is not provides.{name}.version {main.get('version')!r}"]
    return []


def check_postgresql(meta, root):
    try:
        rng = meta["prereqs"]["runtime"]["requires"]["PostgreSQL"]
    except (KeyError, TypeError):
        return ["prereqs.runtime.requires.PostgreSQL is missing"]
    # The oldest supported server is the one src/am/compat.hpp accepts: 15.
    if not (isinstance(rng, str) and re.search(r"(^|,)\s*(>=\s*)?15\.0\.0\s*(,|$)", rng)):
        return [f"prereqs.runtime.requires.PostgreSQL {rng!r} should require at least 15.0.0"]
    return []


# --- the front door (issue 50): README.md and the documents it links to ---------------------
README_MAX_LINES = 200
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# A figure: a number with a unit or a ratio ("3.09x", "-74.4%", "36,108 TPS", "6.4 kB", "10 s",
# "32 minutes"). Versions, dates and settings' values have no unit and are not figures.
FIGURE = re.compile(r"(?<![\w.\-+])[-+]?\d[\d,]*(?:\.\d+)?(?: ?(?:x|%|TPS|kB|MB|GB|ms|s|minutes|hours?)\b| ?x(?=\W))")


def slug(heading):
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[`*_\[\]]", lambda m: "_" if m.group(0) == "_" else "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def without_code(text):
    """Markdown text without its fenced code blocks (neither links nor headings there)."""
    return re.sub(r"```.*?```", "", text, flags=re.S)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def front_door(root):
    """README.md and doc/*.md, the files the front door checks read."""
    return [os.path.join(root, "README.md")] + sorted(
        os.path.join(root, "doc", n) for n in os.listdir(os.path.join(root, "doc")) if n.endswith(".md"))


@functools.lru_cache(maxsize=None)
def anchors_of(path):
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", without_code(read(path)), re.M)}


def check_links(root):
    """Every relative link (and #anchor) of README.md and doc/*.md resolves."""
    problems = []
    for md in front_door(root):
        for target in LINK.findall(without_code(read(md))):
            if re.match(r"^[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(md), file_part)) if file_part else md
            where = os.path.relpath(md, root)
            if not os.path.exists(dest):
                problems.append(f"{where}: link to {target}: no such file")
            elif anchor and dest.endswith(".md") and anchor not in anchors_of(dest):
                problems.append(f"{where}: link to {target}: no such heading")
    return problems


def normalized(text):
    return re.sub(r"[\s,]", "", text)


def readme_figures(root):
    """The figures README.md states that no doc/*.md states too."""
    readme, *docs = front_door(root)
    stated = "\n".join(normalized(read(d)) for d in docs)
    return [f"README.md states {fig!r}, which no doc/*.md states"
            for fig in sorted({m.group(0) for m in FIGURE.finditer(read(readme))})
            if normalized(fig) not in stated]


def check_readme_length(root):
    n = len(read(os.path.join(root, "README.md")).splitlines())
    return [] if n <= README_MAX_LINES else [f"README.md has {n} lines, more than {README_MAX_LINES}"]


def main(argv):
    args = argv[1:]
    root = None
    if "--root" in args:
        i = args.index("--root")
        root = args[i + 1]
        del args[i:i + 2]
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = args[0] if args else os.path.join(here, "META.json")
    root = root or os.path.dirname(os.path.abspath(path))

    passed = failed = 0

    def report(name, problems):
        nonlocal passed, failed
        if problems:
            failed += 1
            print(f"FAIL {name}")
            for p in problems:
                print(f"     {p}")
        else:
            passed += 1
            print(f"ok   {name}")

    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        report("json", [f"{path}: {e}"])
        print(f"{passed} passed, {failed} failed")
        return 1
    if not isinstance(meta, dict):
        report("json", [f"{path}: the top level must be an object"])
        print(f"{passed} passed, {failed} failed")
        return 1
    report("json", [])
    report("required keys", [f"{k} is missing" for k in REQUIRED if k not in meta])
    report("no unknown keys", [f"unknown key {k!r} (custom keys start with x_)" for k in unknown_keys(meta, TOP_KEYS)])
    report("name", check_name(meta))
    report("version (semver)", check_version(meta))
    report("abstract, description, generated_by", check_strings(meta) + ([] if "abstract" in meta else ["abstract is missing"]))
    report("maintainer", check_maintainer(meta))
    report("license", check_license(meta))
    report("meta-spec", check_meta_spec(meta))
    report("provides", check_provides(meta))
    report("prereqs", check_prereqs(meta))
    report("resources", check_resources(meta))
    report("tags, release_status, no_index", check_others(meta))
    report("provides = NAME.control's default_version", check_control(meta, root))
    report("provided files exist", check_files(meta, root))
    report("version = the extension's version", check_dist_version(meta, root))
    report("prereqs: PostgreSQL >= 15", check_postgresql(meta, root))
    if os.path.exists(os.path.join(root, "README.md")):
        report("links of README.md and doc/ resolve", check_links(root))
        report(f"README.md at most {README_MAX_LINES} lines", check_readme_length(root))
        report("every figure of README.md is stated in doc/", readme_figures(root))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
