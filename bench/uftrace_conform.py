#!/usr/bin/env python3
"""uftrace's scenario tests as a yardstick for calltrace's filters.

  bench/uftrace_conform.py [--src DIR] [--build DIR] [--no-uftrace]
                           [--patchable] [-v] [TEST...]

Reads uftrace's own tests (DIR/tests/t*.py and their s-*.c programs, from
a checkout of github.com/namhyung/uftrace; they are not part of calltrace
and are only read here, never copied).  For each test that shows a call
tree (`live`, `record` or `replay` output) of one program built from one
source, it maps the test's uftrace options to calltrace's settings
(mapping() below), runs the program under libcalltrace.so, and compares
calltrace-report --tree with the tree the test expects, call by call and
thread by thread, durations aside.  With uftrace installed it runs the
same test with uftrace itself, compared the same way, so the two counts
are measured alike.  A test whose options have no calltrace setting counts
as a difference ("unmapped").  Prints one line per test and the totals.

Library calls are compared by name (calltrace's `malloc@plt` is uftrace's
`malloc`), and a plain name in a uftrace pattern names both (alike()).
uftrace's fixed list of library calls it never records is left out of C++
tests (UFTRACE_SKIPS), and a forked child's trace is read once it is done
(wait_for_traces).  Filters that uftrace applies at replay are applied at record
time here: the tree is the same where the filtered calls were recorded.

With --patchable every program is built with patchable entries
(`calltrace cflags --patchable`) instead of -finstrument-functions and
-pg, and uftrace records it with `-P .`, as its own runner does for its
-P tests: the same trees, from the other mode of both tracers.

Arguments and return values (-A, -R, -a/--auto-args) map to
CALLTRACE_ARGS (arg_rule()), and such a test's trees are compared with
the values' text (arg_trees(): long addresses read 0xADDR on both sides,
as uftrace's runner makes them).  uftrace's tests of them skip
-finstrument-functions builds (its cygprof mode keeps no values), so
they are run with --patchable, where calltrace keeps the values of the
program's own functions.  --hooks-args runs them (and only them) on
-finstrument-functions builds with debug information for calltrace,
through calltrace record, which reads where each parameter is at the
enter hook's call; uftrace's side is its -pg build, as its runner has it.
"""
import argparse
import ast
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'tests', 'e2e'))
import views_check  # noqa: E402

CFLAGS = ['-fno-inline', '-fno-builtin', '-fno-ipa-cp',
          '-fno-omit-frame-pointer', '-D_FORTIFY_SOURCE=0', '-O0', '-g']
# Options that change nothing in the tree of a simple program.
IGNORED = {'--force', '--no-pager', '--no-event', '--no-comment',
           '--no-merge', '--keep-pid'}
# uftrace's trigger actions and calltrace's names for them.
ACTIONS = {'trace_on', 'trace-on', 'trace_off', 'trace-off', 'notrace',
           'caller', 'trace', 'finish', 'backtrace', 'filter'}


# Library calls uftrace never records, whatever its options (its
# plthook's fixed skip list): the C++ runtime's throw, catch and unwinding
# calls and the start and end of the process.  calltrace records them (a
# throw's unwinding is time the program spends); in a C++ test they are
# left out as by uftrace's -H, the calls they make still recorded.
UFTRACE_SKIPS = ['__cxa_throw', '__cxa_rethrow', '__cxa_begin_catch',
                 '__cxa_end_catch', '__cxa_finalize', '__gxx_personality_v0',
                 '_Unwind_Resume', '__libc_start_main']

# mapping()'s key for options of calltrace-report rather than the tracer
REPORT_ARGS = ' report'
# options that keep arguments or return values
ARG_OPTIONS = re.compile(r'(^|\s)(-A|-R|-a\b|--argument|--retval|'
                         r'--auto-args)')
# a build() of a test that only skips cygprof builds (and may want libm
# or DWARF, which every build here has)
BUILD_SKIPS = [
    r"if not ['\"]dwarf['\"] in self\.feature:\s*return TestBase\.TEST_SKIP",
    r"if cflags\.find\('-finstrument-functions'\) >= 0:\s*"
    r"return TestBase\.TEST_SKIP",
    r'ldflags \+= " -lm"',
    r"return TestBase\.build\(self, name, cflags, ldflags\)",
]


