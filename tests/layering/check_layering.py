#!/usr/bin/env python3
"""The layering rules of doc/architecture.md, checked on the sources (no compiler needed).

  (a) lib/ never includes a backend's header.
  (b) A backend never includes another backend's header.
  (c) The include graph of backends/cuda's own files has no cycle; no file of a leaf folder
      (each model's of lib/model_list.h, and clusters/) reaches exec/cuda_exec.h, cuda_backend.h
      or an ens_ header through its includes; no file of exec/ reaches a leaf folder's header,
      and none but the ensembles' batch driver (exec/cuda_batch.c, through whose accessors a
      model's batch reaches a member) reaches the module's sim, cuda_backend.h.
  (d) The call graph between backends/cuda's files has no cycle (so no two files call each
      other): file A calls file B when A's code names a function or variable that B defines;
      nor has the include-and-call graph (both kinds of edge together).
  (e) No file of backends/cuda/exec/ names a model (an LATMC_MODEL_ identifier in its code,
      comments and strings aside): the executor and the ensembles' batch driver
      (exec/cuda_batch.c) have no model branch, whatever differs by model is a member of
      the leaf table or of the model's batch table. Nor do the module's top, its embedded
      clusters and the ensembles' routing of the plan's calls branch on a model
      (CUDA_DISPATCH: cuda_backend.c, cuda_models.c, cuda_module.c, cuda_embed.c,
      cuda_embed_boxes.c, ensembles/ens_batch_steps.c): there an LATMC_MODEL_ identifier
      may only be a table row's key (the first member of a brace initialiser), never
      compared, a case label or a value.
  The CPU backend the same way: (c) and (d)'s cycles between backends/cpu's files; no file
  of a model's folder reaches cpu_exec.h (the executor's own header) or calls a function
  or variable of the executor's files (CPU_EXECUTOR): the executor calls the kernels
  through their table, which is no name, so the model's call back up is the one edge of
  such a circle the call graph sees; (e) for the executor's files.

Usage: check_layering.py SOURCE_ROOT   (exit 0: the rules hold; 1: a breach, listed)
       check_layering.py --self-test   (plants each breach in a scratch tree; exit 0 when
                                        every one is reported and a clean tree passes)

Includes are resolved the way the build resolves them: a quoted name first beside the
including file, then the include directories its target gets in meson.build (for
backends/cuda those named in backends/cuda/meson.build's include_directories(), and the
models' folders where that call adds latmc_model_tokens; for liblatmc backends/cpu and its
models' folders). liblatmc has backends/cpu on its path, so a bare name in lib/ would
build; (a) is what catches it.

What the textual call graph sees, and its limits:
- Definitions: top-level function bodies and initialised (or plain) file-scope variables,
  after comments, strings and preprocessor lines are removed; `static` ones (the word, or
  a macro of the file that expands to it, as the SIMD levels' `AI` primitives, which
  their template header calls) in a .c/.cu are seen only by their own file, those of a header only by the files that include it
  (transitively).
- References: the identifiers inside function bodies and variable initialisers (not after
  `.` or `->`), plus the bodies of the macros a file uses (its own and its headers'), so a
  leaf table built by a macro still names its functions.
- Not seen: calls through function pointers (the executor's calls into a leaf's table,
  which is the intended direction and never a name), names built by token pasting,
  definitions inside macros that expand to whole functions, and the code of both branches
  of an #if counts. A name defined visibly in several files links the caller to each.
"""
import os
import re
import sys
import tempfile

