#!/usr/bin/env python3
"""README.md and doc/guide.md against the code (issue 12, item 5): what the docs show or
list must be what the build does.

1. Every shell command in their ```sh blocks that runs a built program (latmc, latmc-info,
   latmc-bench, an example) runs, shortened (--sweeps 200, --therm 50, checkpoints every
   100), in a scratch directory, and exits 0; a command piped into a filter (the guide's
   awk recipe) must print something; a command with --checkpoint is resumed as its comment
   says. Shell variables of the guide's loops get one value each (L=16, T=2.27, beta).
2. Every example program answers --help with a usage text and exit 0, without running.
3. README's model table: a row for each model of the library (as latmc --help lists them),
   and each runs in each dimension and algorithm it lists, with each parameter it lists;
   a parameter latmc --help names that the model takes is listed in its row.
4. README's list of test suites is the build's, its package list is tools/install-deps.sh's.
5. The guide's sample latmc-info output: each section and label is in the real output.
6. Every installed program is named in the guide's and README's lists of what is installed.
7. doc/environment.md has a row for each LATMC_* variable the library, its modules and
   liblatmc_mpi read, and no other; each is in a switch table that creation checks
   (lib/env_switches.c, backends/cuda/cuda_env.c) or among the variables that check
   their values where they are read (or locate modules).

Usage: check_docs.py SOURCE_DIR BUILD_DIR --prog NAME PATH ... --example NAME PATH ...
Prints one line per check; exit 1 when any failed.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = []


def fail(what):
    failures.append(what)
    print("FAIL: " + what)


def ok(what):
    print("ok: " + what)


def sh_blocks(text):
    """The contents of the ```sh / ```shell / ```bash blocks of a markdown text."""
    return re.findall(r"^```(?:sh|shell|bash)\n(.*?)^```", text, re.S | re.M)


def commands(block):
    """The block's commands: continuation lines joined, comments (from ' #') cut."""
    out, cur = [], ""
    for line in block.splitlines():
        cur += line.strip() + " "
        if line.rstrip().endswith("\\"):
            cur = cur.rstrip()[:-1]
            continue
        if line.rstrip().endswith("|"):  # a pipeline continued on the next line
            continue
        cmd = re.sub(r"(^|\s)#.*$", "", cur).strip()
        if cmd:
            out.append(cmd)
        cur = ""
    return out


def program_of(cmd):
    """(program word, position of it) after leading VAR=value assignments."""
    m = re.match(r"^((?:\w+=\S*\s+)*)(\S+)", cmd)
    return (m.group(2), m.start(2)) if m else (None, 0)


def shorten(cmd):
    cmd = re.sub(r"(--sweeps\s+)\S+", r"\g<1>200", cmd)
    cmd = re.sub(r"(--therm\s+)(\$\(\([^)]*\)\)|\S+)", r"\g<1>50", cmd)
    cmd = re.sub(r"(--checkpoint-every\s+)\S+", r"\g<1>100", cmd)
    return cmd


def run(cmd, cwd, env, timeout=60):
    try:
        p = subprocess.run(["sh", "-c", cmd], cwd=cwd, env=env, capture_output=True,
                           text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr, p.stdout
    except subprocess.TimeoutExpired:
        return 124, "timed out after %d s" % timeout, ""


def check_commands(src, build, progs, scratch):
    bindir = os.path.join(scratch, "bin")
    os.makedirs(bindir)
    for name, path in progs.items():
        os.symlink(os.path.abspath(path), os.path.join(bindir, name))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""),
               L="16", T="2.27", beta="0.44053")
    n = 0
    for doc in ("README.md", "doc/guide.md"):
        text = open(os.path.join(src, doc)).read()
        for block in sh_blocks(text):
            for cmd in commands(block):
                prog, at = program_of(cmd)
                if prog is None:
                    continue
                if prog.startswith("build/"):
                    name = os.path.basename(prog)
                    cmd = cmd[:at] + os.path.join(build, prog[len("build/"):]) + cmd[at + len(prog):]
                    if not os.access(os.path.join(build, prog[len("build/"):]), os.X_OK):
                        fail("%s: %s is not a built program" % (doc, prog))
                        continue
                elif prog in progs:
                    name = prog
                else:
                    continue
                if "..." in cmd:
                    print("skip (placeholder '...'): %s: %s" % (doc, cmd))
                    continue
                short = shorten(cmd)
                if name == "latmc" and short.strip() == cmd[:at] + prog:
                    # The bare demo: shortened, it is no longer the demo (any simulation
                    # option ends that), so it gets the demo's own beta = beta_c as well.
                    short = short.rstrip() + " --beta 0.44068679350977147"
                if name == "latmc" and "--sweeps" not in short:
                    short = re.sub(r"^(.*?latmc)(\s|$)", r"\1 --sweeps 200 --therm 50\2", short, 1)
                work = tempfile.mkdtemp(dir=scratch)
                st, out, stdout = run(short, work, env)
                n += 1
                label = "%s: %s" % (doc, short)
                if st != 0:
                    fail("%s exited with %d:\n%s" % (label, st, out[-2000:]))
                    continue
                if "|" in short and not stdout.strip():
                    fail("%s printed nothing (the filter found no line)" % label)
                    continue
                ckpt = re.search(r"--checkpoint\s+(\S+)", short)
                if ckpt and "--resume" not in short:
                    resumed = short + " --resume " + ckpt.group(1)
                    st, out, _ = run(resumed, work, env)
                    if st != 0:
                        fail("%s: resumed with --resume exited %d:\n%s" % (doc, st, out[-2000:]))
                        continue
                ok(label)
    if n == 0:
        fail("no program command found in README.md and doc/guide.md")


def check_examples(examples):
    for name, path in sorted(examples.items()):
        try:
            p = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=10)
        except subprocess.TimeoutExpired:
            fail("%s --help ran for more than 10 s (it runs instead of helping)" % name)
            continue
        text = p.stdout + p.stderr
        if p.returncode != 0 or not re.search(r"usage", text, re.I):
            fail("%s --help: exit %d, no usage text:\n%s" % (name, p.returncode, text[:500]))
        else:
            ok("%s --help" % name)


PARAM_VALUES = {"beta": "0.3", "J": "1", "h": "0.1", "mu2": "-1", "g": "6", "lambda": "10",
                "epsilon": "0.5", "nhit": "2", "nloc": "1", "nover": "1", "decisions": "1"}
# Parameters a row lists for some of its algorithms only ("`decisions` (Metropolis, heat
# bath)"): on the others the library's default value is set, which every algorithm takes.
PARAM_DEFAULTS = {"decisions": "0"}
ALGOS = {"metropolis": "metropolis", "heat bath": "heatbath",
         "swendsen-wang": "sw", "wolff": "wolff",
         "multi-hit metropolis": "metropolis", "heat bath + overrelaxation": "heatbath"}


def latmc_models(latmc):
    """The models latmc offers: its --help lists the library's (latmc_model_name), so a
    model the library gains needs a README row without a change here."""
    text = subprocess.run([latmc, "--help"], capture_output=True, text=True, timeout=10).stdout
    m = re.search(r"--model M +(.*?) \(default", text)
    if not m:
        fail("latmc --help: no '--model M ... (default' line to read the models from")
        return []
    return re.split(r", | or ", m.group(1).strip())


def latmc_params(latmc):
    """The parameter names latmc --help lists under --param (the library's)."""
    text = subprocess.run([latmc, "--help"], capture_output=True, text=True, timeout=10).stdout
    m = re.search(r"any parameter by name:(.*?)\(", text, re.S)
    if not m:
        fail("latmc --help: no 'any parameter by name: ... (' text to read the parameters from")
        return []
    return [n for n in re.split(r"[\s,]+", m.group(1)) if n]


def param_value(k, params_cell, algo):
    """A parameter's value for a run of `algo`: its own, or the default where the row says
    the parameter is for other algorithms only ("`k` (Metropolis, heat bath)")."""
    m = re.search(r"`%s` \(([^)]*)\)" % re.escape(k), params_cell)
    if m and algo not in [a.strip().lower() for a in m.group(1).split(",")]:
        return PARAM_DEFAULTS.get(k, PARAM_VALUES[k])
    return PARAM_VALUES[k]


def row_model(cell, models):
    """The model a README row names: the first word of its first cell that, lower case and
    without punctuation, is a model's name ("q-state Potts" -> potts, "phi^4" -> phi4)."""
    for word in cell.split():
        name = re.sub(r"[^0-9a-z]", "", word.lower())
        if name in models:
            return name
    return None


def check_table(src, latmc, scratch):
    text = open(os.path.join(src, "README.md")).read()
    models = latmc_models(latmc)
    rows = [l for l in text.splitlines() if l.startswith("| ") and not l.startswith("| model")
            and not l.startswith("|---")]
    seen = set()
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) < 4:
            continue
        model = row_model(cells[0], models)
        if model is None:
            fail("README table row of an unknown model: %s" % cells[0])
            continue
        seen.add(model)
        dims = re.findall(r"(\d)D", cells[1])
        algos = [a.strip().lower() for a in cells[2].split(",")]
        params = re.findall(r"`(\w+)`", cells[3])
        if not dims or not algos or not params:
            fail("README table row for %s: cannot read it: %s" % (model, row))
            continue
        for a in algos:
            if a not in ALGOS:
                fail("README table: %s algorithm '%s' unknown to this check" % (model, a))
                continue
            for d in dims:
                args = [latmc, "--model", model, "--dim", d, "-L", "8" if model != "heisenberg" else "4",
                        "--algo", ALGOS[a], "--sweeps", "20", "--therm", "5", "--quiet"]
                if model == "potts":
                    args += ["--q", "3"]
                for k in params:
                    if k not in PARAM_VALUES:
                        fail("README table: parameter '%s' of %s unknown to this check" % (k, model))
                        continue
                    args += ["--param", "%s=%s" % (k, param_value(k, cells[3], a))]
                p = subprocess.run(args, capture_output=True, text=True, cwd=scratch, timeout=60)
                label = "README table: %s %sD %s with %s" % (model, d, a, ", ".join(params))
                if p.returncode != 0:
                    fail("%s: exit %d: %s" % (label, p.returncode, (p.stdout + p.stderr)[-800:]))
                else:
                    ok(label)
        # the parameters the row does not list: the model must refuse each (latmc exits 1
        # naming it), else the row hides one
        base = [latmc, "--model", model, "--dim", dims[0], "-L", "8" if model != "heisenberg" else "4",
                "--algo", ALGOS.get(algos[0], "default"), "--sweeps", "2", "--therm", "1", "--quiet"]
        base += ["--q", "3"] if model == "potts" else []
        base += ["--param=%s=%s" % (k, param_value(k, cells[3], algos[0]))
                 for k in params if k in PARAM_VALUES]
        for k in latmc_params(latmc):
            if k in params:
                continue
            if k not in PARAM_VALUES:
                fail("latmc --help: parameter '%s' unknown to this check" % k)
                continue
            p = subprocess.run(base + ["--param", "%s=%s" % (k, PARAM_VALUES[k])],
                               capture_output=True, text=True, cwd=scratch, timeout=60)
            label = "README table: %s does not take %s (not in its row)" % (model, k)
            if p.returncode == 0:
                fail("%s: it does" % label)
            elif "does not belong" not in p.stdout + p.stderr:
                fail("%s: refused for another reason: %s" % (label, (p.stdout + p.stderr)[-400:]))
            else:
                ok(label)
    for m in models:
        if m not in seen:
            fail("README's model table has no row for %s" % m)
    # "2 <= q <= 255": both ends run
    m = re.search(r"(\d+) <= q <= (\d+)", text)
    if m:
        for q in m.groups():
            p = subprocess.run([latmc, "--model", "potts", "--q", q, "-L", "8", "--beta", "0.5",
                                "--sweeps", "5", "--therm", "1", "--quiet"],
                               capture_output=True, text=True, cwd=scratch, timeout=60)
            (ok if p.returncode == 0 else fail)("README table: Potts q = %s runs" % q)


def check_lists(src, build):
    readme = open(os.path.join(src, "README.md")).read()
    # the suites
    tests = json.loads(subprocess.run(["meson", "introspect", "--tests", build],
                                      capture_output=True, text=True, check=True).stdout)
    suites = {s.split(":")[-1] for t in tests for s in t["suite"]}
    m = re.search(r"runs the suites (.*?) in `build/`", readme, re.S)
    if not m:
        fail("README: no sentence 'runs the suites ... in `build/`'")
    else:
        listed = set(re.findall(r"`(\w+)`", m.group(1)))
        if listed != suites:
            fail("README's suites %s, the build's %s" % (sorted(listed), sorted(suites)))
        else:
            ok("README lists the build's suites: %s" % " ".join(sorted(suites)))
    # the packages
    deps = open(os.path.join(src, "tools/install-deps.sh")).read()
    needed = set(re.findall(r"^need\s+(\S+)", deps, re.M))
    m = re.search(r"installs the missing packages \(`([^`]*)`", readme)
    if not m:
        fail("README: no package list 'installs the missing packages (`...`'")
    else:
        listed = set(m.group(1).split())
        if listed != needed:
            fail("README's packages %s, tools/install-deps.sh's %s" % (sorted(listed), sorted(needed)))
        else:
            ok("README lists tools/install-deps.sh's packages")
    # what is installed: every program
    installed = json.loads(subprocess.run(["meson", "introspect", "--installed", build],
                                          capture_output=True, text=True, check=True).stdout)
    programs = sorted({os.path.basename(p) for p in installed.values() if "/bin/" in p})
    guide = open(os.path.join(src, "doc/guide.md")).read()
    g = re.search(r"^Installed: (.*?)(?:\n\n|Check what)", guide, re.S | re.M)
    r = re.search(r"`meson install -C build` installs (.*?)\n\n", readme, re.S)
    for doc, m in (("doc/guide.md 'Installed:'", g), ("README 'meson install'", r)):
        if not m:
            fail("%s: list not found" % doc)
            continue
        missing = [p for p in programs if "`%s`" % p not in m.group(1)]
        if missing:
            fail("%s does not name the installed program(s) %s" % (doc, ", ".join(missing)))
        else:
            ok("%s names every installed program (%s)" % (doc, " ".join(programs)))


# Variables that are not switches of a table: module paths, and the values parsed (and
# refused with LATMC_EINVAL) where they are read.
ENV_CHECKED_AT_READ = {"LATMC_MODULE_PATH", "LATMC_MODULE_SYSTEM_PATH", "LATMC_CPU_MASK",
                       "LATMC_CPU_PHI4_CHUNK", "LATMC_CUDA_HEISENBERG_TILE",
                       "LATMC_CUDA_PHI4_CHUNK", "LATMC_CUDA_PHI4_THREADS",
                       "LATMC_ENS_HEIS_GEOM"}
ENV_TABLES = ("lib/env_switches.c", "backends/cuda/cuda_env.c")


def check_environment(src):
    """The variables read (string literals "LATMC_..." in the sources that call getenv,
    less the API's own names) against doc/environment.md's rows and the switch tables."""
    api = set()
    for root, _, files in os.walk(os.path.join(src, "include")):
        for f in files:
            api |= set(re.findall(r"\bLATMC_\w+", open(os.path.join(root, f)).read()))
    read = set()
    for top in ("lib", "backends", "mpi"):
        for root, _, files in os.walk(os.path.join(src, top)):
            for f in files:
                if not f.endswith((".c", ".h", ".cu", ".cuh")):
                    continue
                text = open(os.path.join(root, f)).read()
                if re.search(r"getenv|_ENV\b", text) and os.path.join(root, f)[len(src) + 1:] not in ENV_TABLES:
                    read |= set(re.findall(r'"(LATMC_[A-Z0-9_]+)"', text)) - api
    doc_text = open(os.path.join(src, "doc/environment.md")).read()
    doc = set(re.findall(r"^\| `(LATMC_[A-Z0-9_]+)`", doc_text, re.M))
    tabled = set()
    for t in ENV_TABLES:
        tabled |= set(re.findall(r'\{ "(LATMC_[A-Z0-9_]+)",', open(os.path.join(src, t)).read()))
    # each switch's values (a table's list) named in its row, and each value the row
    # explains ("`value`: ...") in its table: a row's and a table's values that differ
    # would refuse a documented value or accept an undocumented one. A 0|1 switch's row
    # names the one that is not the default.
    bad_values = False
    rows = dict(re.findall(r"^\| `(LATMC_[A-Z0-9_]+)` \|[^|\n]*\|(.*)\|$", doc_text, re.M))
    for t in ENV_TABLES:
        for name, values in re.findall(r'\{ "(LATMC_[A-Z0-9_]+)", (NULL|"[^"]*") \}',
                                       open(os.path.join(src, t)).read()):
            if values == "NULL" or name not in rows:
                continue
            taken = values.strip('"').split("|")
            named = [v for v in taken if "`%s`" % v in rows[name]]
            explained = re.findall(r"`([A-Za-z0-9_]+)`:", rows[name])
            missing = [] if taken == ["0", "1"] and named else [v for v in taken if v not in named]
            extra = [v for v in explained if v not in taken]
            if missing or extra:
                fail("%s: %s takes %s; its row in doc/environment.md does not name %s, "
                     "explains %s not taken" % (name, t, "|".join(taken), missing, extra))
                bad_values = True
    if not bad_values:
        ok("doc/environment.md's rows name the values their switch tables take")
    if read != doc:
        fail("doc/environment.md's rows and the variables read differ: not documented %s, "
             "documented but not read %s" % (sorted(read - doc), sorted(doc - read)))
    else:
        ok("doc/environment.md has a row for each of the %d variables read" % len(read))
    unchecked = read - tabled - ENV_CHECKED_AT_READ
    stale = tabled - read
    if unchecked or stale:
        fail("switch tables: unchecked %s, in a table but not read %s" % (sorted(unchecked), sorted(stale)))
    else:
        ok("every variable read is in a switch table or checked where it is read")


def check_info_sample(src, latmc_info):
    guide = open(os.path.join(src, "doc/guide.md")).read()
    m = re.search(r"^```\n\$ latmc-info\n(.*?)^```", guide, re.S | re.M)
    if not m:
        fail("doc/guide.md: no sample '$ latmc-info' output")
        return
    real = subprocess.run([latmc_info], capture_output=True, text=True, timeout=60).stdout
    real_labels = {l.strip().split("  ")[0] for l in real.splitlines() if l.strip()}
    real_labels |= {re.sub(r" \d+$", " N", x) for x in real_labels}
    for line in m.group(1).splitlines()[1:]:
        if not line.strip() or line.strip() == "...":
            continue
        label = line.strip().split("  ")[0]
        if re.match(r"^(cpu|cuda) \d+$", label):
            label = re.sub(r" \d+$", " N", label)
            if label.startswith("cuda"):
                continue  # a device line: only where there is a GPU
        if label not in real_labels:
            fail("doc/guide.md's latmc-info sample shows '%s', the program prints no such line"
                 % label)
            return
    ok("doc/guide.md's latmc-info sample has the program's sections and labels")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("source")
    ap.add_argument("build")
    ap.add_argument("--prog", nargs=2, action="append", default=[])
    ap.add_argument("--example", nargs=2, action="append", default=[])
    a = ap.parse_args()
    progs = {k: os.path.abspath(v) for k, v in a.prog}
    examples = {k: os.path.abspath(v) for k, v in a.example}
    progs.update(examples)
    scratch = tempfile.mkdtemp()
    try:
        check_commands(a.source, a.build, progs, scratch)
        check_examples(examples)
        check_table(a.source, progs["latmc"], scratch)
        check_lists(a.source, a.build)
        check_environment(a.source)
        check_info_sample(a.source, progs["latmc-info"])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("%d check(s) failed" % len(failures) if failures else "all documentation checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