class Unmapped(Exception):
    pass


def read_test(path):
    """name, lang, expected tree, subcmd, option, exearg of a test, or a
    reason it is not a tree of one simple program."""
    text = open(path, encoding='utf-8').read()
    m = re.search(r"TestBase\.__init__\(\s*self,\s*'([^']+)'", text)
    if not m:
        return None, 'no program'
    name = m.group(1)
    lang = 'C++' if re.search(r"lang\s*=\s*['\"]C\+\+['\"]", text) else 'C'
    r = re.search(r'"""\n?(.*?)"""', text, re.S)
    if not r:
        return None, 'no expected output'
    cygprof_skip, ldflags = False, []
    b = re.search(r'    def build\(self.*?\n((?:        .*\n|\s*\n)*)', text)
    if b:
        body = re.sub(r'\s*#.*', '', b.group(1))
        cygprof_skip = '-finstrument-functions' in body
        ldflags = ['-lm'] if '-lm' in body else []
        for k in BUILD_SKIPS:
            body = re.sub(k, '', body)
        if body.strip():
            return None, 'build() of its own'
        text = text[:b.start()] + text[b.end():]
    # a sort() that only reads every hex number as 0xADDR (the tests of
    # arguments with pointers): arg_trees() does the same for them
    addr_sort = False
    srt = re.search(r'    def sort\(self, output\):\n((?:        .*\n|\s*\n)*)',
                    text)
    if srt and "re.sub(r'0x[0-9a-f]+', '0xADDR', line)" in srt.group(1) and \
            srt.group(1).count('re.sub') == 1 and 'sorted' not in srt.group(1):
        addr_sort = True
        text = text[:srt.start()] + text[srt.end():]
    for custom in ('def build', 'def runcmd', 'def prerun', 'def fixup',
                   'def sort'):
        if custom in text:
            return None, custom[4:] + '() of its own'
    # cflags='-g' asks for debug information, which a test of arguments
    # builds without otherwise (build())
    debug = bool(re.search(r"cflags\s*=\s*'-g'", text))
    if 'ldflags=' in text or re.search(r"cflags\s*=\s*'(?!-g')", text):
        return None, 'flags of its own'
    subcmd, option, exearg = 'live', '', 't-' + name
    setup = re.search(r'def setup\(self\):\n((?:\s{8}.*\n?|\s*\n)*)', text)
    if setup:
        skipping = False
        for line in setup.group(1).splitlines():
            # what a 32-bit machine needs instead: not this one's
            if re.match(r'\s{8}if TestBase\.is_32bit\(self\):', line):
                skipping = True
                continue
            if skipping and (not line.strip() or line.startswith(' ' * 12)):
                continue
            skipping = False
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            a = re.match(r"self\.(option|subcmd|exearg)\s*(\+?=)\s*(.*)$",
                         line)
            if not a:
                return None, 'setup() does more than set options'
            try:
                val = ast.literal_eval(a.group(3))
            except (ValueError, SyntaxError):
                if a.group(1) == 'exearg':
                    val = a.group(3).replace("'t-' + self.name", repr(
                        't-' + name))
                    try:
                        val = ast.literal_eval(val)
                    except (ValueError, SyntaxError):
                        return None, 'computed arguments'
                else:
                    return None, 'computed options'
            if a.group(1) == 'option':
                # a string, as in the test: += joins without a space
                option = option + val if a.group(2) == '+=' else val
            elif a.group(1) == 'subcmd':
                subcmd = val
            else:
                exearg = exearg + val if a.group(2) == '+=' else val
    if subcmd not in ('live', 'record', 'replay'):
        return None, 'not a tree (%s)' % subcmd
    if 'def prepare' in text:
        # record, then replay with the options: the options at record here
        pre = re.search(r"def prepare\(self\):\n((?:\s{8}.*\n?)*)", text)
        body = pre.group(1) if pre else ''
        if 'self.option' in body or 'self.exearg' in body:
            return None, 'prepare() with options of its own'
    result = r.group(1)
    try:
        # the test's own string, its escapes read ('\\0' is \0)
        result = ast.literal_eval('"""' + result + '"""')
    except (ValueError, SyntaxError):
        pass
    return dict(name=name, lang=lang, result=result, subcmd=subcmd,
                option=option, exearg=exearg,
                cygprof_skip=cygprof_skip, ldflags=ldflags,
                debug=debug, addr_sort=addr_sort), None