LEAF_STEP_DIRS = ('clusters',)  # leaf folders of a step kind; each model's is its name
# the one file of exec/ that reads the module's sim (cuda_backend.h): the ensembles' batch
# driver, whose accessors are how a model's batch reaches a member (rule (c))
BATCH_DRIVER = 'backends/cuda/exec/cuda_batch.c'
SOURCE_EXT = ('.c', '.h', '.cu', '.cuh')
HEADER_EXT = ('.h', '.cuh')
MODEL_NAME = re.compile(r'\bLATMC_MODEL_[A-Z0-9_]+')
CUDA = 'backends/cuda'
CPU = 'backends/cpu'
# the CPU executor (the ops, run_steps, the boxes, the kernel tables) and its own header
CPU_EXECUTOR = ('cpu_backend.c', 'cpu_boxes.c', 'cpu_models.c', 'cpu_module.c')
CPU_EXEC_H = 'cpu_exec.h'
# the CUDA module's top, its embedded clusters (what differs by model: the leaf's `embed`
# member) and the ensembles' routing of the plan's calls: no model branch, a model named
# only as a table row's key (rule (e)).
CUDA_DISPATCH = ('cuda_backend.c', 'cuda_models.c', 'cuda_module.c',
                 'cuda_embed.c', 'cuda_embed_boxes.c', 'ensembles/ens_batch_steps.c')
NOT_NAMES = {
    # keywords and attribute-like words that precede '(' without naming a function
    'if', 'for', 'while', 'switch', 'return', 'sizeof', 'defined', '__attribute__',
    '__launch_bounds__', '__align__', 'alignas', '_Alignas', 'decltype', 'static_assert',
    '_Static_assert', '__declspec', 'typeof', '__typeof__',
}


def source_files(root, sub):
    out = []
    for d, dirs, files in os.walk(os.path.join(root, sub)):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(SOURCE_EXT):
                out.append(os.path.relpath(os.path.join(d, f), root).replace(os.sep, '/'))
    return out


def read(root, rel):
    with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as f:
        return f.read()


COMMENT_OR_LITERAL = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def strip_comments(text):
    """Comments become spaces (newlines kept), string and char literals become "" and ''."""
    def sub(m):
        s = m.group(0)
        if s.startswith('/'):
            return re.sub(r'[^\n]', ' ', s)
        return s[0] * 2
    return COMMENT_OR_LITERAL.sub(sub, text)


INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)


def include_names(root, rel):
    # literals are kept for this: an include's name is one
    text = re.sub(r'//[^\n]*|/\*.*?\*/', lambda m: re.sub(r'[^\n]', ' ', m.group(0)),
                  read(root, rel), flags=re.S)
    return [(m.group(1) == '"', m.group(2).strip()) for m in INCLUDE.finditer(text)]


def resolve(root, rel, quoted, name, search):
    dirs = ([os.path.dirname(rel)] if quoted else []) + search
    for d in dirs:
        p = os.path.normpath(os.path.join(d, name)).replace(os.sep, '/')
        if not p.startswith('..') and os.path.isfile(os.path.join(root, p)):
            return p
    return None


def model_names(root):
    """The models of lib/model_list.h (its LATMC_MODEL(m) lines), as lib/meson.build reads
    them: the names of their backend folders."""
    try:
        text = read(root, 'lib/model_list.h')
    except OSError:
        return []
    return re.findall(r'^LATMC_MODEL\((\w+)\)', text, re.M)


def cuda_include_dirs(root):
    """backends/cuda's own include directories, as its meson.build names them: the quoted
    folders of its include_directories() calls, and every model's folder where a call
    adds latmc_model_tokens (the models of lib/model_list.h)."""
    try:
        text = re.sub(r'#[^\n]*', '', read(root, CUDA + '/meson.build'))
    except OSError:
        text = ''
    dirs = []
    for m in re.finditer(r'include_directories\(((?:[^()]|\([^()]*\))*)\)', text):
        names = re.findall(r'["\']([^"\']+)["\']', m.group(1))
        if 'latmc_model_tokens' in m.group(1):
            names += model_names(root)
        dirs += [os.path.normpath(CUDA + '/' + d).replace(os.sep, '/') for d in names]
    return dirs or [CUDA]


def search_path(root, rel):
    """The include directories of the target that compiles rel (meson.build)."""
    base = ['include', 'lib']
    if rel.startswith(CUDA + '/'):
        return base + cuda_include_dirs(root)
    # liblatmc: lib/ and backends/cpu (with its models' folders) share one target
    return base + ['backends/cpu'] + ['backends/cpu/' + m for m in model_names(root)]


def backend_of(rel):
    parts = rel.split('/')
    return parts[1] if len(parts) > 2 and parts[0] == 'backends' else None


