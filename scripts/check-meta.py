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
  PostgreSQL      prereqs.runtime.requires names the PostgreSQL versions hotplus supports:
                  at least 15.0.0 and, with src/am/compat.hpp, below the first it refuses
and the front door it ships with:
  links           every relative link of README.md and doc/*.md names a file that exists,
                  and its #anchor a heading of that file (GitHub's slugs)
  README length   README.md has at most 200 lines
  README figures  every figure README.md states (a number with a unit or a ratio: 3.09x,
                  -74.4%, 36,108 TPS, 6.4 kB, 10 s) is stated in doc/*.md too, where its run is
and what the documents and the tree's comments claim (issue 54):
  more links      the same for bench/README.md, src/README.md and CHANGELOG.md
  README cited    every README section a file of the tree cites in prose (README "Use",
                  README.md, "Supported versions") or as README.md#anchor outside a Markdown
                  link is a heading of README.md (KNOWN_STALE_CITATIONS: the ones left, why)
  sections cited  the same for doc/*.md, bench/README.md and src/README.md, where a
                  paragraph's bold lead (**Modes**) counts as a section too; a name may leave
                  out what a heading's parenthesis or colon adds ("Production")
  versions        a release archive a document names (hotplus-1.6.0.zip) has META.json's
                  version; each hotplus--A--B.sql named exists; the last upgrade script
                  reaches default_version; debian/changelog's newest entry is META.json's
  CHANGELOG       its newest section is default_version; "extension X.Y (DATE)" has
                  debian/changelog's date; no version debian/changelog dates is "Unreleased"
  majors          debian/pgversions lists, README's "Supported versions" and compat.hpp's
                  #error name, the majors src/am/compat.hpp accepts (the PostgreSQL prereq
                  above is checked against them too)
  settings        the GUC tables of README.md and doc/using.md: each GUC exists in src/ with
                  the default shown; every GUC pg_settings shows has a row; README says
                  "superuser" exactly for the superuser-only ones
  test steps      the steps doc/tests.md lists under "The steps" are scripts/test.sh's

Prints each check ("ok" or "FAIL" with the reasons) and ends with "N passed, N failed";
exits 1 if a check failed.

    python3 scripts/check-meta.py                 # META.json of the repository's root
    python3 scripts/check-meta.py FILE [--root DIR]
"""
import functools
import json
import os
import re
import subprocess
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


COMPAT = os.path.join("src", "am", "compat.hpp")


def supported_majors(root):
    """The PostgreSQL majors src/am/compat.hpp builds for, from its #error guard
    ("#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 200000": 15 to 19); None without it."""
    path = os.path.join(root, COMPAT)
    if not os.path.exists(path):
        return None
    m = re.search(r"^#if PG_VERSION_NUM < (\d+)0000 \|\| PG_VERSION_NUM >= (\d+)0000\s*\n#error",
                  read(path), re.M)
    return (int(m.group(1)), int(m.group(2)) - 1) if m else None


def check_postgresql(meta, root):
    try:
        rng = meta["prereqs"]["runtime"]["requires"]["PostgreSQL"]
    except (KeyError, TypeError):
        return ["prereqs.runtime.requires.PostgreSQL is missing"]
    # The servers src/am/compat.hpp accepts (15 to 19; the lower bound alone where the tree has
    # no compat.hpp): at least the oldest, and below the first it refuses.
    majors = supported_majors(root)
    lo, hi = majors if majors else (15, None)
    if not isinstance(rng, str):
        return [f"prereqs.runtime.requires.PostgreSQL {rng!r} is not a string"]
    problems = []
    if not re.search(rf"(^|,)\s*(>=\s*)?{lo}\.0\.0\s*(,|$)", rng):
        problems.append(f"prereqs.runtime.requires.PostgreSQL {rng!r} should require at least {lo}.0.0")
    if hi is not None and not re.search(rf"(^|,)\s*<\s*{hi + 1}\.0\.0\s*(,|$)", rng):
        problems.append(f"prereqs.runtime.requires.PostgreSQL {rng!r} should be below {hi + 1}.0.0, "
                        f"as {COMPAT} refuses PostgreSQL {hi + 1}")
    return problems


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


def check_links(root, files=None):
    """Every relative link (and #anchor) of README.md and doc/*.md (or of files) resolves."""
    problems = []
    for md in files if files is not None else front_door(root):
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


# --- the tree's claims (issue 54): what the documents and comments say against the tree -----
# The other documents whose links are checked, beside README.md and doc/*.md.
MORE_DOCS = [os.path.join("bench", "README.md"), os.path.join("src", "README.md"), "CHANGELOG.md"]
# Directories of recorded output and build or test leftovers: never read for citations.
NOT_READ = re.compile(r"^(bench/results|test-logs|results|output_iso|tmp_check|tmp_check_iso|log)(/|$)")
# A citation of a README section in prose, anywhere: README "Supported versions",
# README.md "Uninstalling", README.md, "Use", (README "Tests"; ...). Not bench/README.md's
# or src/README.md's (the path before it), nor PostgreSQL's README.HOT.
README_CITATION = re.compile(r"""(?<![\w/.-])README(?:\.md)?(?:'s)?,?\s+\(?"([^"\n]+)\"""")
# A citation of a section of another document: doc/using.md "Security", bench/README.md,
# "Production", src/README.md, section "Folders"; each further , "Name" right after it too.
DOC_CITATION = re.compile(
    r"""(?<![\w/.-])((?:doc/[\w-]+|bench/README|src/README)\.md)(?:'s)?,?\s+\(?(?:section\s+)?"([^"\n]+)\"""")
MORE_NAMES = re.compile(r"""\s*(?:\([^()\n]*\))?\s*(?:,|\band\b)\s*"([^"\n]+)\"""")
# A file.md#anchor outside a Markdown link's target (a comment's pointer), anywhere.
ANCHOR_CITATION = re.compile(r"(?<!\]\()(?<![\w/.-])((?:\.\./)*(?:[\w.-]+/)*[\w.-]+\.md)#([\w-]+)")
# Citations this change may not fix, each with why; the check fails once one is gone, so the
# list never outlives its entries.
KNOWN_STALE_CITATIONS = {}


def tree_files(root):
    """The tree's text files, relative to root: git's files (tracked, and untracked ones it
    does not ignore) in a clone, every file but dot-directories' in an unpacked archive."""
    names = None
    if os.path.exists(os.path.join(root, ".git")):  # a directory, or a worktree's file
        try:
            out = subprocess.run(["git", "-c", f"safe.directory={os.path.abspath(root)}", "-C", root,
                                  "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                 capture_output=True, check=True).stdout
            names = [n for n in out.decode("utf-8", "replace").split("\0") if n]
        except (OSError, subprocess.CalledProcessError):
            names = None
    if names is None:
        names = []
        for d, dirs, files in os.walk(root):
            dirs[:] = sorted(x for x in dirs if not x.startswith("."))
            names += [os.path.relpath(os.path.join(d, f), root) for f in files]
    for name in sorted(set(names)):
        name = name.replace(os.sep, "/")
        if NOT_READ.match(name) or name == "scripts/check-meta.py":
            continue
        path = os.path.join(root, name)
        try:
            if os.path.getsize(path) > 1_000_000:
                continue
            with open(path, encoding="utf-8") as f:
                yield name, f.read()
        except (OSError, UnicodeDecodeError):
            continue


@functools.lru_cache(maxsize=None)
def tree_texts(root):
    """tree_files(root), read once for every check that reads them."""
    return tuple(tree_files(root))


def clean(name):
    """A heading or a cited name as compared: no Markdown emphasis or code marks, one space."""
    return re.sub(r"\s+", " ", re.sub(r"[`*_]", "", name)).strip().lower()


@functools.lru_cache(maxsize=None)
def headings_of(path):
    return [clean(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", without_code(read(path)), re.M)]


@functools.lru_cache(maxsize=None)
def bold_leads_of(path):
    """The bold words a paragraph or list item opens with (**Modes** ..., - **citus**: ...),
    which the documents cite as sections of their own."""
    return [clean(m.group(1)) for m in
            re.finditer(r"^(?:[-*] |\d+\. )?\*\*([^*\n]+)\*\*", without_code(read(path)), re.M)]


def names_section(name, sections):
    """A cited name names a section if it is its title, or its title without what a
    parenthesis or a colon adds ("Production" for "Production (bench/production.py)")."""
    name = clean(name)
    return any(s == name or re.match(re.escape(name) + r"\s*[(:]", s) for s in sections)


def cited_sections(text):
    """(file, name, offset) of every section citation of a document in text."""
    for m in README_CITATION.finditer(text) if "README" in text else ():
        yield "README.md", m.group(1), m.start()
    for m in DOC_CITATION.finditer(text) if ".md" in text else ():
        yield m.group(1), m.group(2), m.start()
        end = m.end()
        while True:
            more = MORE_NAMES.match(text, end)
            if not more:
                break
            yield m.group(1), more.group(1), more.start(1)
            end = more.end()


def check_citations(root, readme):
    """Section citations in prose and file.md#anchor pointers, across the tree: of README.md
    (readme=True; each must name a README heading), or of doc/*.md, bench/README.md and
    src/README.md (each a heading or a paragraph's bold lead)."""
    problems, known_seen = [], set()
    for name, text in tree_texts(root):
        for doc, section, at in cited_sections(text):
            if (doc == "README.md") != readme:
                continue
            line = text.count("\n", 0, at) + 1
            quoted = f'{"README" if readme else doc} "{section}"'
            path = os.path.join(root, doc)
            if not os.path.exists(path):
                problems.append(f"{name}:{line}: cites {quoted}: no such file")
                continue
            sections = headings_of(path) + ([] if readme else bold_leads_of(path))
            if names_section(section, sections):
                continue
            if readme and (name, f'README "{section}"') in KNOWN_STALE_CITATIONS:
                known_seen.add((name, f'README "{section}"'))
                continue
            problems.append(f"{name}:{line}: cites {quoted}, which is no "
                            f"{'heading' if readme else 'heading or bold lead'} of {doc}")
        for m in ANCHOR_CITATION.finditer(text) if ".md#" in text else ():
            target, anchor = m.group(1), m.group(2)
            if (os.path.basename(target) == "README.md" and os.path.dirname(target) in ("", ".")) != readme:
                continue
            dest = next((p for p in (os.path.join(root, target),
                                     os.path.join(root, os.path.dirname(name), target))
                         if os.path.exists(p)), None)
            line = text.count("\n", 0, m.start()) + 1
            if dest is None:
                problems.append(f"{name}:{line}: {target}#{anchor}: no such file")
            elif anchor not in anchors_of(os.path.normpath(dest)):
                problems.append(f"{name}:{line}: {target}#{anchor}: no such heading")
    if readme:
        problems += [f"{name}: the known stale citation {cited} is gone: remove it from "
                     f"KNOWN_STALE_CITATIONS" for (name, cited) in KNOWN_STALE_CITATIONS
                     if (name, cited) not in known_seen]
    return problems


def known_stale_note():
    return "; ".join(f"known, not fixed: {name} cites {cited}: {why}"
                     for (name, cited), why in sorted(KNOWN_STALE_CITATIONS.items()))


DEBIAN_ENTRY = re.compile(r"^(\S+) \(([^)]+)\) ", re.M)
DEBIAN_DATE = re.compile(r"^ -- .*?, (\d{1,2}) (\w{3}) (\d{4}) ", re.M)
MONTHS = {m: i for i, m in enumerate(
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], 1)}


def debian_versions(root):
    """debian/changelog's entries, newest first: (upstream version, YYYY-MM-DD)."""
    path = os.path.join(root, "debian", "changelog")
    if not os.path.exists(path):
        return []
    entries = []
    for chunk in re.split(r"(?m)^(?=\S)", read(path)):
        head, date = DEBIAN_ENTRY.search(chunk), DEBIAN_DATE.search(chunk)
        if head and date:
            upstream = re.sub(r"-[^-]*$", "", head.group(2))
            entries.append((upstream, f"{date.group(3)}-{MONTHS.get(date.group(2), 0):02d}-{int(date.group(1)):02d}"))
    return entries


def docs_with_versions(root):
    """The documents whose archive names are claims about the current release."""
    return front_door(root) + [os.path.join(root, d) for d in MORE_DOCS[:2]]


def check_version_strings(meta, root):
    """The release archive's name (hotplus-1.6.0.zip) wherever a document names it is
    META.json's version; every hotplus--A.sql / hotplus--A--B.sql a document or CHANGELOG.md
    names exists, and the last upgrade script reaches the control file's default_version;
    debian/changelog's newest entry is META.json's version."""
    version, name = meta.get("version"), meta.get("name")
    problems = []
    if not isinstance(version, str) or not isinstance(name, str):
        return ["no name and version in META.json to compare with"]
    for path in docs_with_versions(root):
        for m in re.finditer(rf"(?<![\w-]){re.escape(name)}-(\d+\.\d+\.\d+)\b", without_code(read(path))):
            if m.group(1) != version:
                problems.append(f"{os.path.relpath(path, root)} names {m.group(0)}, but the version is {version} (META.json)")
    for path in docs_with_versions(root) + [os.path.join(root, "CHANGELOG.md")]:
        if not os.path.exists(path):
            continue
        for m in sorted(set(re.findall(rf"\b{re.escape(name)}--[\d.]+(?:--[\d.]+)?\.sql\b", read(path)))):
            if not os.path.exists(os.path.join(root, m)):
                problems.append(f"{os.path.relpath(path, root)} names {m}, which does not exist")
    control = os.path.join(root, f"{name}.control")
    default = control_default_version(control) if os.path.exists(control) else None
    targets = [re.match(rf"{re.escape(name)}--[\d.]+--([\d.]+)\.sql$", f) for f in os.listdir(root)]
    reached = sorted((tuple(int(x) for x in m.group(1).split(".")), m.group(1)) for m in targets if m)
    if default and reached and reached[-1][1] != default:
        problems.append(f"the last upgrade script reaches {reached[-1][1]}, but {name}.control's default_version is {default}")
    entries = debian_versions(root)
    if entries and entries[0][0] != version:
        problems.append(f"debian/changelog's newest entry is {entries[0][0]}, but the version is {version} (META.json)")
    return problems


CHANGELOG_HEADING = re.compile(r"^## (.*)$", re.M)


def check_changelog(root, name):
    """CHANGELOG.md's sections against debian/changelog and the control file: the newest
    section is the current extension version (or an "Unreleased" one above it); a section
    "extension X.Y" carries debian/changelog's date of X.Y.0 as (YYYY-MM-DD), and no section
    of a version debian/changelog dates, or of one not newer than the current, is "Unreleased"."""
    path = os.path.join(root, "CHANGELOG.md")
    control = os.path.join(root, f"{name}.control")
    if not os.path.exists(path) or not os.path.exists(control):
        return []
    default = control_default_version(control)
    dated = {v: d for v, d in debian_versions(root)}
    current = tuple(int(x) for x in default.split(".")) if default else None
    problems, first = [], None
    for m in CHANGELOG_HEADING.finditer(read(path)):
        heading = m.group(1)
        v = re.search(r"\b(?:extension|hotplus) (\d+\.\d+)(\.\d+)?\b", heading)
        if not v:
            continue
        ver = v.group(1) + (v.group(2) or "")
        semver = as_semver(ver)
        numbers = tuple(int(x) for x in ver.split("."))
        unreleased = "unreleased" in heading.lower()
        if first is None:
            first = (ver, unreleased, numbers)
        date = re.search(r"\((\d{4}-\d{2}-\d{2})\)", heading)
        if unreleased and semver in dated:
            problems.append(f"CHANGELOG.md: \"{heading}\": debian/changelog dates {semver} {dated[semver]}")
        elif unreleased and current and numbers[:2] <= current[:2]:
            problems.append(f"CHANGELOG.md: \"{heading}\": {ver} is not newer than the current {default}")
        if date and dated.get(semver) != date.group(1):
            problems.append(f"CHANGELOG.md: \"{heading}\": debian/changelog dates {semver} "
                            f"{dated.get(semver, '(not at all)')}")
        if not date and not unreleased and heading.startswith("extension ") and semver in dated:
            problems.append(f"CHANGELOG.md: \"{heading}\": without debian/changelog's date ({dated[semver]})")
    if first and current and not (first[0] == default or (first[1] and first[2][:2] > current[:2])):
        problems.append(f"CHANGELOG.md's newest section is {first[0]}, but {name}.control's default_version is {default}")
    return problems


def check_majors(root):
    """debian/pgversions lists, and README's "Supported versions" names, the PostgreSQL
    majors src/am/compat.hpp builds for; its #error message says the same."""
    majors = supported_majors(root)
    if majors is None:
        return [f"{COMPAT} has no guard of the PostgreSQL versions it accepts"]
    lo, hi = majors
    problems = []
    compat = read(os.path.join(root, COMPAT))
    if f"PostgreSQL {lo} to {hi}" not in compat:
        problems.append(f"{COMPAT}'s #error does not say \"PostgreSQL {lo} to {hi}\"")
    pgversions = os.path.join(root, "debian", "pgversions")
    if os.path.exists(pgversions):
        listed = [ln.strip() for ln in read(pgversions).splitlines() if ln.strip() and not ln.startswith("#")]
        if listed != [str(v) for v in range(lo, hi + 1)]:
            problems.append(f"debian/pgversions lists {' '.join(listed)}, not {lo} to {hi} one a line "
                            f"(as {COMPAT} accepts; pg_buildext's \"N+\" has no upper bound)")
    readme = read(os.path.join(root, "README.md"))
    section = re.search(r"^## Supported versions\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
    if not section or f"PostgreSQL {lo} to {hi}" not in section.group(1):
        problems.append(f"README.md's \"Supported versions\" does not say \"PostgreSQL {lo} to {hi}\"")
    return problems


GUC_DEFINITION = re.compile(r'DefineCustom(Bool|Int|Real|String|Enum)Variable\(\s*"([^"]+)"(.*?)\);', re.S)


def code_gucs(root):
    """{name: (kind, default as written, context, shown)} of every GUC src/ defines."""
    gucs = {}
    src = os.path.join(root, "src")
    for d, _, files in os.walk(src):
        for f in files:
            if f.endswith(".cpp"):
                for m in GUC_DEFINITION.finditer(read(os.path.join(d, f))):
                    rest = m.group(3)
                    default = re.search(r"&[\w.]+,\s*([^,]+),", rest)
                    context = re.search(r"\b(PGC_\w+)", rest)
                    gucs[m.group(2)] = (m.group(1), default.group(1).strip() if default else None,
                                        context.group(1) if context else None,
                                        "GUC_NO_SHOW_ALL" not in rest)
    return gucs


def settings_table(path, heading="Settings"):
    """(GUC, default cell, effect cell) of the table under the heading "## Settings"."""
    section = re.search(rf"^## {heading}\n(.*?)(?=^## |\Z)", read(path), re.M | re.S)
    if not section:
        return None
    return [(m.group(1), m.group(2).strip(), m.group(3)) for m in
            re.finditer(r"^\| `(hotplus\.\w+)` \| ([^|]+) \| ([^\n]*)\|$", section.group(1), re.M)]


def default_agrees(kind, code, cell):
    """The documented default (`on`, `1`, `off` (`on` in assert builds)) against the code's."""
    first = re.match(r"`([^`]+)`", cell)
    first = first.group(1) if first else cell
    if code in ("true", "false"):
        return first == ("on" if code == "true" else "off")
    if re.match(r"^k\w+$", code or ""):  # a build-dependent constant: hotplus.verify's
        return first == "off" and re.search(r"`on` in assert", cell) is not None
    try:
        return float(first) == float(code)
    except (TypeError, ValueError):
        return first == code


def check_settings(root):
    """README.md's and doc/using.md's settings tables against the GUCs src/ defines: each row
    names a GUC that exists, with its default; every GUC shown in pg_settings has a row in
    both; README says "superuser" exactly for the superuser-only ones shown."""
    gucs = code_gucs(root)
    if not gucs:
        return ["no DefineCustom*Variable in src/"]
    problems = []
    for doc in ("README.md", os.path.join("doc", "using.md")):
        rows = settings_table(os.path.join(root, doc))
        if rows is None:
            problems.append(f"{doc} has no \"Settings\" section")
            continue
        for guc, default, effect in rows:
            if guc not in gucs:
                problems.append(f"{doc}: {guc} is no GUC of src/")
                continue
            kind, code, context, shown = gucs[guc]
            if not default_agrees(kind, code, default):
                problems.append(f"{doc}: {guc}'s default is {default}, the code's {code}")
            if doc == "README.md" and shown and (context == "PGC_SUSET") != ("superuser" in effect):
                problems.append(f"README.md: {guc} is {context}, and its row "
                                f"{'does not say' if context == 'PGC_SUSET' else 'says'} superuser")
        listed = {r[0] for r in rows}
        problems += [f"{doc}: no row for {g}, which pg_settings shows" for g, v in sorted(gucs.items())
                     if v[3] and g not in listed]
    return problems


def test_sh_steps(root):
    """The step names scripts/test.sh records (record NAME, skip NAME, summary_step NAME, the
    suites' names, the test modules')."""
    text = read(os.path.join(root, "scripts", "test.sh"))
    names = set(re.findall(r"\b(?:record|skip|summary_step|regress_suite|tap_suite)\s+\"?([a-z][a-z0-9-]*)", text))
    names |= set(re.findall(r'regress_suite_in "\$dir" ([a-z][a-z0-9-]*)', text))
    for loop in re.findall(r"for suite in ([a-z0-9 -]+); do", text):
        names |= set(loop.split())
    # the test modules' steps are named after their directories, "_" as "-" (module_suite)
    for loop in re.findall(r"for module in ([a-z0-9_ ]+); do", text):
        names |= {m.replace("_", "-") for m in loop.split()}
    return names


def check_test_steps(root):
    """The steps doc/tests.md lists under "The steps" (each "- **name**:" before the deep runs)
    are steps scripts/test.sh records, under those names."""
    path = os.path.join(root, "doc", "tests.md")
    if not os.path.exists(path) or not os.path.exists(os.path.join(root, "scripts", "test.sh")):
        return []
    section = re.search(r"^## The steps\n(.*?)(?=^\*\*Deep runs\*\*|^## |\Z)", read(path), re.M | re.S)
    if not section:
        return ["doc/tests.md has no \"The steps\" section"]
    steps = test_sh_steps(root)
    documented = [n.strip() for lead in re.findall(r"^- \*\*([^*]+)\*\*", section.group(1), re.M)
                  for n in lead.split(",")]
    if not documented:
        return ["doc/tests.md's \"The steps\" lists no step"]
    return [f"doc/tests.md lists the step {n!r}, which scripts/test.sh does not record" for n in documented
            if n not in steps]



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
    majors = supported_majors(root)
    report("prereqs: PostgreSQL " + (f"{majors[0]} to {majors[1]}, as {COMPAT} accepts" if majors else ">= 15"),
           check_postgresql(meta, root))
    if os.path.exists(os.path.join(root, "README.md")):
        report("links of README.md and doc/ resolve", check_links(root))
        report(f"README.md at most {README_MAX_LINES} lines", check_readme_length(root))
        report("every figure of README.md is stated in doc/", readme_figures(root))
        # Issue 54: the other documents, and what the tree's comments and documents cite.
        more = [os.path.join(root, d) for d in MORE_DOCS if os.path.exists(os.path.join(root, d))]
        report("links of bench/README.md, src/README.md and CHANGELOG.md resolve", check_links(root, more))
        note = known_stale_note()
        report("README sections cited in the tree are README headings" + (f" ({note})" if note else ""),
               check_citations(root, readme=True))
        report("sections of doc/, bench/README.md and src/README.md cited in the tree exist",
               check_citations(root, readme=False))
        report("version strings: release archives, SQL scripts, debian/changelog = META.json's version",
               check_version_strings(meta, root))
        report("CHANGELOG.md's versions and dates = debian/changelog's and the control file's",
               check_changelog(root, meta.get("name", "")))
        report(f"debian/pgversions, README and {COMPAT}'s message: the majors it accepts", check_majors(root))
        report("settings tables of README.md and doc/using.md = the GUCs of src/", check_settings(root))
        report("steps of doc/tests.md are scripts/test.sh's", check_test_steps(root))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