def pattern(p):
    """uftrace's patterns are regular expressions matched anywhere in the
    name, and plain names when they have no special character."""
    return 're:' + p if re.search(r'[][*.^$+?()|\\{}]', p) else p


def alike(p):
    """calltrace's patterns for uftrace's pattern p.  A plain name in
    uftrace names the program's function and a library call of that name
    alike; calltrace names a library call with its mark (`malloc@plt`),
    so a plain name gives both rules.  A regular expression matches
    `malloc@plt` as it matches `malloc`."""
    q = pattern(p)
    return [q] if q.startswith('re:') or '@' in q else [q, q + '@plt']


# arg_rule()'s mark of `-R FUNC`: the return value by its type
TYPED_RET = '@<typed retval>'
# uftrace's formats and calltrace's (the width of an fparg is f32, f64)
ARG_ITEM = re.compile(r'^(arg|fparg)(\d+)(?:/(\w+))?(%stack\+?\d+)?$|'
                      r'^retval(?:/(\w+))?$')


def arg_format(fmt, fp):
    if fmt is None:
        return ''
    if fp and fmt in ('32', '64'):
        return '/f' + fmt
    if re.fullmatch(r'[iudxo](8|16|32|64)?|[scpf]|f(32|64)|s\d+', fmt):
        return '/' + fmt
    raise Unmapped('the argument format /' + fmt)


def arg_rule(spec, key):
    """calltrace's CALLTRACE_ARGS rule for one -A or -R SPEC.  A pattern
    alone is the parameters (-A) or the return value (-R) by their types
    in the debug information: FUNC@args."""
    if '@' not in spec:
        return pattern(spec) + ('@args' if key in ('-A', '--argument')
                                else TYPED_RET)
    fn, items = spec.split('@', 1)
    out, plt = [], False
    for it in items.split(','):
        m = ARG_ITEM.match(it)
        if it in ('plt', 'PLT'):
            plt = True  # library calls only: calltrace's name@plt@
        elif not m:
            raise Unmapped('-A item ' + it)
        elif m.group(1):
            out.append(m.group(1) + m.group(2) +
                       arg_format(m.group(3), m.group(1) == 'fparg') +
                       (m.group(4) or ''))
        else:
            out.append('retval' + arg_format(m.group(5), False))
    if not out:
        raise Unmapped('-A %s: nothing to keep' % spec)
    return pattern(fn) + ('@plt@' if plt else '@') + ','.join(out)


