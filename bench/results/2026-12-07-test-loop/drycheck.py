# Compiles (syntax only, the main build's g++ flags) the C++ files each dry-run commit changed.
import json, re, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
cc = {e['file']: e for e in json.load(open('/work/wt-loop/build/compile_commands.json'))}
jobs = []
for branch in sys.argv[1:]:
    files = subprocess.run(['git', '-C', '/work/wt-loop', 'diff', '--name-only', '7bb5be3', branch],
                           capture_output=True, text=True).stdout.split()
    subprocess.run(['git', '-C', '/work/wt-loop-dry', 'checkout', '-q', branch], check=True)
    for f in files:
        if not f.endswith('.cpp'): continue
        key = '/work/wt-loop/' + f
        if key not in cc:
            # a new file: the flags of a sibling in its folder
            sib = [k for k in cc if k.rsplit('/', 1)[0] == key.rsplit('/', 1)[0]]
            if not sib: print(branch, f, 'no flags (not in this build)'); continue
            e = dict(cc[sib[0]]); e['command'] = e['command'].replace(sib[0], key)
        else:
            e = cc[key]
        c = re.sub(r' -o \S+', '', e['command'].replace(' -c ', ' -fsyntax-only '))
        c = c.replace('/work/wt-loop/', '/work/wt-loop-dry/').replace('/work/wt-loop-dry/build', '/work/wt-loop/build')
        p = subprocess.run(c, shell=True, cwd=e['directory'], capture_output=True, text=True)
        print(branch, f, 'ok' if p.returncode == 0 else 'FAILED\n' + p.stderr[-2000:], flush=True)