def sccs(nodes, edges):
    """Tarjan's strongly connected components of more than one node (or a self edge)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        work = [(v, iter(sorted(edges.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            u, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[u] = min(low[u], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[u])
                if low[u] == index[u]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == u:
                            break
                    if len(comp) > 1 or u in edges.get(u, ()):
                        out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def closure(start, edges):
    """Every node reachable from start, with the node it was first reached from."""
    seen, todo = {start: None}, [start]
    while todo:
        v = todo.pop()
        for w in sorted(edges.get(v, ())):
            if w not in seen:
                seen[w] = v
                todo.append(w)
    return seen


def path_to(seen, node):
    p = [node]
    while seen[p[-1]] is not None:
        p.append(seen[p[-1]])
    return ' -> '.join(reversed(p))


# ---- the textual call graph ----

TOKEN = re.compile(r'[A-Za-z_]\w*|\d[\w.]*|->|::|""|\S')
IDENT = re.compile(r'[A-Za-z_]\w*$')


def split_directives(text):
    """(code without preprocessor lines, {macro: its body's identifiers})."""
    code, macros = [], {}
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith('#'):
            full = line
            while full.endswith('\\') and i + 1 < len(lines):
                i += 1
                full = full[:-1] + ' ' + lines[i]
                code.append('')
            m = re.match(r'\s*#\s*define\s+([A-Za-z_]\w*)(\([^)]*\))?(.*)', full)
            if m:
                params = set(re.findall(r'[A-Za-z_]\w*', m.group(2) or ''))
                body = [t for t in TOKEN.findall(m.group(3)) if IDENT.match(t)]
                macros[m.group(1)] = {t for t in body if t not in params}
            code.append('')
        else:
            code.append(line)
        i += 1
    return '\n'.join(code), macros


def references(tokens):
    """Identifiers of a body or initialiser, not member names."""
    out = set()
    for k, t in enumerate(tokens):
        if IDENT.match(t) and (k == 0 or tokens[k - 1] not in ('.', '->')):
            out.add(t)
    return out


def parse_file(text):
    """({name: is_static}, referenced identifiers, {macro: body identifiers})."""
    code, macros = split_directives(strip_comments(text))
    toks = TOKEN.findall(code)
    defs, refs = {}, set()
    items, cur, depth, braces = [], [], 0, []
    for t in toks:
        if t == '{':
            if depth == 0 and cur[-2:] == ['extern', '""']:
                del cur[-2:]
                braces.append(False)  # extern "C" { ... }: no scope of its own
                continue
            braces.append(True)
            depth += 1
            cur.append(t)
        elif t == '}':
            if braces and not braces[-1]:
                braces.pop()
                continue
            if braces:
                braces.pop()
            depth = max(depth - 1, 0)
            cur.append(t)
            if depth == 0 and '{' in cur and cur[cur.index('{') - 1:cur.index('{')] == [')'] \
                    and '=' not in cur[:cur.index('{')]:
                items.append(cur)  # a function definition ends at its body's brace
                cur = []
        elif t == ';' and depth == 0:
            items.append(cur)
            cur = []
        else:
            cur.append(t)
    # a macro whose body says `static` (`#define AI static inline ...`), or names such a
    # macro, makes what it heads static too
    static_words, grew = {'static'}, True
    while grew:
        more = {m for m, body in macros.items() if body & static_words} - static_words
        static_words |= more
        grew = bool(more)
    for item in items:
        if not item or item[0] == 'typedef':
            continue
        head_words = set(item[:item.index('{')] if '{' in item else item)
        static = bool(head_words & static_words)
        if '{' in item and item[item.index('{') - 1] == ')' and '=' not in item[:item.index('{')]:
            head, body = item[:item.index('{')], item[item.index('{'):]
            # the name: the identifier before the parameter list closing the head
            level, k = 0, len(head) - 1
            while k >= 0:
                level += head[k] == ')'
                level -= head[k] == '('
                if level == 0:
                    break
                k -= 1
            if k > 0 and IDENT.match(head[k - 1]) and head[k - 1] not in NOT_NAMES:
                defs[head[k - 1]] = static
            refs |= references(body)
            continue
        if item[0] in ('typedef', 'extern') or 'extern' in item:
            continue
        # file-scope variables: `T name = init;`, `T name[n];`
        level, eq = 0, None
        for k, t in enumerate(item):
            level += t in '([{'
            level -= t in ')]}'
            if t == '=' and level == 0:
                eq = k
                break
        head = item if eq is None else item[:eq]
        if eq is None and ('(' in head or len(head) < 2 or
                           (len(head) == 2 and head[0] in ('struct', 'union', 'enum'))):
            continue  # a prototype or a forward declaration
        if '{' in head:
            continue  # a struct, union or enum definition
        while head and head[-1] == ']':
            head = head[:head.index('[')] if '[' in head else []
        if head and IDENT.match(head[-1]):
            defs[head[-1]] = static
        if eq is not None:
            refs |= references(item[eq + 1:])
    return defs, refs, macros


def call_graph(root, files, include_edges):
    parsed = {f: parse_file(read(root, f)) for f in files}
    visible_headers = {f: set(closure(f, include_edges)) for f in files}
    providers = {}
    for f in files:
        for name, static in parsed[f][0].items():
            providers.setdefault(name, []).append((f, static))
    edges = {}
    for a in files:
        defs, refs, _ = parsed[a]
        # the macros the file sees: its own and its headers'
        macros = {}
        for h in visible_headers[a]:
            macros.update(parsed[h][2])
        macros.update(parsed[a][2])
        names, todo = set(refs), list(refs)
        while todo:
            n = todo.pop()
            for m in macros.get(n, ()):
                if m not in names:
                    names.add(m)
                    todo.append(m)
        for n in names:
            if n in defs:
                continue
            for b, static in providers.get(n, ()):
                if b == a:
                    continue
                if b.endswith(HEADER_EXT) and b not in visible_headers[a]:
                    continue
                if not b.endswith(HEADER_EXT) and static:
                    continue
                edges.setdefault(a, {}).setdefault(b, set()).add(n)
    return edges


# ---- the rules ----

def graphs(root, files, inc_edges):
    """The include graph between a backend's own files, and their call graph."""
    own = set(files)
    inc = {f: {t for t in inc_edges.get(f, ()) if t in own} for f in files}
    return inc, call_graph(root, files, inc)


def cycles(where, files, inc, calls):
    """(c) and (d) of a backend's files: no include cycle, no call cycle, none of both."""
    out = ['(c) include cycle in %s: %s' % (where, ', '.join(comp)) for comp in sccs(files, inc)]
    for comp in sccs(files, {a: set(b) for a, b in calls.items()}):
        inside = set(comp)
        lines = ['  %s -> %s (%s)' % (a, b, ', '.join(sorted(calls[a][b])[:4]))
                 for a in comp for b in sorted(calls.get(a, ())) if b in inside]
        out.append('(d) call cycle in %s (%d files):\n%s' % (where, len(comp), '\n'.join(lines)))
    # both kinds of edge together: a header whose inline code calls a file that includes it
    both = {f: set(inc.get(f, ())) | set(calls.get(f, ())) for f in files}
    out += ['(d) include-and-call cycle in %s: %s' % (where, ', '.join(comp))
            for comp in sccs(files, both)]
    return out


def model_branches(root, f, table):
    return ['(e) executor file %s names the model %s: a model branch belongs in the %s'
            % (f, m, table)
            for m in sorted(set(MODEL_NAME.findall(strip_comments(read(root, f)))))]


def dispatch_branches(root, f):
    """Rule (e) for CUDA_DISPATCH: each LATMC_MODEL_ identifier that is not a table row's
    key (the first thing after a '{', as in `{ LATMC_MODEL_ISING, ... }`)."""
    text = strip_comments(read(root, f))
    out = []
    for m in MODEL_NAME.finditer(text):
        before = text[:m.start()].rstrip()
        if not before.endswith('{'):
            line = text.count('\n', 0, m.start()) + 1
            out.append('(e) dispatch file %s branches on the model %s (line %d): a model\'s '
                       'difference belongs in a table row or the leaf table' % (f, m.group(0), line))
    return out


def check(root):
    breaches = []
    lib_files = source_files(root, 'lib')
    backend_files = source_files(root, 'backends')
    inc_edges = {}
    for rel in lib_files + backend_files:
        search = search_path(root, rel)
        for quoted, name in include_names(root, rel):
            target = resolve(root, rel, quoted, name, search)
            if target is None and 'backends/' in name:
                target = name
            if target is None:
                continue  # a system or generated header
            inc_edges.setdefault(rel, set()).add(target)
            if rel.startswith('lib/') and target.startswith('backends/'):
                breaches.append('(a) %s includes "%s" (%s): lib/ never includes a backend\'s '
                                'header' % (rel, name, target))
            src, dst = backend_of(rel), backend_of(target)
            if src and dst and src != dst:
                breaches.append('(b) %s includes "%s" (%s): backends never include each '
                                'other\'s headers' % (rel, name, target))

    cuda_files = [f for f in backend_files if f.startswith(CUDA + '/')]
    cuda_inc, cuda_calls = graphs(root, cuda_files, inc_edges)
    breaches += cycles(CUDA, cuda_files, cuda_inc, cuda_calls)
    leaf_prefixes = tuple('%s/%s/' % (CUDA, d) for d in model_names(root) + list(LEAF_STEP_DIRS))
    upper = {CUDA + '/exec/cuda_exec.h', CUDA + '/cuda_backend.h'}
    for f in cuda_files:
        reach = closure(f, cuda_inc)
        if f.startswith(leaf_prefixes):
            for t in sorted(reach):
                if t in upper or os.path.basename(t).startswith('ens_'):
                    breaches.append('(c) leaf file %s reaches %s: %s' % (f, t, path_to(reach, t)))
        if f.startswith(CUDA + '/exec/'):
            for t in sorted(reach):
                if t.startswith(leaf_prefixes):
                    breaches.append('(c) executor file %s reaches leaf header %s: %s'
                                    % (f, t, path_to(reach, t)))
            if f != BATCH_DRIVER and CUDA + '/cuda_backend.h' in reach:
                breaches.append("(c) executor file %s reaches the module's sim: %s"
                                % (f, path_to(reach, CUDA + '/cuda_backend.h')))
    for f in cuda_files:
        if f.startswith(CUDA + '/exec/'):
            breaches += model_branches(root, f, 'leaf table')
    dispatch = {CUDA + '/' + f for f in CUDA_DISPATCH}
    for f in cuda_files:
        if f in dispatch:
            breaches += dispatch_branches(root, f)

    # the CPU backend: its executor calls a model's kernels through their table (never a
    # name), so the call back up that would close the circle is the model's call
    cpu_files = [f for f in backend_files if f.startswith(CPU + '/')]
    cpu_inc, cpu_calls = graphs(root, cpu_files, inc_edges)
    breaches += cycles(CPU, cpu_files, cpu_inc, cpu_calls)
    model_prefixes = tuple('%s/%s/' % (CPU, m) for m in model_names(root))
    executor = {CPU + '/' + f for f in CPU_EXECUTOR}
    for f in cpu_files:
        if f.startswith(model_prefixes):
            reach = closure(f, cpu_inc)
            for t in sorted(reach):
                if t == CPU + '/' + CPU_EXEC_H:
                    breaches.append('(c) model file %s reaches %s: %s'
                                    % (f, t, path_to(reach, t)))
            for t in sorted(cpu_calls.get(f, ())):
                if t in executor:
                    breaches.append('(d) model file %s calls the executor file %s (%s): the '
                                    'executor calls the kernels, the kernels call only a '
                                    'layer below both' % (f, t, ', '.join(sorted(cpu_calls[f][t]))))
        if f in executor:
            breaches += model_branches(root, f, 'kernels\' table')
    return breaches, cuda_calls, cpu_calls


# ---- the self-test: every rule must be able to fail ----

CLEAN = {
    'include/latmc/latmc.h': '',
    'lib/model.h': '#include "latmc/latmc.h"\nint model_f(void);\n',
    'lib/model.c': '#include "model.h"\nint model_f(void) { return 1; }\n',
    'backends/cpu/cpu_backend.h': '#include "model.h"\nint cpu_f(void);\nint shared_f(void);\n',
    'backends/cpu/cpu_exec.h': '#include "cpu_backend.h"\nint boxes_f(void);\n',
    'backends/cpu/cpu_backend.c': '#include "cpu_exec.h"\n'
                                  'int cpu_f(void) { return model_f() + boxes_f(); }\n',
    'backends/cpu/cpu_boxes.c': '#include "cpu_exec.h"\n'
                                'int boxes_f(void) { return shared_f(); }\n',
    'backends/cpu/cpu_shared.c': '#include "cpu_exec.h"\nint shared_f(void) { return 0; }\n',
    'backends/cpu/potts/potts_kernels.c': '#include "cpu_backend.h"\n'
                                          'int potts_f(void) { return shared_f(); }\n',
    # a template over its includer's primitives, static through a macro of a macro
    'backends/cpu/potts/potts_tmpl.h': 'static int run_all(void) { return prim(); }\n',
    'backends/cpu/potts/potts_avx2.c': '#define AI static inline\n#define PI AI\n'
                                       'PI int prim(void) { return 1; }\n'
                                       '#include "potts_tmpl.h"\n'
                                       'int avx2_f(void) { return run_all(); }\n',
    'lib/model_list.h': '/* LATMC_MODEL(none) in a comment */\nLATMC_MODEL(potts)\n',
    'backends/cuda/meson.build': "x = include_directories(['.', 'exec'] + latmc_model_tokens)\n",
    'backends/cuda/cuda_backend.h': 'int top_f(void);\n',
    'backends/cuda/cuda_backend.c': '#include "cuda_backend.h"\n#include "cuda_exec.h"\n'
                                    'int top_f(void) { return exec_f(); }\n',
    'backends/cuda/exec/cuda_exec.h': '#include "cuda_leaf.h"\nint exec_f(void);\n',
    'backends/cuda/exec/cuda_exec.c': '#include "cuda_exec.h"\n'
                                      'int exec_f(void) { return the_leaf.update(); }\n',
    'backends/cuda/exec/cuda_leaf.h': 'struct leaf { int (*update)(void); };\n'
                                      'extern const struct leaf the_leaf;\n'
                                      'int storage_f(void);\n',
    'backends/cuda/exec/storage.c': '#include "cuda_leaf.h"\nint storage_f(void) { return 0; }\n',
    # the batch driver may read the module's sim (rule (c)'s one exception)
    'backends/cuda/exec/cuda_batch.c': '#include "cuda_backend.h"\n'
                                       'int batch_f(void) { return 0; }\n',
    # the ensembles' batch table: a model as a row's key is no branch
    'backends/cuda/ensembles/ens_batch_steps.c': 'struct row { int model; int (*f)(void); };\n'
                                                 'static int g(void) { return 0; }\n'
                                                 'static const struct row rows[] = {\n'
                                                 '    { LATMC_MODEL_POTTS, g },\n};\n'
                                                 'int steps_f(int m) '
                                                 '{ return rows[0].model == m; }\n',
    'backends/cuda/potts/cuda_potts.h': '#include "cuda_leaf.h"\n',
    'backends/cuda/potts/cuda_potts.c': '#include "cuda_potts.h"\n'
                                        '/* exec_f( in a comment is no call */\n'
                                        'static int up(void) { return storage_f(); }\n'
                                        '#define LEAF(f) { .update = f }\n'
                                        'const struct leaf the_leaf = LEAF(up);\n',
}

LEAF_H = CLEAN['backends/cuda/exec/cuda_leaf.h']
POTTS_C = CLEAN['backends/cuda/potts/cuda_potts.c']
CLEAN_STEPS = CLEAN['backends/cuda/ensembles/ens_batch_steps.c']
PLANTED = [
    # lib/ reaching a CPU header by its bare name (liblatmc has backends/cpu on its path)
    ('(a)', {'lib/model.c': '#include "cpu_backend.h"\n#include "model.h"\n'
                            'int model_f(void) { return 1; }\n'}),
    # the CUDA module reaching the CPU backend by a relative path
    ('(b)', {'backends/cuda/exec/storage.c': '#include "cuda_leaf.h"\n'
                                             '#include "../../cpu/cpu_backend.h"\n'
                                             'int storage_f(void) { return 0; }\n'}),
    ('(c) include cycle', {'backends/cuda/exec/cuda_leaf.h': '#include "cuda_exec.h"\n' + LEAF_H}),
    ('(c) leaf file', {'backends/cuda/potts/cuda_potts.h': '#include "cuda_backend.h"\n'}),
    # an executor file other than the batch driver reading the module's sim
    ("(c) executor file backends/cuda/exec/storage.c reaches the module's sim",
     {'backends/cuda/exec/storage.c': '#include "cuda_leaf.h"\n#include "cuda_backend.h"\n'
                                      'int storage_f(void) { return 0; }\n'}),
    ('(c) executor file', {'backends/cuda/exec/cuda_exec.c':
                           '#include "../potts/cuda_potts.h"\n#include "cuda_exec.h"\n'
                           'int exec_f(void) { return the_leaf.update(); }\n'}),
    # the same by its bare name, found in the model's folder (latmc_model_tokens)
    ('(c) executor file', {'backends/cuda/exec/cuda_exec.c':
                           '#include "cuda_potts.h"\n#include "cuda_exec.h"\n'
                           'int exec_f(void) { return the_leaf.update(); }\n'}),
    # a model branch in the executor (the name in a comment or string is no breach)
    ('(e) executor file', {'backends/cuda/exec/storage.c':
                           '#include "cuda_leaf.h"\n/* LATMC_MODEL_ISING */\n'
                           'int storage_f(int m) { return m == LATMC_MODEL_POTTS; }\n'}),
    # a model branch in the module's top, and in the batch table's file beside its rows
    ('(e) dispatch file backends/cuda/cuda_backend.c',
     {'backends/cuda/cuda_backend.c': '#include "cuda_backend.h"\n#include "cuda_exec.h"\n'
                                      'int top_f(void) { return exec_f(); }\n'
                                      'const char *env(int m) { return m == LATMC_MODEL_POTTS'
                                      ' ? "LATMC_ENS_POTTS_BATCH" : 0; }\n'}),
    # the embedded clusters telling one model from another instead of asking the leaf
    ('(e) dispatch file backends/cuda/cuda_embed_boxes.c',
     {'backends/cuda/cuda_embed_boxes.c': '#include "cuda_leaf.h"\n'
                                          '/* LATMC_MODEL_HEISENBERG in a comment */\n'
                                          'int reps(int m, int r) '
                                          '{ return m == LATMC_MODEL_PHI4 ? 1 : r; }\n'}),
    ('(e) dispatch file backends/cuda/ensembles/ens_batch_steps.c',
     {'backends/cuda/ensembles/ens_batch_steps.c':
      CLEAN_STEPS.replace('return rows[0].model == m;',
                          'if (m == LATMC_MODEL_POTTS) return 1; return rows[0].model == m;')}),
    # a header's inline code calling the file that includes it (no call cycle alone)
    ('(d) include-and-call', {'backends/cuda/exec/cuda_leaf.h':
                              LEAF_H + 'int exec_f(void);\n'
                              'static inline int h(void) { return exec_f(); }\n'}),
    # the layer below calling the executor back
    ('(d) call cycle', {'backends/cuda/exec/storage.c':
                        '#include "cuda_leaf.h"\nint exec_f(void);\n'
                        'int storage_f(void) { return exec_f(); }\n'}),
    # a leaf calling the top (through the leaf table's initialiser, macro and all)
    ('(d) call cycle', {'backends/cuda/potts/cuda_potts.c':
                        POTTS_C.replace('return storage_f();', 'return storage_f() + top_f();')}),
    # a definition inside extern "C" { }, a call hidden in a header's macro
    ('(d) call cycle', {'backends/cuda/exec/cuda_exec.c':
                        '#include "cuda_exec.h"\n'
                        'extern "C" {\nint exec_f(void) { return the_leaf.update(); }\n}\n',
                        'backends/cuda/cuda_backend.h': 'int top_f(void);\n'
                        '#define AGAIN() top_g()\n',
                        'backends/cuda/cuda_backend.c':
                        '#include "cuda_backend.h"\n#include "cuda_exec.h"\n'
                        'int top_f(void) { return exec_f(); }\n'
                        'int top_g(void) { return 0; }\n',
                        'backends/cuda/exec/storage.c':
                        '#include "cuda_leaf.h"\n#include "cuda_backend.h"\n'
                        'int storage_f(void) { return AGAIN(); }\n'}),
    # the CPU backend: a model's kernels calling the executor back (cpu_pair_steps in
    # cpu_backend.c, called by Ising's kernels, which it calls through their table)
    ('(d) model file backends/cpu/potts/potts_kernels.c calls the executor file '
     'backends/cpu/cpu_backend.c', {'backends/cpu/potts/potts_kernels.c':
                                    '#include "cpu_backend.h"\n'
                                    'int potts_f(void) { return cpu_f(); }\n'}),
    ('(c) model file backends/cpu/potts/potts_kernels.c reaches backends/cpu/cpu_exec.h',
     {'backends/cpu/potts/potts_kernels.c': '#include "cpu_exec.h"\n'
                                            'int potts_f(void) { return shared_f(); }\n'}),
    # the boxes calling the backend that calls them
    ('(d) call cycle in backends/cpu', {'backends/cpu/cpu_boxes.c':
                                        '#include "cpu_exec.h"\n'
                                        'int boxes_f(void) { return cpu_f(); }\n'}),
    ('(c) include cycle in backends/cpu', {'backends/cpu/cpu_backend.h':
                                           '#include "cpu_exec.h"\n' +
                                           CLEAN['backends/cpu/cpu_backend.h']}),
    # the template's primitive not static: the header calls the file that includes it
    ('(d) include-and-call cycle in backends/cpu', {'backends/cpu/potts/potts_avx2.c':
                                                    'int prim(void) { return 1; }\n'
                                                    '#include "potts_tmpl.h"\n'
                                                    'int avx2_f(void) { return run_all(); }\n'}),
    ('(e) executor file backends/cpu/cpu_boxes.c', {'backends/cpu/cpu_boxes.c':
                                                   '#include "cpu_exec.h"\n'
                                                   'int boxes_f(int m) '
                                                   '{ return m == LATMC_MODEL_POTTS; }\n'}),
]


def write_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)


def self_test():
    failures = []
    with tempfile.TemporaryDirectory(prefix='latmc-layering-') as d:
        write_tree(os.path.join(d, 'clean'), CLEAN)
        found = check(os.path.join(d, 'clean'))[0]
        if found:
            failures.append('the clean tree is refused:\n  ' + '\n  '.join(found))
        for n, (rule, change) in enumerate(PLANTED):
            root = os.path.join(d, 'planted%d' % n)
            write_tree(root, dict(CLEAN, **change))
            found = check(root)[0]
            if not any(b.startswith(rule) for b in found):
                failures.append('planted breach %d of %s not reported (got: %s)'
                                % (n, rule, found))
    return failures


def main(argv):
    if argv[1:] == ['--self-test']:
        failures = self_test()
        for f in failures:
            print('self-test: ' + f)
        print('self-test: %d planted breaches, %s' % (len(PLANTED),
              'all reported' if not failures else '%d problems' % len(failures)))
        return 1 if failures else 0
    if len(argv) != 2 and not (len(argv) == 3 and argv[2] == '--calls'):
        print(__doc__)
        return 2
    root = argv[1]
    breaches, cuda_calls, cpu_calls = check(root)
    if len(argv) == 3:
        for calls in (cuda_calls, cpu_calls):
            for a in sorted(calls):
                for b in sorted(calls[a]):
                    print('%s -> %s: %s' % (a, b, ', '.join(sorted(calls[a][b]))))
    for b in breaches:
        print(b)
    print('layering: %d breach(es); call graphs: backends/cuda %d files calling, %d edges; '
          'backends/cpu %d files calling, %d edges'
          % (len(breaches), len(cuda_calls), sum(len(v) for v in cuda_calls.values()),
             len(cpu_calls), sum(len(v) for v in cpu_calls.values())))
    return 1 if breaches else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