def mapping(option):
    """CALLTRACE_* settings for uftrace's options; Unmapped if one has no
    counterpart."""
    args = shlex.split(option)
    inc, env, items, trig, argrules = [], {}, [], [], []
    depth = None
    disable = False
    i = 0

    def value():
        nonlocal i
        a = args[i]
        if '=' in a and a.startswith('--'):
            return a.split('=', 1)[1]
        if len(a) > 2 and not a.startswith('--'):
            return a[2:]
        i += 1
        if i >= len(args):
            raise Unmapped(a + ' without a value')
        return args[i]

    while i < len(args):
        a = args[i]
        key = a.split('=', 1)[0] if a.startswith('--') else a[:2]
        if a in IGNORED:
            pass
        elif key in ('-F', '--filter'):
            v = value()
            if '@' in v and v.rsplit('@', 1)[1] != 'plt':
                # -F F@depth=1: an include with its trigger
                args[i:i + 1] = ['-T', v]
                inc.append(v.rsplit('@', 1)[0])
                continue
            inc.append(v)
        elif key in ('-N', '--notrace'):
            items += [q + ':notrace' for q in alike(value())]
        elif key in ('-C', '--caller-filter'):
            items += [q + ':caller' for q in alike(value())]
        elif key in ('-H', '--hide'):
            items += ['-' + q for q in alike(value())]
        elif key in ('-D', '--depth'):
            depth = value()
        elif key in ('-Z', '--size-filter'):
            # functions smaller than SIZE bytes left out, as by -H
            items.append('size=' + value())
        elif key in ('-t', '--time-filter'):
            env['CALLTRACE_MIN_DURATION'] = value()
        elif key in ('-T', '--trigger'):
            spec = value()
            if '@' not in spec:
                raise Unmapped('-T ' + spec)
            fn, acts = spec.rsplit('@', 1)
            if acts == 'hide':
                items += ['-' + q for q in alike(fn)]
                i += 1
                continue
            if re.fullmatch(r'size=\d+', acts):
                # left out when smaller than that, as -Z for these alone
                items += [q + ':' + acts for q in alike(fn)]
                i += 1
                continue
            # uftrace takes trace_on, trace-on and traceon alike
            acts = re.sub(r'trace[-_]?(on|off)', r'trace_\1', acts)
            for act in acts.split(','):
                base = act.split('=', 1)[0]
                if act not in ACTIONS and base not in ('depth', 'time'):
                    raise Unmapped('trigger action ' + act)
            trig += [(q, acts.split(',')) for q in alike(fn)]
        elif a in ('--disable', '--trace=off'):
            disable = True
        elif a == '--trace=on':
            pass
        elif a == '--no-libcall':
            env['CALLTRACE_LIBCALLS'] = 'none'
        elif key == '--max-stack':
            # uftrace records at most that many nested frames; calltrace's
            # depth limit records the same calls
            env['CALLTRACE_DEPTH'] = value()
        elif key == '--demangle':
            # a setting of the report, not of the recording
            env[REPORT_ARGS] = '--demangle=' + value()
        elif key == '--signal':
            sig = value()
            env['CALLTRACE_SIGNAL'] = sig
        elif key in ('-A', '--argument', '-R', '--retval'):
            argrules.append(arg_rule(value(), key))
        elif a in ('-a', '--auto-args'):
            argrules.append('auto')
        else:
            raise Unmapped(a)
        i += 1
    for fn, acts in trig:
        # with --disable, trace_on is calltrace's ":on" (it starts off)
        acts = [('on' if disable and x in ('trace_on', 'trace-on') else
                 'off' if disable and x in ('trace_off', 'trace-off') else x)
                for x in acts]
        item = fn + ':' + ':'.join(acts)
        if any(x in ('on', 'off', 'trace_on', 'trace-on', 'trace_off',
                     'trace-off') for x in acts):
            env['CALLTRACE_TRIGGER'] = ','.join(
                filter(None, [env.get('CALLTRACE_TRIGGER'), item]))
        else:
            items.append(item)
    if disable and not any(':on' in v for v in
                           [env.get('CALLTRACE_TRIGGER', '')]):
        env['CALLTRACE_START_PAUSED'] = '1'
    if depth is not None:
        if inc:
            # uftrace counts -D from each -F match
            items += [pattern(p) + ':depth=' + depth for p in inc]
        else:
            env['CALLTRACE_DEPTH'] = depth
    flt = [pattern(p) for p in inc] + items
    if flt:
        env['CALLTRACE_FILTER'] = ','.join(flt)
    if argrules:
        # -A F and -R F together: F's parameters and return value by
        # their types (F@args,retval); -R F alone is F@args,retval
        # without the parameters, which calltrace has no spelling for
        typed = [r[:-len('@args')] for r in argrules if r.endswith('@args')]
        for r in argrules:
            if r.endswith(TYPED_RET) and r[:-len(TYPED_RET)] not in typed:
                raise Unmapped('-R %s: a return value by its type alone'
                               % r[:-len(TYPED_RET)])
        argrules = [r + ',retval' if r.endswith('@args') and
                    r[:-len('@args')] + TYPED_RET in argrules else r
                    for r in argrules if not r.endswith(TYPED_RET)]
        env['CALLTRACE_ARGS'] = ';'.join(argrules)
    return env


def fold_contexts(text):
    """calltrace shows a coroutine's frames on its own stack, a lane
    `[tid:N]`; uftrace, on one stack, nests them under the switch that ran
    them.  Each lane line is put on its thread's stack one level below the
    thread's last line (the switch), as uftrace shows it."""
    last = {}
    out = []
    for line in text.split('\n'):
        m = re.match(r'^(.*\[ *)(\d+)(:\d+)?(\] \| )( *)(.*)$', line)
        if not m:
            out.append(line)
            continue
        tid, lane, indent = m.group(2), m.group(3), len(m.group(5))
        if not lane:
            last[tid] = indent // 2
            out.append(line)
            continue
        base = last.get(tid, -1) + 1
        out.append(m.group(1) + tid + m.group(4) + '  ' * base +
                   m.group(5) + m.group(6))
    return '\n'.join(out)


def trees(path, need_main=True):
    """One line per thread: its calls, library calls by their bare name."""
    per = {}
    names = {}
    before_main = need_main
    # uftrace closes a frame with a bare "}" where its name is unknown
    text = open(path, encoding='utf-8', errors='replace').read()
    text = fold_contexts(text)
    with open(path, 'w') as f:
        f.write(re.sub(r'\| ( *)\}$', r'| \1} /* ? */', text, flags=re.M))
    try:
        lines = views_check.tree_lines(path)
    except SystemExit as e:
        return ['unreadable: %s' % e]
    for tid, depth, kind, name, _, _ in lines:
        # a forked child's frames open at the fork are its parent's
        if kind not in ('call', 'leaf', 'open') or (
                kind == 'open' and not need_main):
            continue
        name = re.sub(r'@(plt|got|dlsym)(?=\(|$)', '', name)
        name = re.sub(r'\(.*\)( const)?$', '', views_check.bare(name))
        # uftrace prints a template's name without its arguments
        while re.search(r'<[^<>]*>', name):
            name = re.sub(r'<[^<>]*>', '', name)
        # as uftrace's runtest.py: what comes before main is the start-up
        # code's (gcrt1's __monstartup and __cxa_atexit under -pg)
        before_main = before_main and name != 'main'
        if before_main:
            continue
        th = names.setdefault(tid, len(names))
        per.setdefault(th, []).append('%d %s;' % (depth, name))
    return sorted(''.join(v) for v in per.values())


def split_call(text):
    """A tree line's name, and the rest from its values' parenthesis (the
    first one outside template brackets)."""
    depth = 0
    for i, c in enumerate(text):
        depth += (c == '<') - (c == '>')
        if c == '(' and depth == 0:
            return text[:i], text[i:]
    return text, ''


def arg_trees(path, need_main=True, all_hex=False):
    """As trees(), a line per call with its arguments and return value as
    shown ('2 int_add(-1, 2) = 1;'), library calls by their bare name;
    all_hex: every hex number read as 0xADDR (the test's sort())."""
    per, names = {}, {}
    before_main = need_main
    for line in open(path, encoding='utf-8', errors='replace'):
        m = re.match(r'^.*\[ *(\d+)(?::\d+)?\] \| (.*)$', line.rstrip('\n'))
        if not m:
            continue
        body = m.group(2)
        text = re.sub(r' \[tracer [^]]*\]$', '', body.strip())
        text = re.sub(r'@(plt|got|dlsym)(?=[( ]| \*/)', '', text)
        # C++ names as uftrace prints them: no template arguments, return
        # type or parameter list (the values are left as they are)
        c = re.match(r'^(\} .*/\* )(.*)( \*/)$', text)
        head, name, tail = (c.groups() if c else
                            ('',) + split_call(text))
        while re.search(r'<[^<>()]*>', name):
            name = re.sub(r'<[^<>()]*>', '', name)
        name = re.sub(r'^[\w:]+ (?=[\w:~]+(\(|$))', '', name)
        if c:
            name = re.sub(r'\(.*\)( const)?$', '', name)
        text = head + name + tail
        text = re.sub(r'0x[0-9a-f]+' if all_hex else r'0x[0-9a-fA-F]{6,}',
                      '0xADDR', text)
        before_main = before_main and not text.startswith('main(')
        if before_main:
            continue
        th = names.setdefault(m.group(1), len(names))
        depth = (len(body) - len(body.lstrip(' '))) // 2
        per.setdefault(th, []).append('%d %s' % (depth, text))
    return sorted(' '.join(v) for v in per.values())


def build(src, out, flag, lang, ldflags=(), debug=True):
    """Built as uftrace's runner builds; a test of arguments without debug
    information unless it asks for it (its -a reads DWARF where there is
    some, and its expected trees are of builds without)."""
    cc = 'g++' if lang == 'C++' else 'gcc'
    flags = CFLAGS if debug else [f for f in CFLAGS if f != '-g']
    cmd = [cc, '-o', out, flag] + flags + [src, '-lpthread', '-ldl'] + list(
        ldflags)
    return subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def run_bounded(argv, **kw):
    """Runs argv for at most 60 s, then kills its whole process group: a
    tracer's child left behind once wrote 73 GB of trace (uftrace -P on
    t289) after the test had timed out."""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True,
                         **kw)
    try:
        return p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise


def traces_in_use(work):
    """Whether a process still has a trace of work open or mapped."""
    prefix = os.path.join(work, 'ct.raw')
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open('/proc/%s/maps' % pid) as f:
                if prefix in f.read():
                    return True
            for fd in os.listdir('/proc/%s/fd' % pid):
                if os.readlink('/proc/%s/fd/%s' % (pid, fd)).startswith(
                        prefix):
                    return True
        except OSError:
            continue
    return False


def wait_for_traces(work, limit=10.0):
    """A daemon's child (daemon(), t008) runs on after the program
    returns: its trace is read once it is done, as uftrace's runner reads
    its data once every process writing it has ended."""
    end = time.monotonic() + limit
    while traces_in_use(work) and time.monotonic() < end:
        time.sleep(0.05)


PATCHABLE = '-fpatchable-function-entry=5,0'


def run_calltrace(t, src, work, lib, report, patchable=False,
                  read=None, hooks_args=False):
    read = read or trees
    env_add = mapping(t['option'])
    report_args = shlex.split(env_add.pop(REPORT_ARGS, ''))
    exe = os.path.join(work, 't-' + t['name'])
    debug = not ARG_OPTIONS.search(t['option']) or t['debug'] or hooks_args
    if not build(src, exe, PATCHABLE if patchable else
                 '-finstrument-functions', t['lang'], t['ldflags'], debug):
        return 'build failed', None
    env = dict(os.environ)
    env.update(env_add)
    env.setdefault('CALLTRACE_LIBCALLS', 'plt')
    if t['lang'] == 'C++' and env['CALLTRACE_LIBCALLS'] != 'none':
        env['CALLTRACE_FILTER'] = ','.join(filter(None, [
            env.get('CALLTRACE_FILTER')] + ['-%s@plt' % n
                                            for n in UFTRACE_SKIPS]))
    env['CALLTRACE_OUTPUT'] = os.path.join(work, 'ct.raw')
    env['CALLTRACE_QUIET'] = '1'
    env['LD_PRELOAD'] = lib
    argv = shlex.split(t['exearg'])
    argv[0] = os.path.join(work, argv[0])
    spec = env.get('CALLTRACE_ARGS', '')
    if re.search(r'@args\b|(^|;)auto(;|$)', spec) or (hooks_args and spec):
        # rules from debug information: made by calltrace record
        del env['CALLTRACE_ARGS'], env['CALLTRACE_OUTPUT']
        del env['LD_PRELOAD']
        front = os.path.join(os.path.dirname(report), 'calltrace')
        argv = [front, 'record', '-q', '-o', os.path.join(work, 'ct.raw'),
                '--args', spec, '--'] + argv
    run_bounded(argv, cwd=work, env=env)
    wait_for_traces(work)
    tree = os.path.join(work, 'ct.tree')
    raws = sorted(f for f in os.listdir(work) if f.startswith('ct.raw'))
    if not raws:
        return 'no trace', None
    with open(tree, 'w') as out:
        subprocess.run([report, '--tree'] + report_args +
                       [os.path.join(work, raws[0])],
                       stdout=out, stderr=subprocess.DEVNULL)
    got = read(tree)
    # a forked child's trace is a file of its own
    for f in raws[1:]:
        with open(tree, 'w') as out:
            subprocess.run([report, '--tree'] + report_args +
                           [os.path.join(work, f)],
                           stdout=out, stderr=subprocess.DEVNULL)
        got += read(tree, need_main=False)
    return None, sorted(got)


def run_uftrace(t, src, work, patchable=False, read=None):
    read = read or trees
    exe = os.path.join(work, 't-' + t['name'])
    if not build(src, exe, PATCHABLE if patchable else '-pg', t['lang'],
                 t['ldflags'], not ARG_OPTIONS.search(t['option']) or
                 t['debug']):
        return 'build failed', None
    data = os.path.join(work, 'u.data')
    argv = shlex.split(t['exearg'])
    argv[0] = os.path.join(work, argv[0])
    cmd = ['uftrace', 'record', '-d', data] + (
        ['-P', '.'] if patchable else []) + shlex.split(t['option']) + argv
    run_bounded(cmd, cwd=work)
    tree = os.path.join(work, 'u.tree')
    with open(tree, 'w') as out:
        subprocess.run(['uftrace', 'replay', '-d', data], cwd=work,
                       stdout=out, stderr=subprocess.DEVNULL)
    return None, read(tree)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--src', default=os.environ.get('UFTRACE_SRC'))
    ap.add_argument('--build', default=os.path.join(HERE, '..', 'build'))
    ap.add_argument('--no-uftrace', action='store_true')
    ap.add_argument('--patchable', action='store_true')
    ap.add_argument('--hooks-args', action='store_true')
    ap.add_argument('-v', action='store_true')
    ap.add_argument('tests', nargs='*')
    o = ap.parse_args()
    if not o.src or not os.path.isdir(os.path.join(o.src, 'tests')):
        print('uftrace_conform: no uftrace source (--src or UFTRACE_SRC): '
              'skipped')
        return 77
    tdir = os.path.join(o.src, 'tests')
    lib = os.path.abspath(os.path.join(o.build, 'libcalltrace.so'))
    report = os.path.abspath(os.path.join(o.build, 'calltrace-report'))
    use_uftrace = not o.no_uftrace and subprocess.run(
        ['sh', '-c', 'command -v uftrace'], stdout=subprocess.DEVNULL
    ).returncode == 0
    names = sorted(f for f in os.listdir(tdir)
                   if re.match(r't\d+_.*\.py$', f))
    if o.tests:
        names = [n for n in names if any(n.startswith(x) for x in o.tests)]
    counted = ours = theirs = unmapped = 0
    for n in names:
        t, why = read_test(os.path.join(tdir, n))
        if t and o.hooks_args and not ARG_OPTIONS.search(t['option']):
            t, why = None, 'no arguments (--hooks-args)'
        elif t and t['cygprof_skip'] and not o.patchable and not o.hooks_args:
            t, why = None, 'skips -finstrument-functions builds (--patchable)'
        if not t:
            if o.v:
                print('%-32s not a tree test: %s' % (n[:-3], why))
            continue
        ext = '.cpp' if t['lang'] == 'C++' else '.c'
        src = os.path.join(tdir, 's-' + t['name'] + ext)
        if not os.path.exists(src):
            continue
        counted += 1
        want = os.path.join(tempfile.gettempdir(), 'uc-want.txt')
        with open(want, 'w') as f:
            f.write(t['result'])
        read = trees
        if ARG_OPTIONS.search(t['option']):
            read = arg_trees
            if t['addr_sort']:
                def read(path, need_main=True):
                    return arg_trees(path, need_main, all_hex=True)
        expect = read(want)
        line = '%-32s' % n[:-3]
        with tempfile.TemporaryDirectory(prefix='uc-') as work:
            try:
                why, got = run_calltrace(t, src, work, lib, report,
                                         o.patchable, read, o.hooks_args)
                ok = got == expect
                line += ' calltrace %s' % ('same' if ok else why or 'differs')
                ours += ok
            except subprocess.TimeoutExpired:
                line += ' calltrace timed out'
                got = None
            except Unmapped as e:
                line += ' calltrace unmapped (%s)' % e
                unmapped += 1
                got = None
            if use_uftrace:
                try:
                    why, ugot = run_uftrace(t, src, work, o.patchable, read)
                except subprocess.TimeoutExpired:
                    why, ugot = 'timed out', None
                uok = ugot == expect
                theirs += uok
                line += '; uftrace %s' % ('same' if uok else why or 'differs')
            if o.v and got is not None and got != expect:
                line += '\n    want %s\n    got  %s' % (expect, got)
            if o.v and use_uftrace and ugot != expect:
                line += '\n    uftrace %s' % ugot
        print(line, flush=True)
    print('tree tests: %d; calltrace gives the expected tree in %d '
          '(%d with options it has no setting for)%s' %
          (counted, ours, unmapped,
           '; uftrace %s in %d' % (subprocess.run(
               ['uftrace', '--version'], capture_output=True, text=True
           ).stdout.split()[1], theirs) if use_uftrace else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
